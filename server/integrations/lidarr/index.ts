export { LidarrClient } from './client.js';
export type {
  ConnectionOk,
  DeleteOptions,
  HistoryQuery,
  LidarrClientOptions,
  LidarrCommandRequest,
  NewAlbum,
  NewArtist,
  PageRequest,
  QueueQuery,
  TrackFileQuery,
  TrackQuery,
  WantedQuery,
} from './client.js';
export type { PageWalkOptions } from './paging.js';
export { walkPages, collectPages } from './paging.js';
export * from './schemas.js';
