import { JsonApi } from '../jsonApi.js';
import { albumSchema, albumSearchSchema, artistSchema, artistSearchSchema } from './schemas.js';

export interface MetadataProviderOptions {
  /** API root, e.g. `https://lidarrapi.brainzmash.cc` (paths `/artist/<mbid>` etc. hang off it). */
  baseUrl: string;
  userAgent: string;
  /** 100 ms between requests, as the reference service spaces them. */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

/**
 * A Lidarr-format metadata server ("brainzmash", Lidarr's own api.lidarr.audio): SkyHook artist and
 * album documents by MusicBrainz id, and artist/album searches answered as plain arrays.
 */
export class MetadataProviderClient {
  private readonly api: JsonApi;

  constructor(options: MetadataProviderOptions) {
    this.api = new JsonApi({
      service: 'metadata',
      label: 'The metadata provider',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 100,
      timeoutMs: options.timeoutMs ?? 8000,
      retries: options.retries ?? 1,
      retryBaseMs: options.retryBaseMs ?? 500,
    });
  }

  get baseUrl(): string {
    return this.api.options.baseUrl;
  }

  /** The artist with a summary of each of its albums (`Albums`). */
  artist(mbid: string, signal?: AbortSignal) {
    return this.api.get({ path: `/artist/${encodeURIComponent(mbid)}`, schema: artistSchema, signal });
  }

  /** A release group (an "album") with its releases and their tracks. */
  album(mbid: string, signal?: AbortSignal) {
    return this.api.get({ path: `/album/${encodeURIComponent(mbid)}`, schema: albumSchema, signal });
  }

  searchArtists(query: string, limit: number, signal?: AbortSignal) {
    return this.api.get({ path: '/search/artist', query: { query, limit }, schema: artistSearchSchema, signal });
  }

  /** Albums by title, optionally narrowed to an artist's name. */
  searchAlbums(query: string, limit: number, artist?: string, signal?: AbortSignal) {
    return this.api.get({ path: '/search/album', query: { query, limit, ...(artist && { artist }) }, schema: albumSearchSchema, signal });
  }
}
