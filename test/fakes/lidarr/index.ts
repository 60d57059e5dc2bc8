export { startLidarrFake, type LidarrFake } from './server.js';
export { LidarrFakeState, type LidarrFakeOptions } from './state.js';
export { MetadataCatalogue, defaultCatalogue } from './catalogue.js';
export type { CatalogueArtist, CatalogueAlbum, CatalogueArtistInput, CatalogueAlbumInput } from './catalogue.js';
export type { ArtistRecord, AlbumRecord, TrackView, SeedLibraryOptions } from './library.js';
export { buildWebhookPayload, postWebhook } from './webhooks.js';
export type { WebhookEventType, WebhookOptions, WebhookDelivery } from './webhooks.js';
