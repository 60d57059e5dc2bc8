import { pruneSearchCache } from '../../db/searchCache.js';
import { IntegrationError } from '../../integrations/errors.js';
import { luceneQuote } from '../../integrations/musicbrainz/client.js';
import type { MbArtist, MbReleaseGroup } from '../../integrations/musicbrainz/schemas.js';
import { artistEntry, albumEntry, type SearchAlbumEntry, type SearchArtistEntry } from './present.js';
import type { Kernel } from '../../kernel.js';
import type { LibraryService } from '../library/service.js';
import type { MetadataService } from '../metadata/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'scheduler'> & { library: LibraryService; metadata: MetadataService };

export type SearchScope = 'artist' | 'album' | 'tag';
export type AlbumSort = 'relevance' | 'date' | 'title';

/** MusicBrainz release-group types, lower-cased as `releaseTypes` takes them. */
export const PRIMARY_TYPES = ['album', 'ep', 'single', 'broadcast', 'other'] as const;
export const SECONDARY_TYPES = [
  'compilation', 'soundtrack', 'spokenword', 'interview', 'audiobook', 'audio drama', 'live', 'remix', 'dj-mix',
  'mixtape/street', 'demo', 'field recording',
] as const;
export const RELEASE_TYPES: readonly string[] = [...PRIMARY_TYPES, ...SECONDARY_TYPES];

export interface SearchRequest {
  scope: SearchScope;
  q: string;
  limit: number;
  offset: number;
  /** Album scope: allowed primary types, and the secondary types allowed besides none (studio). */
  releaseTypes: string[];
  sort: AlbumSort;
}

export interface SearchAnswer {
  scope: SearchScope;
  query: string;
  count: number;
  offset: number;
  items: (SearchArtistEntry | SearchAlbumEntry)[];
}

/** A search answer is reused this long (as-you-type, paging back and forth). */
export const SEARCH_FRESH_MS = 3600_000;
/** Date and title orders sort this many best matches (MusicBrainz only orders by score). */
export const SORT_WINDOW = 100;

/** One upstream page as cached: what MusicBrainz answered, before library marks. */
interface SearchPage {
  count: number;
  offset: number;
  artists?: MbArtist[];
  groups?: MbReleaseGroup[];
}

/** The cache key of a query: trimmed, lower-cased, single-spaced, NFC. */
export const normalizeQuery = (q: string) => q.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The Lucene query of an album search: the user's words as one phrase, then the release types.
 * A release group passes when its primary type is listed (or no primary type is) and each of its
 * secondary types is listed: `album` alone means studio albums, `album,live` adds live albums.
 */
export function albumLucene(q: string, releaseTypes: string[]): string {
  const parts = [luceneQuote(q)];
  const primaries = releaseTypes.filter((t) => (PRIMARY_TYPES as readonly string[]).includes(t));
  if (primaries.length > 0) parts.push(`(${primaries.map((t) => `primarytype:${luceneQuote(t)}`).join(' OR ')})`);
  if (releaseTypes.length > 0)
    for (const t of SECONDARY_TYPES) if (!releaseTypes.includes(t)) parts.push(`NOT secondarytype:${luceneQuote(t)}`);
  return parts.join(' AND ');
}

/**
 * MusicBrainz searches (artists, albums, artists by tag) through the metadata cache: an answer is
 * reused for an hour, a stale one is still served while MusicBrainz is unreachable, and one never
 * fetched fails with UPSTREAM_UNAVAILABLE. Library marks are added on every answer, never cached.
 */
export class SearchService {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** When a search last failed upstream (the clock's ms), and whether the latest one to finish failed. */
  private lastFailureAt: number | null = null;
  private latestFailed = false;

  constructor(private readonly ctx: Deps) {}

  async search(req: SearchRequest, options: { signal?: AbortSignal; upstream?: AbortSignal } = {}): Promise<SearchAnswer> {
    const q = normalizeQuery(req.q);
    const types = [...new Set(req.releaseTypes)].sort();
    const sorted = req.scope === 'album' && req.sort !== 'relevance';
    const window = sorted ? { limit: SORT_WINDOW, offset: 0 } : { limit: req.limit, offset: req.offset };
    const key = [req.scope, q, req.scope === 'album' ? types.join(',') : '', window.limit, window.offset].join('|');
    const page = await this.cached<SearchPage>(key, (s) => {
      const mb = this.ctx.metadata.musicbrainz();
      if (req.scope === 'album')
        return mb.searchReleaseGroups(albumLucene(q, types), window.limit, window.offset, s).then((r) => ({ count: r.count, offset: r.offset, groups: r['release-groups'] }));
      const lucene = req.scope === 'tag' ? `tag:${luceneQuote(q)}` : luceneQuote(q);
      return mb.searchArtists(lucene, window.limit, window.offset, s).then((r) => ({ count: r.count, offset: r.offset, artists: r.artists }));
    }, options);
    const reader = this.ctx.library.reader;
    if (page.artists) {
      const present = reader.artistMbidsPresent(page.artists.map((a) => a.id));
      return { scope: req.scope, query: req.q, count: page.count, offset: page.offset, items: page.artists.map((a) => artistEntry(a, present.has(a.id))) };
    }
    let groups = page.groups ?? [];
    let count = page.count;
    if (sorted) {
      count = Math.min(count, groups.length);
      groups = sortGroups(groups, req.sort).slice(req.offset, req.offset + req.limit);
    }
    const owned = new Map<string, ReturnType<typeof reader.albumsByMbids>[number]>();
    for (const album of reader.albumsByMbids(groups.map((g) => g.id))) for (const k of [album.mbid, album.release_mbid]) if (k && !owned.has(k)) owned.set(k, album);
    return { scope: req.scope, query: req.q, count, offset: req.offset, items: groups.map((g) => albumEntry(g, owned.get(g.id))) };
  }

  /** Whether the latest upstream search failed, within the last `withinMs` (an outage in progress). */
  failingSince(withinMs: number): boolean {
    const failed = this.lastFailureAt;
    return this.latestFailed && failed !== null && this.ctx.clock.now() - failed <= withinMs;
  }

  /**
   * A MusicBrainz search answer under `key` in the `search` kind of the metadata cache: fetched when
   * missing or older than SEARCH_FRESH_MS, once however many callers ask at the same time, and the
   * stale copy served when MusicBrainz fails. `signal` stops this caller's wait only; `upstream`
   * drops the fetch itself (a superseded as-you-type suggestion still queued for MusicBrainz's
   * 1 request/s), and callers who merely joined such a fetch then fetch for themselves.
   */
  async cached<T>(key: string, fetch: (signal?: AbortSignal) => Promise<T>, options: { signal?: AbortSignal; upstream?: AbortSignal } = {}): Promise<T> {
    const metadata = this.ctx.metadata;
    const cached = metadata.cache.get('search', key);
    if (cached?.found && this.ctx.clock.now() - cached.fetchedAt <= SEARCH_FRESH_MS) return cached.payload as T;
    if (!metadata.enabled) {
      if (cached?.found) return cached.payload as T;
      throw new IntegrationError('musicbrainz', 'unreachable', 'MusicBrainz lookups are switched off in Settings (integrations.musicbrainz.enabled)');
    }
    for (let attempt = 0; ; attempt++) {
      const pending = (this.inFlight.get(key) as Promise<T> | undefined) ?? this.start(key, fetch, options.upstream);
      try {
        return await (options.signal ? raceAbort(pending, options.signal) : pending);
      } catch (err) {
        if (err instanceof SupersededError && !options.upstream?.aborted && attempt === 0) continue;
        // An outage still answers with what was found before.
        if (cached?.found && err instanceof IntegrationError) return cached.payload as T;
        throw err;
      }
    }
  }

  private start<T>(key: string, fetch: (signal?: AbortSignal) => Promise<T>, upstream?: AbortSignal): Promise<T> {
    const metadata = this.ctx.metadata;
    const pending: Promise<T> = fetch(upstream)
      .then(
        (page) => {
          this.latestFailed = false;
          metadata.cache.put('search', key, page, this.ctx.clock.now());
          return page;
        },
        (err: unknown) => {
          if (upstream?.aborted) throw new SupersededError();
          this.lastFailureAt = this.ctx.clock.now();
          this.latestFailed = true;
          throw err;
        },
      )
      .finally(() => {
        if (this.inFlight.get(key) === pending) this.inFlight.delete(key);
      });
    this.inFlight.set(key, pending);
    return pending;
  }
}

/** A fetch dropped because a newer suggestion request replaced the one that started it. */
export class SupersededError extends Error {
  override readonly name = 'SupersededError';
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function sortGroups(groups: MbReleaseGroup[], sort: AlbumSort): MbReleaseGroup[] {
  const date = (g: MbReleaseGroup) => g['first-release-date'] || '';
  if (sort === 'title') return [...groups].sort((a, b) => a.title.localeCompare(b.title, undefined, { sensitivity: 'base' }) || date(b).localeCompare(date(a)));
  // Newest first; undated releases last.
  return [...groups].sort((a, b) => (date(a) === '' ? 1 : 0) - (date(b) === '' ? 1 : 0) || date(b).localeCompare(date(a)) || a.title.localeCompare(b.title));
}

/** Search answers are kept this long (served during outages), then pruned. */
export const SEARCH_KEEP_MS = 7 * 86_400_000;

/**
 * Start-up: a task prunes old search answers from the cache (pasted streaming links resolve through
 * /api/search/link, the `linkSearch` feature of areas.ts).
 */
export function startSearch(ctx: Deps): void {
  ctx.scheduler.define({ name: 'search-cache-prune', every: 6 * 3600_000, handler: () => void pruneSearchCache(ctx.db, ctx.clock.now() - SEARCH_KEEP_MS) });
}
