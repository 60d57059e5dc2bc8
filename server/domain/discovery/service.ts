import { randomUUID } from 'node:crypto';
import { discoveryRepository, tagScope, userScope, type DiscoveryRepository, type RankingRow, type RecommendationRow } from '../../db/discovery.js';
import {
  libraryArtistKeys, libraryArtistKeysAmong, libraryArtistLookups, libraryArtistMbidsAmong, openJobWithKey, recommendationCountAll } from '../../db/discoveryQueries.js';
import { nameKey } from '../../db/libraryText.js';
import { IntegrationError } from '../../integrations/errors.js';
import type { Job } from '../../jobs/queue.js';
import type { DiscoveryProgress, DiscoveryProviderName, Preferences, RefreshDeps, RefreshHost } from './types.js';
import { bestImage, CallBudget, DISCOVERY_CALL_BUDGET, GLOBAL_STALE_MS, refreshRecommendations, SIMILAR_FRESH_MS, TAGS_FRESH_MS, uniqueLower, type LibraryIndex, type SimilarList } from './refresh.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';
import type { RemoteImages } from '../metadata/remoteImages.js';
import type { DiscoveryProviders } from './providers.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'scheduler'>
  & {
    hub: Broadcaster;
    discovery: DiscoveryService;
    discoveryProviders: DiscoveryProviders;
    remoteImages: RemoteImages;
  }
  & RefreshDeps;

/** The per-user refresh (on demand) and the global check that refreshes stale users every 15 minutes. */
export const DISCOVERY_USER_QUEUE = 'discovery-user-refresh';
export const DISCOVERY_CHECK_TASK = 'discovery-refresh';
export const DISCOVERY_CHECK_EVERY_MS = 15 * 60_000;
/** A user's recommendations are refreshed by the check once they are this old. */
export const USER_STALE_MS = 24 * 3600_000;
/** A refresh that failed (provider down) is tried again by the check after this long. */
const FAILED_RETRY_MS = 3600_000;
/** Users refreshed by one run of the check (each within its own budget). */
const USERS_PER_CHECK = 5;
const FALLBACK_GENRE_ARTISTS = 20;

export type { DiscoveryProviderName } from './types.js';

export interface DiscoveryCapabilities {
  arbitraryTagSearch: boolean;
  flows: { discover: boolean; focus: boolean; mix: boolean; trending: boolean };
  genreSections: boolean;
  globalTrending: boolean;
  personalizedRecommendations: boolean;
  relatedArtists: boolean;
}

export function capabilitiesOf(provider: DiscoveryProviderName): DiscoveryCapabilities {
  if (provider === 'lastfm')
    return {
      arbitraryTagSearch: true,
      flows: { discover: true, focus: true, mix: true, trending: true },
      genreSections: true,
      globalTrending: true,
      personalizedRecommendations: true,
      relatedArtists: true,
    };
  // ListenBrainz statistics: the sitewide chart and the user's own listening, no similarity or tags.
  return {
    arbitraryTagSearch: false,
    flows: { discover: true, focus: false, mix: false, trending: true },
    genreSections: false,
    globalTrending: true,
    personalizedRecommendations: false,
    relatedArtists: false,
  };
}

/** Editorial playlists offered on the Discover screen (adopted into flows by the flows area). */
export const DISCOVER_PRESETS = [
  { id: 'release-radar', name: 'Release Radar', description: 'New music from artists like the ones you play', tags: [] as string[], mix: { discover: 60, mix: 40 } },
  { id: 'deep-cuts', name: 'Deep Cuts', description: 'Lesser-known artists close to your taste', tags: [], mix: { discover: 80, focus: 20 } },
  { id: 'trending-now', name: 'Trending Now', description: 'What everyone is listening to this week', tags: [], mix: { trending: 100 } },
  { id: 'indie-discoveries', name: 'Indie Discoveries', description: 'Independent artists worth a listen', tags: ['indie', 'indie rock', 'indie pop'], mix: { discover: 100 } },
  { id: 'electronic-pulse', name: 'Electronic Pulse', description: 'Electronic music from house to ambient', tags: ['electronic', 'house', 'techno', 'ambient'], mix: { discover: 100 } },
  { id: 'chill-evenings', name: 'Chill Evenings', description: 'Calm music for the end of the day', tags: ['chillout', 'downtempo', 'acoustic'], mix: { discover: 100 } },
  { id: 'heavy-rotation', name: 'Heavy Rotation', description: 'Loud guitars: rock and metal', tags: ['rock', 'metal', 'hard rock'], mix: { discover: 100 } },
  { id: 'hip-hop-fresh', name: 'Hip-Hop Fresh', description: 'Hip-hop and rap you have not heard yet', tags: ['hip-hop', 'rap'], mix: { discover: 100 } },
] as const;

export type { DiscoveryProgress, Preferences } from './types.js';

/** A discovery artist entry (api.md) with what this server adds. */
export interface DiscoveryEntry {
  id: string | null;
  name: string;
  type: 'artist';
  image: string | null;
  tags: string[];
  inLibrary: boolean;
  source: string;
  score?: number;
  basedOn?: string[];
  listeners?: number | null;
}


/** An editorial playlist as GET /api/discover offers it (DISCOVER_PRESETS with its cover's address). */
export interface DiscoverPreset {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** The flow mix an adopted preset starts with, in percent per source. */
  mix: Partial<Record<'discover' | 'focus' | 'mix' | 'trending', number>>;
  artworkUrl: string;
}

/** A seed artist the recommendations were found from. */
export interface DiscoverSeed {
  id: string | null;
  name: string;
  type: 'artist';
  image: null;
  tags: string[];
  source: string;
  weight: number;
}

/** GET /api/discover: the sections of the Discover screen, from the cache. */
export interface DiscoverView {
  recommendations: DiscoveryEntry[];
  globalTop: DiscoveryEntry[];
  basedOn: DiscoverSeed[];
  topTags: string[];
  topGenres: string[];
  recommendationCount: number;
  lastUpdated: string | null;
  configured: boolean;
  provider: DiscoveryProviderName;
  capabilities: DiscoveryCapabilities;
  isUpdating: boolean;
  stale: boolean;
  lastError: string | null;
  discoverPlaylists: DiscoverPreset[];
  fallbackGenres: { tag: string; name: string; artists: DiscoveryEntry[] }[];
  limit: number;
  offset: number;
  discoveryMode: 'balanced' | 'deeper';
  discoveryRunId: string | null;
  isEnriching: boolean;
  enrichmentStartedAt: string | null;
  enrichmentCompletedAt: string | null;
  enrichmentProgressMessage: string | null;
  recommendationQuality: 'initial' | 'enriching' | 'enriched' | null;
  playlistsUpdating: boolean;
}

/** A user's latest refresh run in this process: its id and its enrichment (the tags step) times. */
interface RunRecord {
  runId: string;
  enrichmentStartedAt: number | null;
  enrichmentCompletedAt: number | null;
}

export class DiscoveryService implements RefreshHost {
  readonly repo: DiscoveryRepository;
  private progress = new Map<number, DiscoveryProgress>();
  private runs = new Map<number, RunRecord>();
  private readonly endedListeners: ((userId: number) => void)[] = [];

  constructor(readonly ctx: Deps) {
    this.repo = discoveryRepository(ctx.db);
  }

  /** Last.fm when its key is set and it is switched on; otherwise the ListenBrainz fallback. */
  provider(): DiscoveryProviderName {
    return this.ctx.discoveryProviders.lastfmUnavailable() ? 'listenbrainz' : 'lastfm';
  }

  private now(): number {
    return this.ctx.clock.now();
  }

  // ---- progress -------------------------------------------------------------------------------

  /** Records and broadcasts where a user's refresh stands (refresh.ts reports each step through it). */
  report(userId: number, p: Omit<DiscoveryProgress, 'userId'>): void {
    this.noteRun(userId, p);
    const state = { userId, ...p };
    this.progress.set(userId, state);
    const lastUpdated = this.repo.state(userScope(userId))?.last_updated ?? null;
    this.ctx.hub.broadcast(
      'discovery',
      'discovery_update',
      { ...state, lastUpdated: lastUpdated === null ? null : new Date(lastUpdated).toISOString(), recommendationsCount: this.repo.recommendationCount(userId), provider: this.provider() },
      { audience: (principal) => principal.userId === userId || principal.role === 'admin' },
    );
    if (!p.isUpdating) this.progress.delete(userId);
    if (!p.isUpdating && (p.updatePhase === 'done' || p.updatePhase === 'failed')) {
      for (const fn of this.endedListeners) {
        try {
          fn(userId);
        } catch (err) {
          this.ctx.log.warn('discovery: a listener of the finished refresh failed', { userId, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
  }

  /** Called when a user's refresh has saved its result or failed (flows waiting for it run then). */
  onRefreshEnded(fn: (userId: number) => void): void {
    this.endedListeners.push(fn);
  }

  /** Whether a refresh of the user's recommendations is queued or running (read from the job queue, so it survives a restart). */
  refreshOpen(userId: number): boolean {
    return openJobWithKey(this.ctx.db, DISCOVERY_USER_QUEUE, `user:${userId}`);
  }

  /** Whether the user's recommendations were never built with the current provider (none yet, or Last.fm was set up since). */
  needsFirstRefresh(userId: number): boolean {
    const state = this.repo.state(userScope(userId));
    return !state?.last_updated || state.provider !== this.provider();
  }

  /** Keeps the run id and the enrichment times: a run starts at `starting`; enrichment is the `tags` step. */
  private noteRun(userId: number, p: Omit<DiscoveryProgress, 'userId'>): void {
    const now = this.now();
    if (p.updatePhase === 'starting') this.runs.set(userId, { runId: randomUUID(), enrichmentStartedAt: null, enrichmentCompletedAt: null });
    const run = this.runs.get(userId);
    if (!run) return;
    if (p.updatePhase === 'tags' && run.enrichmentStartedAt === null) run.enrichmentStartedAt = now;
    else if (run.enrichmentStartedAt !== null && run.enrichmentCompletedAt === null && p.updatePhase !== 'tags') run.enrichmentCompletedAt = now;
  }

  /** The refresh running now (for the caller's user first), or null. */
  current(userId?: number): DiscoveryProgress | null {
    if (userId !== undefined && this.progress.has(userId)) return this.progress.get(userId)!;
    return this.progress.values().next().value ?? null;
  }

  // ---- queue ----------------------------------------------------------------------------------

  /** Queues a refresh of one user's recommendations (one pending or running per user). */
  enqueue(userId: number): { jobId: number; created: boolean } {
    const { id, created } = this.ctx.jobs.enqueue(DISCOVERY_USER_QUEUE, { userId }, { dedupeKey: `user:${userId}`, name: `discovery user ${userId}`, maxAttempts: 1 });
    if (created) this.report(userId, { isUpdating: true, updatePhase: 'queued', updateProgress: 0, updateProgressMessage: 'Waiting to start' });
    return { jobId: id, created };
  }

  /** The 15-minute check: refreshes the users whose recommendations are stale (a few per run). */
  check(): number {
    const users = this.repo.staleUsers(this.now() - USER_STALE_MS, this.now() - FAILED_RETRY_MS, USERS_PER_CHECK);
    for (const id of users) this.enqueue(id);
    return users.length;
  }

  // ---- library and history ---------------------------------------------------------------------

  libraryIndex(): LibraryIndex {
    const rows = libraryArtistKeys(this.ctx.db);
    const keys = new Set<string>();
    const mbids = new Set<string>();
    for (const r of rows) {
      // Artists without an MBID are identified by `name:<nameKey>` already: no need to fold 10,000 names again.
      keys.add(r.identity_key.startsWith('name:') ? r.identity_key.slice(5) : nameKey(r.name));
      if (r.mbid) mbids.add(r.mbid);
    }
    return { keys, mbids, has: (name, mbid) => keys.has(nameKey(name)) || (!!mbid && mbids.has(mbid)) };
  }

  /** One entry's "in library" at read time: two index lookups (MBID, then the name identity). */
  inLibraryNow(): (name: string, mbid: string | null) => boolean {
    const found = libraryArtistLookups(this.ctx.db);
    return (name, mbid) => (!!mbid && found.byMbid(mbid)) || found.byKey(`name:${nameKey(name)}`);
  }

  preferences(userId: number): Preferences {
    const row = this.repo.preferences(userId);
    if (!row) return { excludedTags: [], excludedArtists: [], deepDive: false };
    return { excludedTags: JSON.parse(row.excluded_tags_json) as string[], excludedArtists: JSON.parse(row.excluded_artists_json) as string[], deepDive: row.deep_dive === 1 };
  }

  // ---- upstream calls (through the budget and the per-artist cache) -----------------------------

  /** A remote picture as this server's proxied URL. */
  image(url: string | null): string | null {
    return url ? this.ctx.remoteImages.proxyUrl(url) : null;
  }

  /** Similar artists of one artist: the cache when fresh, else one call (null when the budget is spent). */
  async similarOf(a: { name: string; mbid: string | null }, budget: CallBudget | null, signal?: AbortSignal): Promise<SimilarList | null> {
    const key = nameKey(a.name);
    const hit = this.repo.cached<SimilarList>('similar', key, this.now() - SIMILAR_FRESH_MS);
    if (hit) return hit;
    if (budget && !budget.take()) return null;
    try {
      const list = await this.ctx.discoveryProviders.lastfm().similar({ name: a.name, mbid: a.mbid }, 50, signal);
      const out: SimilarList = list.map((s) => ({ name: s.name, mbid: s.mbid, match: s.match, image: bestImage(s.image) }));
      this.repo.putCache('similar', key, out, this.now());
      return out;
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'not_found') {
        this.repo.putCache('similar', key, [], this.now());
        return [];
      }
      throw err;
    }
  }

  /** The top tags of one artist: the cache when fresh, else one call (null when the budget is spent). */
  async tagsOf(name: string, budget: CallBudget, signal?: AbortSignal): Promise<string[] | null> {
    const key = nameKey(name);
    const hit = this.repo.cached<string[]>('tags', key, this.now() - TAGS_FRESH_MS);
    if (hit) return hit;
    if (!budget.take()) return null;
    try {
      const tags = uniqueLower((await this.ctx.discoveryProviders.lastfm().topTags({ name }, signal)).slice(0, 6).map((t) => t.name));
      this.repo.putCache('tags', key, tags, this.now());
      return tags;
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'not_found') return [];
      throw err;
    }
  }

  /** Artists of one tag (tag.getTopArtists), cached as the ranking `tag:<tag>`. */
  async tagArtists(tag: string, budget: CallBudget | null, signal?: AbortSignal, force = false, libraryIndex?: LibraryIndex): Promise<RankingRow[]> {
    const scope = tagScope(tag);
    const fetchedAt = this.repo.rankingFetchedAt(scope);
    if (!force && fetchedAt !== null && fetchedAt >= this.now() - GLOBAL_STALE_MS) return this.repo.ranking(scope);
    if (budget && !budget.take()) return this.repo.ranking(scope);
    const library = libraryIndex ?? this.libraryIndex();
    const page = await this.ctx.discoveryProviders.lastfm().tagTopArtists(tag, 50, 1, signal);
    this.repo.replaceRanking(
      scope,
      page.items.map((a) => ({ name_key: nameKey(a.name), name: a.name, mbid: a.mbid, listeners: a.listeners ?? null, source: 'lastfm', image: this.image(bestImage(a.image)), in_library: library.has(a.name, a.mbid) ? 1 : 0 })),
      this.now(),
    );
    return this.repo.ranking(scope);
  }

  /**
   * One user's refresh within one call budget (refresh.ts); when the provider fails, the previous
   * cache stays and is served as stale.
   */
  refreshUser(userId: number, signal: AbortSignal = new AbortController().signal, budget = new CallBudget(DISCOVERY_CALL_BUDGET)): Promise<{ calls: number; recommendations: number }> {
    return refreshRecommendations(this, userId, signal, budget);
  }

  // ---- reading --------------------------------------------------------------------------------

  entryOfRecommendation(r: RecommendationRow, inLibrary: (name: string, mbid: string | null) => boolean): DiscoveryEntry {
    return {
      id: r.mbid,
      name: r.name,
      type: 'artist',
      image: r.image,
      tags: JSON.parse(r.tags_json) as string[],
      inLibrary: inLibrary(r.name, r.mbid),
      source: r.source,
      score: r.score,
      basedOn: JSON.parse(r.seeds_json) as string[],
    };
  }

  entryOfRanking(r: RankingRow, inLibrary: (name: string, mbid: string | null) => boolean): DiscoveryEntry {
    const tags = this.repo.cachedAny<string[]>('tags', r.name_key) ?? [];
    return { id: r.mbid, name: r.name, type: 'artist', image: r.image, tags, inLibrary: r.in_library === 1 || inLibrary(r.name, r.mbid), source: r.source, listeners: r.listeners };
  }

  /** Whether the user's cache is stale: the last attempt failed, or it is older than the refresh period. */
  isStale(userId: number): boolean {
    const s = this.repo.state(userScope(userId));
    if (!s) return false;
    return s.last_error !== null || (s.last_updated !== null && s.last_updated < this.now() - USER_STALE_MS);
  }

  /** "In library" for many entries at once: two indexed queries instead of two per entry. */
  inLibraryFor(list: { name: string; mbid: string | null }[]): (name: string, mbid: string | null) => boolean {
    const keys = [...new Set(list.map((e) => `name:${nameKey(e.name)}`))];
    const mbids = [...new Set(list.map((e) => e.mbid).filter((m): m is string => !!m))];
    const db = this.ctx.db;
    const foundKeys = new Set(libraryArtistKeysAmong(db, keys));
    const foundMbids = mbids.length ? new Set(libraryArtistMbidsAmong(db, mbids)) : new Set<string>();
    return (name, mbid) => foundKeys.has(`name:${nameKey(name)}`) || (!!mbid && foundMbids.has(mbid));
  }

  /** GET /api/discover, from the cache only. */
  view(userId: number, limit: number, offset: number): DiscoverView {
    const provider = this.provider();
    const state = this.repo.state(userScope(userId));
    if (!state?.last_updated && !state?.last_attempt_at && !this.progress.has(userId)) this.enqueue(userId);
    const blocked = new Set(this.preferences(userId).excludedArtists.map(nameKey));
    const recRows = this.repo.recommendations(userId, limit, offset);
    const globalRows = this.repo.ranking('global', limit).filter((r) => !blocked.has(r.name_key));
    const genreRows = this.fallbackGenreRows(blocked);
    const inLibrary = this.inLibraryFor([...recRows, ...globalRows, ...genreRows.flatMap((g) => g.rows)]);
    const basedOn = this.repo.seeds(userId).map((s): DiscoverSeed => ({ id: s.mbid, name: s.name, type: 'artist', image: null, tags: [], source: s.source, weight: s.weight }));
    const progress = this.progress.get(userId);
    const run = this.runs.get(userId);
    const iso = (t: number | null | undefined) => (t == null ? null : new Date(t).toISOString());
    const enriching = progress?.isUpdating === true && progress.updatePhase === 'tags';
    const recommendationCount = this.repo.recommendationCount(userId);
    return {
      recommendations: recRows.map((r) => this.entryOfRecommendation(r, inLibrary)),
      globalTop: globalRows.map((r) => this.entryOfRanking(r, inLibrary)),
      basedOn,
      topTags: this.repo.taste(userId, 'tag', 15).map((t) => t.name),
      topGenres: this.repo.taste(userId, 'genre', 15).map((t) => t.name),
      recommendationCount,
      lastUpdated: state?.last_updated ? new Date(state.last_updated).toISOString() : null,
      configured: true,
      provider,
      capabilities: capabilitiesOf(provider),
      isUpdating: progress?.isUpdating ?? false,
      stale: this.isStale(userId),
      // Why the last update did not finish, in words ("ListenBrainz could not be reached (host not found)").
      lastError: state?.last_error ?? null,
      discoverPlaylists: DISCOVER_PRESETS.map((p) => ({ ...p, tags: [...p.tags], artworkUrl: `/api/discover/artwork/${p.id}` })),
      fallbackGenres: genreRows.map((g) => ({ tag: g.tag, name: g.tag, artists: g.rows.map((r) => this.entryOfRanking(r, inLibrary)) })),
      limit,
      offset,
      // The reference service's refresh fields (read by the Pocket app), from this server's refresh:
      // deep dive is its "deeper" mode; enrichment is the step that reads the recommendations' tags.
      discoveryMode: this.preferences(userId).deepDive ? 'deeper' : 'balanced',
      discoveryRunId: run?.runId ?? null,
      isEnriching: enriching,
      enrichmentStartedAt: iso(run?.enrichmentStartedAt),
      enrichmentCompletedAt: iso(run?.enrichmentCompletedAt),
      enrichmentProgressMessage: enriching ? progress!.updateProgressMessage : null,
      // Enriched: stored with tags read from Last.fm; initial: stored without that step (ListenBrainz).
      recommendationQuality: enriching ? 'enriching' : recommendationCount === 0 || !state?.last_updated ? null : state.provider === 'lastfm' ? 'enriched' : 'initial',
      // The editorial playlists draw on the charts and the recommendations a refresh rewrites.
      playlistsUpdating: progress?.isUpdating ?? false,
    };
  }

  private fallbackGenreRows(blocked: Set<string>) {
    return this.repo.ranking('genres').map((g) => ({
      tag: g.name,
      rows: this.repo
        .ranking(tagScope(g.name), FALLBACK_GENRE_ARTISTS)
        .filter((r) => !blocked.has(r.name_key)),
    }));
  }

  /** The health block of decisions §7. */
  health(userId: number | null) {
    const provider = this.provider();
    const scope = userId !== null && userId >= 0 ? userScope(userId) : null;
    const state = scope ? this.repo.state(scope) : undefined;
    const lastUpdated = state?.last_updated ?? this.repo.state('global')?.last_updated ?? null;
    const p = this.current(userId ?? undefined);
    const images = this.repo.cachedImages();
    return {
      provider,
      capabilities: capabilitiesOf(provider),
      isUpdating: p?.isUpdating ?? false,
      lastUpdated: lastUpdated === null ? null : new Date(lastUpdated).toISOString(),
      recommendationsCount: scope ? this.repo.recommendationCount(userId!) : recommendationCountAll(this.ctx.db),
      globalTopCount: this.repo.rankingCount('global'),
      cachedImagesCount: images.count,
      cachedImagesSizeBytes: images.bytes,
      updatePhase: p?.updatePhase ?? null,
      updateProgress: p?.updateProgress ?? null,
      updateProgressMessage: p?.updateProgressMessage ?? null,
    };
  }
}

/** Registers the refresh queue and the 15-minute check. */
export function startDiscovery(ctx: Deps): void {
  const service = ctx.discovery;
  ctx.jobs.register<{ userId: number }>(DISCOVERY_USER_QUEUE, {
    concurrency: 1,
    maxAttempts: 1,
    visibilityTimeoutMs: 10 * 60_000,
    handler: async (job: Job<{ userId: number }>) => {
      await service.refreshUser(job.payload.userId, job.signal);
    },
  });
  ctx.scheduler.define({ name: DISCOVERY_CHECK_TASK, every: DISCOVERY_CHECK_EVERY_MS, handler: () => void service.check() });
}
