import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { collectPages, walkPages, type PageWalkOptions } from './paging.js';
import {
  albumLookupSchema,
  albumSchema,
  artistLookupSchema,
  artistSchema,
  commandSchema,
  historyItemSchema,
  metadataProfileSchema,
  pageSchema,
  qualityProfileSchema,
  queueItemSchema,
  rootFolderSchema,
  systemStatusSchema,
  tagSchema,
  trackFileSchema,
  trackSchema,
  type AddArtistOptions,
  type Album,
  type AlbumLookup,
  type Artist,
  type ArtistLookup,
  type Command,
  type HistoryItem,
  type MetadataProfile,
  type Page,
  type QualityProfile,
  type QueueItem,
  type RootFolder,
  type SystemStatus,
  type Tag,
  type Track,
  type TrackFile,
} from './schemas.js';
import { LidarrTransport, SERVICE, type LidarrTransportOptions } from './transport.js';

export type LidarrClientOptions = LidarrTransportOptions;

/** Applications that answer /api/v1/system/status like Lidarr does, named when a test reaches one of them. */
const knownApps = ['Sonarr', 'Radarr', 'Readarr', 'Prowlarr', 'Whisparr', 'Bazarr'];

/** What POST /artist needs; a lookup result spread into it carries the rest. */
export interface NewArtist extends Partial<Omit<ArtistLookup, 'addOptions'>> {
  artistName: string;
  foreignArtistId: string;
  rootFolderPath: string;
  qualityProfileId: number;
  metadataProfileId: number;
  monitored: boolean;
  monitorNewItems?: 'all' | 'none' | 'new';
  tags?: number[];
  addOptions?: AddArtistOptions;
}

/** What POST /album needs. When the artist is not in the library yet, `artist` must carry its settings. */
export interface NewAlbum extends Partial<Omit<AlbumLookup, 'artist'>> {
  title: string;
  foreignAlbumId: string;
  monitored: boolean;
  anyReleaseOk?: boolean;
  artistId?: number;
  artist: Partial<ArtistLookup> & { foreignArtistId: string };
  addOptions?: { searchForNewAlbum?: boolean; addType?: 'automatic' | 'manual' };
}

export type LidarrCommandRequest =
  | { name: 'AlbumSearch'; albumIds: number[] }
  | { name: 'ArtistSearch'; artistId: number }
  | { name: 'RefreshArtist'; artistId?: number; artistIds?: number[] }
  | { name: string; [field: string]: unknown };

export interface DeleteOptions {
  deleteFiles?: boolean;
  addImportListExclusion?: boolean;
}

export interface PageRequest {
  page?: number;
  pageSize?: number;
  sortKey?: string;
  sortDirection?: 'ascending' | 'descending' | 'default';
}

export interface QueueQuery extends PageRequest {
  includeArtist?: boolean;
  includeAlbum?: boolean;
  includeUnknownArtistItems?: boolean;
  artistIds?: number[];
}

export interface HistoryQuery extends PageRequest {
  includeArtist?: boolean;
  includeAlbum?: boolean;
  includeTrack?: boolean;
  albumId?: number;
  artistIds?: number[];
  downloadId?: string;
  /** Numeric EntityHistoryEventType values, as Lidarr's query expects. */
  eventType?: number[];
}

export interface WantedQuery extends PageRequest {
  includeArtist?: boolean;
  monitored?: boolean;
}

export type TrackQuery =
  | { albumId: number }
  | { artistId: number }
  | { albumReleaseId: number }
  | { trackIds: number[] };

export type TrackFileQuery =
  | { albumId: number | number[] }
  | { artistId: number }
  | { trackFileIds: number[] }
  | { unmapped: true };

export interface ConnectionOk {
  ok: true;
  version: string;
  instanceName: string;
}

const queuePage = pageSchema(queueItemSchema);
const historyPage = pageSchema(historyItemSchema);
const albumPage = pageSchema(albumSchema);

/** A thin typed client for Lidarr's v1 API. It knows Lidarr's protocol and nothing of the product. */
export class LidarrClient {
  private readonly http: LidarrTransport;

  constructor(options: LidarrClientOptions) {
    this.http = new LidarrTransport(options);
  }

  /** True while the circuit breaker refuses calls after repeated failures. */
  get circuitOpen(): boolean {
    return this.http.circuitOpen;
  }

  // --- system -------------------------------------------------------------------------------

  systemStatus(): Promise<SystemStatus> {
    return this.http.request({ path: '/system/status', schema: systemStatusSchema });
  }

  /** Checks URL, URL base and API key in one call; throws the mapped IntegrationError otherwise. */
  async testConnection(): Promise<ConnectionOk> {
    let status: SystemStatus;
    try {
      status = await this.http.request({ path: '/system/status', schema: systemStatusSchema, bypassBreaker: true, quoteNothing: true });
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'bad_response') {
        throw new IntegrationError(SERVICE, 'wrong_url', `not Lidarr at this URL: its answer is not Lidarr's system status (check the URL and port)`, err.status);
      }
      throw err;
    }
    const appName = (status.appName ?? '').toLowerCase();
    if (appName !== 'lidarr') {
      // Name the application only when it is one we know: nothing else of the answer is repeated.
      const known = knownApps.find((app) => app.toLowerCase() === appName);
      throw new IntegrationError(
        SERVICE,
        'wrong_url',
        known ? `not Lidarr at this URL: it is ${known} (check the URL and port)` : 'not Lidarr at this URL: the server does not say it is Lidarr (check the URL and port)',
      );
    }
    return { ok: true, version: status.version, instanceName: status.instanceName ?? 'Lidarr' };
  }

  rootFolders(): Promise<RootFolder[]> {
    return this.http.request({ path: '/rootfolder', schema: z.array(rootFolderSchema) });
  }

  qualityProfiles(): Promise<QualityProfile[]> {
    return this.http.request({ path: '/qualityprofile', schema: z.array(qualityProfileSchema) });
  }

  metadataProfiles(): Promise<MetadataProfile[]> {
    return this.http.request({ path: '/metadataprofile', schema: z.array(metadataProfileSchema) });
  }

  /** Creates a quality profile; `items` must list every quality, as Lidarr's own UI sends them. */
  createQualityProfile(profile: Omit<QualityProfile, 'id'>): Promise<QualityProfile> {
    return this.http.request({ method: 'POST', path: '/qualityprofile', body: profile, schema: qualityProfileSchema });
  }

  /** Creates a metadata profile; the type lists must name every album type and release status. */
  createMetadataProfile(profile: Omit<MetadataProfile, 'id'>): Promise<MetadataProfile> {
    return this.http.request({ method: 'POST', path: '/metadataprofile', body: profile, schema: metadataProfileSchema });
  }

  tags(): Promise<Tag[]> {
    return this.http.request({ path: '/tag', schema: z.array(tagSchema) });
  }

  createTag(label: string): Promise<Tag> {
    return this.http.request({ method: 'POST', path: '/tag', body: { label }, schema: tagSchema });
  }

  // --- artists ------------------------------------------------------------------------------

  artists(): Promise<Artist[]> {
    return this.http.request({ path: '/artist', schema: z.array(artistSchema) });
  }

  /** The artist, or null when Lidarr has no artist with this id. */
  artist(id: number): Promise<Artist | null> {
    return nullOn404(this.http.request({ path: `/artist/${id}`, schema: artistSchema }));
  }

  /** One artist by MusicBrainz id without fetching the whole library; null when not in Lidarr. */
  async artistByMbId(mbId: string): Promise<Artist | null> {
    const found = await this.http.request({ path: '/artist', query: { mbId }, schema: z.array(artistSchema) });
    return found.find((a) => a.foreignArtistId === mbId) ?? null;
  }

  lookupArtists(term: string): Promise<ArtistLookup[]> {
    return this.http.request({ path: '/artist/lookup', query: { term }, schema: z.array(artistLookupSchema) });
  }

  /** Lidarr's metadata for one MusicBrainz artist, whether or not it is in the library. */
  async lookupArtistByMbId(mbId: string): Promise<ArtistLookup | null> {
    const found = await this.lookupArtists(`lidarr:${mbId}`);
    return found.find((a) => a.foreignArtistId === mbId) ?? null;
  }

  addArtist(artist: NewArtist): Promise<Artist> {
    return this.http.request({ method: 'POST', path: '/artist', body: artist, schema: artistSchema });
  }

  /** PUT takes the full resource: pass what `artist()` returned, changed. */
  updateArtist(artist: Artist, options: { moveFiles?: boolean } = {}): Promise<Artist> {
    return this.http.request({
      method: 'PUT',
      path: `/artist/${artist.id}`,
      query: { moveFiles: options.moveFiles },
      body: artist,
      schema: artistSchema,
    });
  }

  async deleteArtist(id: number, options: DeleteOptions = {}): Promise<void> {
    await this.http.request({ method: 'DELETE', path: `/artist/${id}`, query: { ...options } });
  }

  // --- albums -------------------------------------------------------------------------------

  albums(query: { artistId?: number; albumIds?: number[]; foreignAlbumId?: string; includeAllArtistAlbums?: boolean } = {}): Promise<Album[]> {
    return this.http.request({ path: '/album', query, schema: z.array(albumSchema) });
  }

  albumsByArtist(artistId: number): Promise<Album[]> {
    return this.albums({ artistId });
  }

  /** The library's album for a MusicBrainz release group, or null. */
  async albumByForeignId(foreignAlbumId: string): Promise<Album | null> {
    const found = await this.albums({ foreignAlbumId });
    return found.find((a) => a.foreignAlbumId === foreignAlbumId) ?? null;
  }

  /** The album, or null when Lidarr has no album with this id. */
  album(id: number): Promise<Album | null> {
    return nullOn404(this.http.request({ path: `/album/${id}`, schema: albumSchema }));
  }

  lookupAlbums(term: string): Promise<AlbumLookup[]> {
    return this.http.request({ path: '/album/lookup', query: { term }, schema: z.array(albumLookupSchema) });
  }

  async lookupAlbumByMbId(foreignAlbumId: string): Promise<AlbumLookup | null> {
    const found = await this.lookupAlbums(`lidarr:${foreignAlbumId}`);
    return found.find((a) => a.foreignAlbumId === foreignAlbumId) ?? null;
  }

  addAlbum(album: NewAlbum): Promise<Album> {
    return this.http.request({ method: 'POST', path: '/album', body: album, schema: albumSchema });
  }

  updateAlbum(album: Album): Promise<Album> {
    return this.http.request({ method: 'PUT', path: `/album/${album.id}`, body: album, schema: albumSchema });
  }

  /** Flips `monitored` on many albums in one call. */
  async setAlbumsMonitored(albumIds: number[], monitored: boolean): Promise<void> {
    await this.http.request({ method: 'PUT', path: '/album/monitor', body: { albumIds, monitored } });
  }

  async deleteAlbum(id: number, options: DeleteOptions = {}): Promise<void> {
    await this.http.request({ method: 'DELETE', path: `/album/${id}`, query: { ...options } });
  }

  // --- tracks and files ---------------------------------------------------------------------

  tracks(query: TrackQuery): Promise<Track[]> {
    return this.http.request({ path: '/track', query, schema: z.array(trackSchema) });
  }

  trackFiles(query: TrackFileQuery): Promise<TrackFile[]> {
    return this.http.request({ path: '/trackfile', query, schema: z.array(trackFileSchema) });
  }

  // --- commands -----------------------------------------------------------------------------

  runCommand(command: LidarrCommandRequest): Promise<Command> {
    return this.http.request({ method: 'POST', path: '/command', body: command, schema: commandSchema });
  }

  command(id: number): Promise<Command> {
    return this.http.request({ path: `/command/${id}`, schema: commandSchema });
  }

  commands(): Promise<Command[]> {
    return this.http.request({ path: '/command', schema: z.array(commandSchema) });
  }

  // --- queue, history, wanted (paged) ---------------------------------------------------------

  queuePage(query: QueueQuery = {}): Promise<Page<QueueItem>> {
    return this.page('/queue', query, queuePage);
  }

  /** Every queue item, page by page. */
  queue(query: Omit<QueueQuery, 'page'> = {}, options?: PageWalkOptions): AsyncGenerator<QueueItem> {
    return walkPages((page) => this.queuePage({ ...query, page }), { pageSize: query.pageSize, ...options });
  }

  allQueue(query: Omit<QueueQuery, 'page'> = {}, options?: PageWalkOptions): Promise<QueueItem[]> {
    return collectPages(this.queue(query, options));
  }

  historyPage(query: HistoryQuery = {}): Promise<Page<HistoryItem>> {
    return this.page('/history', { sortKey: 'date', sortDirection: 'descending', ...query }, historyPage);
  }

  history(query: Omit<HistoryQuery, 'page'> = {}, options?: PageWalkOptions): AsyncGenerator<HistoryItem> {
    return walkPages((page) => this.historyPage({ ...query, page }), { pageSize: query.pageSize, ...options });
  }

  allHistory(query: Omit<HistoryQuery, 'page'> = {}, options?: PageWalkOptions): Promise<HistoryItem[]> {
    return collectPages(this.history(query, options));
  }

  wantedMissingPage(query: WantedQuery = {}): Promise<Page<Album>> {
    return this.page('/wanted/missing', query, albumPage);
  }

  wantedMissing(query: Omit<WantedQuery, 'page'> = {}, options?: PageWalkOptions): AsyncGenerator<Album> {
    return walkPages((page) => this.wantedMissingPage({ ...query, page }), { pageSize: query.pageSize, ...options });
  }

  private async page<T>(
    path: string,
    query: PageRequest & object,
    schema: z.ZodType<{ page: number; pageSize: number; totalRecords: number; records?: T[] | null }>,
  ): Promise<Page<T>> {
    const answer = await this.http.request({
      path,
      query: { page: 1, pageSize: 100, ...(query as Record<string, unknown>) },
      schema,
    });
    return { ...answer, records: answer.records ?? [] } as Page<T>;
  }
}

async function nullOn404<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') return null;
    throw err;
  }
}
