import { LidarrActivity, type ActivityOptions } from './activity.js';
import { defaultCatalogue, type CatalogueArtist, type MetadataCatalogue } from './catalogue.js';
import { LidarrLibrary, type AlbumRecord, type ArtistRecord, type SeedLibraryOptions } from './library.js';
import {
  defaultMetadataProfiles,
  defaultQualityProfiles,
  defaultRootFolder,
  type RootFolderRecord,
  type TagRecord,
} from './settings.js';
import { buildWebhookPayload, postWebhook, type WebhookEventType, type WebhookOptions } from './webhooks.js';

/**
 * Everything the Lidarr fake holds and every knob a test can turn: the library, the metadata
 * catalogue, commands/queue/history, failure injection, and request statistics.
 */
export interface LidarrFakeOptions extends ActivityOptions {
  apiKey?: string;
  /** Lidarr's "URL base" setting, e.g. `/lidarr`; the API then lives under `/lidarr/api/v1`. */
  urlBase?: string;
  instanceName?: string;
  /** Path of the default root folder; use a temp directory to get imported files on disk. */
  rootFolderPath?: string;
  /** Starts with this catalogue instead of the default few artists. */
  catalogue?: MetadataCatalogue;
  /**
   * Real Lidarr loads an added artist's albums asynchronously; for this long after an artist add
   * its albums are missing (a RefreshArtist command loads them at once). Default 0: immediate.
   */
  albumMetadataDelayMs?: number;
  /** When set, the fake sends Grab/Download/AlbumDelete/ArtistDelete webhooks here as Lidarr would. */
  webhook?: { url: string } & Pick<WebhookOptions, 'headers' | 'basicAuth' | 'method'>;
}

interface InjectedFailure {
  remaining: number;
  status: number;
  body: string;
}

export class LidarrFakeState {
  readonly apiKey: string;
  readonly urlBase: string;
  readonly instanceName: string;
  readonly startTime = new Date().toISOString();
  readonly catalogue: MetadataCatalogue;
  readonly library: LidarrLibrary;
  readonly activity: LidarrActivity;
  readonly rootFolders: RootFolderRecord[];
  readonly qualityProfiles = defaultQualityProfiles();
  readonly metadataProfiles = defaultMetadataProfiles();
  readonly tags: TagRecord[] = [];
  albumMetadataDelayMs: number;
  webhook: LidarrFakeOptions['webhook'];
  /** Webhook deliveries the fake made on its own (grab, import, deletes), with their outcome. */
  readonly webhookLog: Array<{ event: WebhookEventType; status: number | 'error' }> = [];
  applicationUrl = '';

  // Failure injection.
  private failure: InjectedFailure | null = null;
  delayMs = 0;
  isDown = false;
  downMode: 'refuse' | 'reset' = 'refuse';
  /** Set by the server: closes or reopens the listener for down()/up(). */
  onAvailabilityChange: (down: boolean) => Promise<void> = async () => {};

  // Request statistics.
  requestCount = 0;
  readonly routeCounts: Record<string, number> = {};
  inFlight = 0;
  maxInFlight = 0;

  private readonly pendingAlbumLoads = new Map<number, () => void>();

  constructor(options: LidarrFakeOptions = {}) {
    this.apiKey = options.apiKey ?? 'fake-lidarr-api-key';
    this.urlBase = (options.urlBase ?? '').replace(/\/+$/, '');
    this.instanceName = options.instanceName ?? 'Lidarr';
    this.catalogue = options.catalogue ?? defaultCatalogue();
    const root = options.rootFolderPath ?? '/music';
    this.library = new LidarrLibrary(root);
    this.rootFolders = [defaultRootFolder(root)];
    this.albumMetadataDelayMs = options.albumMetadataDelayMs ?? 0;
    this.webhook = options.webhook;
    this.activity = new LidarrActivity(this.library, options, {
      onRefreshArtist: (artistId) => this.flushAlbumLoads(artistId),
      onGrab: (album) => this.notify('Grab', { albumId: album.id }),
      onImport: (album) => this.notify('Download', { albumId: album.id }),
    });
  }

  // --- failure injection ----------------------------------------------------------------------

  /** The next `count` requests answer `status` (default 500) instead of being handled. */
  failNext(count: number, status = 500, body = JSON.stringify({ message: 'Injected failure' })): void {
    this.failure = { remaining: count, status, body };
  }

  takeFailure(): { status: number; body: string } | null {
    if (!this.failure || this.failure.remaining <= 0) return null;
    this.failure.remaining--;
    return { status: this.failure.status, body: this.failure.body };
  }

  /** Every request waits this long before being handled (0 turns it off). */
  slow(ms: number): void {
    this.delayMs = ms;
  }

  /** 'refuse': the port stops listening (ECONNREFUSED); 'reset': connections are destroyed at once. */
  async down(mode: 'refuse' | 'reset' = 'refuse'): Promise<void> {
    this.isDown = true;
    this.downMode = mode;
    await this.onAvailabilityChange(true);
  }

  async up(): Promise<void> {
    this.isDown = false;
    await this.onAvailabilityChange(false);
  }

  resetCounts(): void {
    this.requestCount = 0;
    this.maxInFlight = this.inFlight;
    for (const key of Object.keys(this.routeCounts)) delete this.routeCounts[key];
  }

  /** Requests seen for one route, e.g. `countOf('GET /artist')` or `countOf('GET /artist/{id}')`. */
  countOf(route: string): number {
    return this.routeCounts[route] ?? 0;
  }

  // --- data -----------------------------------------------------------------------------------

  seedLibrary(options: SeedLibraryOptions) {
    return this.library.seed(options);
  }

  /** Adds an artist from the catalogue, loading its albums now or after `albumMetadataDelayMs`. */
  addArtistFromCatalogue(
    entry: CatalogueArtist,
    settings: Parameters<LidarrLibrary['artistFromCatalogue']>[1],
    monitorAlbum: (index: number, all: CatalogueArtist['albums']) => boolean,
    afterLoad?: (albums: AlbumRecord[]) => void,
    skipAlbum?: string,
  ): ArtistRecord {
    const artist = this.library.artistFromCatalogue(entry, settings);
    const load = () => {
      this.pendingAlbumLoads.delete(artist.id);
      if (!this.library.artists.has(artist.id)) return;
      const added = entry.albums
        .map((album, i) => ({ album, monitored: monitorAlbum(i, entry.albums) }))
        .filter(({ album }) => album.foreignAlbumId !== skipAlbum && !this.library.albumByMbId(album.foreignAlbumId))
        .map(({ album, monitored }) => this.library.addAlbum(artist, album, monitored));
      afterLoad?.(added);
    };
    if (this.albumMetadataDelayMs <= 0) load();
    else {
      this.pendingAlbumLoads.set(artist.id, load);
      this.activity.later(this.albumMetadataDelayMs, () => this.pendingAlbumLoads.get(artist.id)?.());
    }
    return artist;
  }

  private flushAlbumLoads(artistId: number | undefined): void {
    for (const [id, load] of [...this.pendingAlbumLoads]) if (artistId === undefined || id === artistId) load();
  }

  // --- webhooks -------------------------------------------------------------------------------

  async sendWebhook(targetUrl: string, event: WebhookEventType, options: WebhookOptions = {}) {
    const payload = buildWebhookPayload(this.webhookContext(), event, options);
    return postWebhook(targetUrl, payload, options);
  }

  webhookPayload(event: WebhookEventType, options: WebhookOptions = {}) {
    return buildWebhookPayload(this.webhookContext(), event, options);
  }

  /** Sends an event to the configured webhook, if any; delivery failures are logged, not thrown. */
  notify(event: WebhookEventType, options: WebhookOptions): void {
    const hook = this.webhook;
    if (!hook) return;
    let payload: Record<string, unknown>;
    try {
      payload = buildWebhookPayload(this.webhookContext(), event, options);
    } catch {
      return;
    }
    postWebhook(hook.url, payload, { ...hook, ...options }).then(
      (d) => this.webhookLog.push({ event, status: d.status }),
      () => this.webhookLog.push({ event, status: 'error' }),
    );
  }

  private webhookContext() {
    return { lib: this.library, instanceName: this.instanceName, applicationUrl: this.applicationUrl };
  }
}
