import { JsonApi } from '../jsonApi.js';
import {
  artistSchema,
  artistSearchSchema,
  recordingSchema,
  recordingSearchSchema,
  releaseGroupBrowseSchema,
  releaseGroupSchema,
  releaseGroupSearchSchema,
  releaseSchema,
} from './schemas.js';

export interface MusicBrainzOptions {
  /** WS/2 root, e.g. `https://musicbrainz.org/ws/2`. */
  baseUrl: string;
  /** `Tonearm/<version> ( <contact> )`: MusicBrainz blocks anonymous user agents. */
  userAgent: string;
  /** One request per second is MusicBrainz's rule; tests shorten it. */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

/** Lucene query syntax: quote a user's phrase so its words are not operators. */
export const luceneQuote = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** MusicBrainz WS/2: lookups, searches and browses over JSON. */
export class MusicBrainzClient {
  private readonly api: JsonApi;

  constructor(options: MusicBrainzOptions) {
    this.api = new JsonApi({
      service: 'musicbrainz',
      label: 'MusicBrainz',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      // MusicBrainz allows 1 request/s; the margin keeps arrivals apart despite network and event-loop jitter.
      spacingMs: options.spacingMs ?? 1100,
      timeoutMs: options.timeoutMs ?? 8000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 1000,
      // MusicBrainz answers 503 when a client goes over its rate.
      rateLimitStatuses: [503],
    });
  }

  get baseUrl(): string {
    return this.api.options.baseUrl;
  }

  artist(mbid: string, signal?: AbortSignal) {
    return this.api.get({ path: `/artist/${encodeURIComponent(mbid)}`, query: { fmt: 'json', inc: 'aliases+tags+genres+url-rels' }, schema: artistSchema, signal });
  }

  searchArtists(query: string, limit: number, offset: number, signal?: AbortSignal) {
    return this.api.get({ path: '/artist', query: { fmt: 'json', query, limit, offset }, schema: artistSearchSchema, signal });
  }

  searchReleaseGroups(query: string, limit: number, offset: number, signal?: AbortSignal) {
    return this.api.get({ path: '/release-group', query: { fmt: 'json', query, limit, offset }, schema: releaseGroupSearchSchema, signal });
  }

  /** Recordings matching a Lucene query, each with the releases (and release groups) it is on. */
  searchRecordings(query: string, limit: number, offset: number, signal?: AbortSignal) {
    return this.api.get({ path: '/recording', query: { fmt: 'json', query, limit, offset }, schema: recordingSearchSchema, signal });
  }

  /** One recording (title, length, credited artists). */
  recording(mbid: string, signal?: AbortSignal) {
    return this.api.get({ path: `/recording/${encodeURIComponent(mbid)}`, query: { fmt: 'json', inc: 'artist-credits' }, schema: recordingSchema, signal });
  }

  /** One page (≤ 100) of an artist's release groups. */
  browseReleaseGroups(artistMbid: string, limit: number, offset: number, signal?: AbortSignal) {
    return this.api.get({
      path: '/release-group',
      query: { fmt: 'json', artist: artistMbid, inc: 'artist-credits', limit, offset },
      schema: releaseGroupBrowseSchema,
      signal,
    });
  }

  releaseGroup(mbid: string, signal?: AbortSignal) {
    return this.api.get({
      path: `/release-group/${encodeURIComponent(mbid)}`,
      query: { fmt: 'json', inc: 'releases+artist-credits+genres+tags+ratings' },
      schema: releaseGroupSchema,
      signal,
    });
  }

  release(mbid: string, signal?: AbortSignal) {
    return this.api.get({
      path: `/release/${encodeURIComponent(mbid)}`,
      query: { fmt: 'json', inc: 'recordings+artist-credits+release-groups+media' },
      schema: releaseSchema,
      signal,
    });
  }

  /** Recordings credited to an artist with the releases they are on ("appears on"). */
  recordingsByArtist(artistMbid: string, limit: number, offset: number, signal?: AbortSignal) {
    return this.api.get({
      path: '/recording',
      query: { fmt: 'json', query: `arid:${artistMbid}`, inc: 'artist-credits+releases', limit, offset },
      schema: recordingSearchSchema,
      signal,
    });
  }
}
