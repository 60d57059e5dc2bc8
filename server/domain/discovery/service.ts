import type { AppContext } from '../../context.js';
import { discoveryRepository, tagScope, userScope, type DiscoveryRepository, type RankingRow, type RecommendationRow } from '../../db/discovery.js';
import { nameKey } from '../../db/libraryText.js';
import { IntegrationError } from '../../integrations/errors.js';
import { koitoBaseUrl } from '../../integrations/koito/client.js';
import type { LastFmImage } from '../../integrations/lastfm/client.js';
import type { Job } from '../../jobs/queue.js';
import { NotConfiguredError } from '../errors.js';
import { remoteImagesOf } from '../metadata/remoteImages.js';
import { discoveryProvidersOf } from './providers.js';

/** The per-user refresh (on demand) and the global check that refreshes stale users every 15 minutes. */
export const DISCOVERY_USER_QUEUE = 'discovery-user-refresh';
export const DISCOVERY_CHECK_TASK = 'discovery-refresh';
export const DISCOVERY_CHECK_EVERY_MS = 15 * 60_000;
/** Upstream calls one refresh may make, whatever the size of the library or the history. */
export const DISCOVERY_CALL_BUDGET = 60;
/** A user's recommendations are refreshed by the check once they are this old. */
export const USER_STALE_MS = 24 * 3600_000;
/** The chart and the genre sections are shared and fetched again after this long. */
export const GLOBAL_STALE_MS = 12 * 3600_000;
const SIMILAR_FRESH_MS = 7 * 24 * 3600_000;
const TAGS_FRESH_MS = 30 * 24 * 3600_000;
/** A refresh that failed (provider down) is tried again by the check after this long. */
const FAILED_RETRY_MS = 3600_000;
/** Users refreshed by one run of the check (each within its own budget). */
const USERS_PER_CHECK = 5;
const MAX_SEEDS_STORED = 50;
const MAX_RECOMMENDATIONS = 500;
const FALLBACK_GENRE_COUNT = 6;
const FALLBACK_GENRE_ARTISTS = 20;
/** A refresh gives up (keeping the previous cache) after this many upstream failures in a row. */
const MAX_CONSECUTIVE_FAILURES = 2;

export type DiscoveryProviderName = 'lastfm' | 'listenbrainz';

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

/** Where a refresh stands, for health and `discovery_update`. */
export interface DiscoveryProgress {
  userId: number | null;
  isUpdating: boolean;
  updatePhase: string | null;
  updateProgress: number | null;
  updateProgressMessage: string | null;
}

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

export interface Preferences {
  excludedTags: string[];
  excludedArtists: string[];
  deepDive: boolean;
}

/** Counts upstream calls; a refresh never asks more than its budget. */
export class CallBudget {
  used = 0;
  constructor(readonly limit: number) {}
  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }
  take(): boolean {
    if (this.used >= this.limit) return false;
    this.used++;
    return true;
  }
}

class RefreshFailed extends Error {}

interface Candidate {
  key: string;
  name: string;
  mbid: string | null;
  score: number;
  seeds: Set<string>;
  image: string | null;
  source: DiscoveryProviderName;
  tags: string[];
}

interface Seed {
  key: string;
  name: string;
  mbid: string | null;
  weight: number;
  source: string;
}

type SimilarList = { name: string; mbid: string | null; match: number; image: string | null }[];

const bestImage = (images: LastFmImage[]): string | null => {
  const order = ['mega', 'extralarge', 'large', 'medium', 'small', ''];
  const sorted = [...images].filter((i) => i.url).sort((a, b) => order.indexOf(a.size) - order.indexOf(b.size));
  return sorted[0]?.url ?? null;
};
const uniqueLower = (list: string[]) => [...new Set(list.map((t) => t.trim().toLowerCase()).filter(Boolean))];
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Library artists as name keys and MBIDs, for "in library" and the exclusions. */
interface LibraryIndex {
  keys: Set<string>;
  mbids: Set<string>;
  has(name: string, mbid: string | null): boolean;
}

export class DiscoveryService {
  readonly repo: DiscoveryRepository;
  private progress = new Map<number, DiscoveryProgress>();

  constructor(private readonly ctx: AppContext) {
    this.repo = discoveryRepository(ctx.db);
  }

  /** Last.fm when its key is set and it is switched on; otherwise the ListenBrainz fallback. */
  provider(): DiscoveryProviderName {
    return discoveryProvidersOf(this.ctx).lastfmUnavailable() ? 'listenbrainz' : 'lastfm';
  }

  private now(): number {
    return this.ctx.clock.now();
  }

  // ---- progress -------------------------------------------------------------------------------

  private report(userId: number, p: Omit<DiscoveryProgress, 'userId'>): void {
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
    const rows = this.ctx.db.prepare('SELECT identity_key, name, mbid FROM library_artists WHERE track_count > 0 OR album_count > 0').all() as { identity_key: string; name: string; mbid: string | null }[];
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
    const byMbid = this.ctx.db.prepare('SELECT 1 FROM library_artists WHERE mbid = ? LIMIT 1');
    const byKey = this.ctx.db.prepare('SELECT 1 FROM library_artists WHERE identity_key = ? LIMIT 1');
    return (name, mbid) => (!!mbid && byMbid.get(mbid) !== undefined) || byKey.get(`name:${nameKey(name)}`) !== undefined;
  }

  /** Library seeds: the user's most played library artists first, then those with the most tracks (bounded). */
  private librarySeeds(userId: number, limit: number): Seed[] {
    const rows = this.ctx.db
      .prepare(
        `SELECT a.name, a.mbid, COALESCE(p.plays, 0) AS plays, a.track_count FROM library_artists a
         LEFT JOIN (SELECT t.artist_id, COUNT(*) AS plays FROM play_events e JOIN library_tracks t ON t.id = e.track_id WHERE e.user_id = ? GROUP BY t.artist_id) p ON p.artist_id = a.id
         WHERE a.track_count > 0 ORDER BY plays DESC, a.track_count DESC, a.id LIMIT ?`,
      )
      .all(userId, limit) as { name: string; mbid: string | null; plays: number; track_count: number }[];
    return rows.map((r, i) => ({ key: nameKey(r.name), name: r.name, mbid: r.mbid, weight: 1 - (0.5 * i) / Math.max(1, rows.length), source: 'library' }));
  }

  /** History seeds per the user's listening-history setting; a provider that fails gives none. */
  private async historySeeds(userId: number, budget: CallBudget, signal: AbortSignal): Promise<Seed[]> {
    const user = this.ctx.users.get(userId);
    const h = user.listeningHistory;
    const p = discoveryProvidersOf(this.ctx);
    const toSeeds = (list: { name: string; mbid: string | null }[], source: string) =>
      list.map((a, i) => ({ key: nameKey(a.name), name: a.name, mbid: a.mbid, weight: 1.2 * (1 - (0.5 * i) / Math.max(1, list.length)), source }));
    try {
      if (h.provider === 'lastfm' && h.username && !p.lastfmUnavailable()) {
        if (!budget.take()) return [];
        const page = await p.lastfm().userTopArtists(h.username, '3month', 50, 1, signal);
        return toSeeds(page.items, 'lastfm');
      }
      if (h.provider === 'listenbrainz' && h.username) {
        if (!budget.take()) return [];
        const stats = await p.listenbrainz().userArtists(h.username, { range: 'quarter', count: 50, signal });
        // 204: ListenBrainz has not computed this user's statistics yet; the library seeds carry the refresh.
        return stats.ready ? toSeeds(stats.artists, 'listenbrainz') : [];
      }
      if (h.provider === 'koito' && h.url) {
        if (!budget.take()) return [];
        const answer = await p.koito(koitoBaseUrl(h.url) ?? h.url).topArtists({ period: 'month', limit: 50, signal });
        return toSeeds(answer.items, 'koito');
      }
    } catch (err) {
      this.ctx.log.warn('discovery: listening history unavailable', { userId, provider: h.provider, error: message(err) });
      return [];
    }
    const rows = this.ctx.db
      .prepare(
        `SELECT MIN(artist) AS name, MAX(artist_mbid) AS mbid, COUNT(*) AS plays FROM play_events
         WHERE user_id = ? AND artist IS NOT NULL AND artist <> '' AND played_at >= ? GROUP BY lower(artist) ORDER BY plays DESC LIMIT 50`,
      )
      .all(userId, this.now() - 180 * 24 * 3600_000) as { name: string; mbid: string | null }[];
    return toSeeds(rows, 'local');
  }

  preferences(userId: number): Preferences {
    const row = this.repo.preferences(userId);
    if (!row) return { excludedTags: [], excludedArtists: [], deepDive: false };
    return { excludedTags: JSON.parse(row.excluded_tags_json) as string[], excludedArtists: JSON.parse(row.excluded_artists_json) as string[], deepDive: row.deep_dive === 1 };
  }

  // ---- upstream calls (through the budget and the per-artist cache) -----------------------------

  private image(url: string | null): string | null {
    return url ? remoteImagesOf(this.ctx).proxyUrl(url) : null;
  }

  /** Similar artists of one artist: the cache when fresh, else one call (null when the budget is spent). */
  async similarOf(a: { name: string; mbid: string | null }, budget: CallBudget | null, signal?: AbortSignal): Promise<SimilarList | null> {
    const key = nameKey(a.name);
    const hit = this.repo.cached<SimilarList>('similar', key, this.now() - SIMILAR_FRESH_MS);
    if (hit) return hit;
    if (budget && !budget.take()) return null;
    try {
      const list = await discoveryProvidersOf(this.ctx).lastfm().similar({ name: a.name, mbid: a.mbid }, 50, signal);
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

  private async tagsOf(name: string, budget: CallBudget, signal?: AbortSignal): Promise<string[] | null> {
    const key = nameKey(name);
    const hit = this.repo.cached<string[]>('tags', key, this.now() - TAGS_FRESH_MS);
    if (hit) return hit;
    if (!budget.take()) return null;
    try {
      const tags = uniqueLower((await discoveryProvidersOf(this.ctx).lastfm().topTags({ name }, signal)).slice(0, 6).map((t) => t.name));
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
    const page = await discoveryProvidersOf(this.ctx).lastfm().tagTopArtists(tag, 50, 1, signal);
    this.repo.replaceRanking(
      scope,
      page.items.map((a) => ({ name_key: nameKey(a.name), name: a.name, mbid: a.mbid, listeners: a.listeners ?? null, source: 'lastfm', image: this.image(bestImage(a.image)), in_library: library.has(a.name, a.mbid) ? 1 : 0 })),
      this.now(),
    );
    return this.repo.ranking(scope);
  }

  // ---- refresh --------------------------------------------------------------------------------

  /** The shared part: the global chart and (Last.fm) the fallback genre sections. */
  private async refreshGlobal(budget: CallBudget, signal: AbortSignal, provider: DiscoveryProviderName, library: LibraryIndex): Promise<void> {
    const state = this.repo.state('global');
    const fresh = state?.last_updated && state.provider === provider && state.last_updated >= this.now() - GLOBAL_STALE_MS && !state.last_error;
    if (fresh) return;
    this.repo.attempt('global', this.now());
    const before = budget.used;
    try {
      const p = discoveryProvidersOf(this.ctx);
      if (provider === 'lastfm') {
        if (!budget.take()) return;
        const chart = await p.lastfm().chartTopArtists(100, 1, signal);
        this.repo.replaceRanking(
          'global',
          chart.items.map((a) => ({ name_key: nameKey(a.name), name: a.name, mbid: a.mbid, listeners: a.listeners ?? null, source: 'lastfm', image: this.image(bestImage(a.image)), in_library: library.has(a.name, a.mbid) ? 1 : 0 })),
          this.now(),
        );
        if (!budget.take()) return;
        const tags = (await p.lastfm().chartTopTags(FALLBACK_GENRE_COUNT, 1, signal)).items.map((t) => t.name.toLowerCase());
        this.repo.replaceRanking(
          'genres',
          tags.map((t) => ({ name_key: t, name: t, mbid: null, listeners: null, source: 'lastfm', image: null, in_library: 0 })),
          this.now(),
        );
        for (const tag of tags) await this.tagArtists(tag, budget, signal, true, library);
      } else {
        if (!budget.take()) return;
        const stats = await p.listenbrainz().sitewideArtists({ range: 'month', count: 100, signal });
        if (stats.ready)
          this.repo.replaceRanking(
            'global',
            stats.artists.map((a) => ({ name_key: nameKey(a.name), name: a.name, mbid: a.mbid, listeners: a.listenCount, source: 'listenbrainz', image: null, in_library: library.has(a.name, a.mbid) ? 1 : 0 })),
            this.now(),
          );
        this.repo.replaceRanking('genres', [], this.now());
      }
      this.repo.succeeded('global', provider, budget.used - before, this.now());
    } catch (err) {
      if (signal.aborted) throw err;
      this.repo.failed('global', message(err), budget.used - before, this.now());
      throw new RefreshFailed(`${provider === 'lastfm' ? 'Last.fm' : 'ListenBrainz'}: ${message(err)}`);
    }
  }

  /**
   * One user's refresh within one call budget: the shared part when stale, seeds from the library and
   * the history, similar artists per seed (Last.fm) or the sitewide chart (ListenBrainz), scored into
   * a pool without library, blocked, disliked and seed artists, then tags for the best of them. When
   * the provider fails, the previous cache stays and is served as stale.
   */
  async refreshUser(userId: number, signal: AbortSignal = new AbortController().signal, budget = new CallBudget(DISCOVERY_CALL_BUDGET)): Promise<{ calls: number; recommendations: number }> {
    const scope = userScope(userId);
    const provider = this.provider();
    this.repo.attempt(scope, this.now());
    const step = (updatePhase: string, updateProgress: number, updateProgressMessage: string) =>
      this.report(userId, { isUpdating: true, updatePhase, updateProgress, updateProgressMessage });
    try {
      step('starting', 5, 'Reading the library');
      const library = this.libraryIndex();
      step('global', 10, provider === 'lastfm' ? 'Fetching the Last.fm charts and genres' : 'Fetching the ListenBrainz sitewide chart');
      await this.refreshGlobal(budget, signal, provider, library);

      step('seeds', 25, 'Reading your library and listening history');
      const prefs = this.preferences(userId);
      const feedback = this.repo.feedback(userId);
      const seeds = new Map<string, Seed>();
      const addSeed = (s: Seed) => {
        if (!s.key) return;
        const had = seeds.get(s.key);
        if (had) had.weight += s.weight;
        else seeds.set(s.key, { ...s });
      };
      for (const f of feedback) if (f.kind === 'more') addSeed({ key: f.name_key, name: f.artist_name, mbid: f.artist_mbid, weight: 1.5, source: 'feedback' });
      for (const s of await this.historySeeds(userId, budget, signal)) addSeed(s);
      for (const s of this.librarySeeds(userId, 100)) addSeed(s);
      const blocked = new Set(prefs.excludedArtists.map(nameKey));
      const disliked = new Set(feedback.filter((f) => f.kind === 'less').map((f) => f.name_key));
      const seedList = [...seeds.values()].filter((s) => !blocked.has(s.key) && !disliked.has(s.key)).sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));

      // Artists next to a disliked one go with it ("less like this").
      const nearDisliked = new Set<string>();
      for (const f of feedback.filter((x) => x.kind === 'less'))
        for (const s of (this.repo.cachedAny<SimilarList>('similar', f.name_key) ?? []).slice(0, 10)) nearDisliked.add(nameKey(s.name));
      const globalKeys = new Set(this.repo.ranking('global', 100).map((r) => r.name_key));
      const excluded = (key: string, name: string, mbid: string | null) =>
        library.has(name, mbid) || blocked.has(key) || disliked.has(key) || nearDisliked.has(key) || seeds.has(key) || (prefs.deepDive && globalKeys.has(key));

      const pool = new Map<string, Candidate>();
      const add = (c: Omit<Candidate, 'seeds'> & { seed: string | null }) => {
        if (!c.key || excluded(c.key, c.name, c.mbid)) return;
        const had = pool.get(c.key);
        if (had) {
          had.score += c.score;
          if (c.seed) had.seeds.add(c.seed);
          had.image ??= c.image;
          had.mbid ??= c.mbid;
        } else pool.set(c.key, { ...c, seeds: new Set(c.seed ? [c.seed] : []) });
      };

      if (provider === 'lastfm') {
        // Leave room for the tags of the best recommendations.
        const reserve = Math.min(15, Math.floor(budget.limit / 4));
        let failures = 0;
        let asked = 0;
        let answered = 0;
        for (const seed of seedList) {
          if (signal.aborted) throw signal.reason;
          const cached = this.repo.cached<SimilarList>('similar', seed.key, this.now() - SIMILAR_FRESH_MS);
          if (!cached && budget.remaining <= reserve) continue;
          asked++;
          let list: SimilarList | null;
          try {
            list = await this.similarOf(seed, budget, signal);
            failures = 0;
          } catch (err) {
            if (signal.aborted) throw err;
            failures++;
            this.ctx.log.warn('discovery: similar artists failed', { seed: seed.name, error: message(err) });
            if (failures >= MAX_CONSECUTIVE_FAILURES) {
              if (answered === 0) throw new RefreshFailed(`Last.fm: ${message(err)}`);
              // Last.fm stopped answering part-way: keep what it gave rather than waiting on every seed.
              break;
            }
            continue;
          }
          if (!list) continue;
          answered++;
          for (const s of list) {
            const match = Math.max(0, Math.min(1, s.match));
            const weight = prefs.deepDive ? seed.weight * (0.3 + (1 - match)) : seed.weight * match;
            add({ key: nameKey(s.name), name: s.name, mbid: s.mbid, score: weight, image: this.image(s.image), source: 'lastfm', tags: [], seed: seed.name });
          }
          step('similar', 25 + Math.round((45 * asked) / Math.max(1, seedList.length)), `Similar artists: ${asked} of ${seedList.length} seeds`);
        }
        if (asked > 0 && answered === 0) throw new RefreshFailed('Last.fm answered none of the similar-artist requests');
      } else {
        // ListenBrainz: artists the user listens to but does not own, then the sitewide chart.
        // (A history artist is a seed, but here it is also a recommendation when not owned, blocked or disliked.)
        for (const s of seedList) {
          if (s.source !== 'listenbrainz' || library.has(s.name, s.mbid) || blocked.has(s.key) || disliked.has(s.key) || nearDisliked.has(s.key)) continue;
          pool.set(s.key, { key: s.key, name: s.name, mbid: s.mbid, score: 1 + s.weight, seeds: new Set(), image: null, source: 'listenbrainz', tags: [] });
        }
        const chart = this.repo.ranking('global', 100);
        chart.forEach((r, i) => add({ key: r.name_key, name: r.name, mbid: r.mbid, score: 1 - i / Math.max(1, chart.length), image: r.image, source: 'listenbrainz', tags: [], seed: null }));
      }

      let ranked = [...pool.values()].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, MAX_RECOMMENDATIONS);

      if (provider === 'lastfm') {
        step('tags', 75, 'Reading the tags of the recommendations');
        const excludedTags = new Set(prefs.excludedTags.map((t) => t.toLowerCase()));
        let tagFailures = 0;
        for (const c of ranked) {
          let tags = this.repo.cached<string[]>('tags', c.key, this.now() - TAGS_FRESH_MS);
          if (!tags && budget.remaining > 0 && tagFailures < MAX_CONSECUTIVE_FAILURES) {
            tags = await this.tagsOf(c.name, budget, signal).catch((err: unknown) => {
              if (signal.aborted) throw err;
              tagFailures++;
              return null;
            });
            if (tags) tagFailures = 0;
          }
          if (tags) c.tags = tags;
        }
        if (excludedTags.size) ranked = ranked.filter((c) => !c.tags.some((t) => excludedTags.has(t)));
      }

      step('saving', 90, 'Saving the recommendations');
      const tagWeights = new Map<string, number>();
      for (const c of ranked) c.tags.forEach((t, i) => tagWeights.set(t, (tagWeights.get(t) ?? 0) + c.score * (1 - i * 0.1)));
      const genres = this.ctx.db
        .prepare('SELECT g.name, s.track_count FROM library_genre_stats s JOIN library_genres g ON g.id = s.genre_id ORDER BY s.track_count DESC, g.name LIMIT 20')
        .all() as { name: string; track_count: number }[];
      this.repo.replaceUser(
        userId,
        ranked.map((c) => ({ name_key: c.key, name: c.name, mbid: c.mbid, score: Math.round(c.score * 1000) / 1000, source: c.source, seeds_json: JSON.stringify([...c.seeds].slice(0, 5)), tags_json: JSON.stringify(c.tags), image: c.image })),
        seedList.slice(0, MAX_SEEDS_STORED).map((s) => ({ name_key: s.key, name: s.name, mbid: s.mbid, source: s.source, weight: Math.round(s.weight * 1000) / 1000 })),
        [
          ...[...tagWeights].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([name, weight]) => ({ kind: 'tag' as const, name, weight })),
          ...genres.map((g) => ({ kind: 'genre' as const, name: g.name, weight: g.track_count })),
        ],
      );
      this.repo.succeeded(scope, provider, budget.used, this.now());
      this.report(userId, { isUpdating: false, updatePhase: 'done', updateProgress: 100, updateProgressMessage: `${ranked.length} recommendations` });
      return { calls: budget.used, recommendations: ranked.length };
    } catch (err) {
      this.repo.failed(scope, message(err), budget.used, this.now());
      this.report(userId, { isUpdating: false, updatePhase: 'failed', updateProgress: null, updateProgressMessage: message(err) });
      if (err instanceof RefreshFailed || err instanceof IntegrationError || err instanceof NotConfiguredError) {
        this.ctx.log.warn('discovery refresh failed; the previous recommendations stay', { userId, error: message(err) });
        return { calls: budget.used, recommendations: this.repo.recommendationCount(userId) };
      }
      throw err;
    }
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
    const foundKeys = new Set(
      (db.prepare('SELECT identity_key AS k FROM library_artists WHERE identity_key IN (SELECT value FROM json_each(?))').all(JSON.stringify(keys)) as { k: string }[]).map((r) => r.k),
    );
    const foundMbids = mbids.length
      ? new Set((db.prepare('SELECT mbid AS m FROM library_artists WHERE mbid IN (SELECT value FROM json_each(?))').all(JSON.stringify(mbids)) as { m: string }[]).map((r) => r.m))
      : new Set<string>();
    return (name, mbid) => foundKeys.has(`name:${nameKey(name)}`) || (!!mbid && foundMbids.has(mbid));
  }

  /** GET /api/discover, from the cache only. */
  view(userId: number, limit: number, offset: number) {
    const provider = this.provider();
    const state = this.repo.state(userScope(userId));
    if (!state?.last_updated && !state?.last_attempt_at && !this.progress.has(userId)) this.enqueue(userId);
    const blocked = new Set(this.preferences(userId).excludedArtists.map(nameKey));
    const recRows = this.repo.recommendations(userId, limit, offset);
    const globalRows = this.repo.ranking('global', limit).filter((r) => !blocked.has(r.name_key));
    const genreRows = this.fallbackGenreRows(blocked);
    const inLibrary = this.inLibraryFor([...recRows, ...globalRows, ...genreRows.flatMap((g) => g.rows)]);
    const basedOn = this.repo.seeds(userId).map((s) => ({ id: s.mbid, name: s.name, type: 'artist', image: null, tags: [], source: s.source, weight: s.weight }));
    const progress = this.progress.get(userId);
    return {
      recommendations: recRows.map((r) => this.entryOfRecommendation(r, inLibrary)),
      globalTop: globalRows.map((r) => this.entryOfRanking(r, inLibrary)),
      basedOn,
      topTags: this.repo.taste(userId, 'tag', 15).map((t) => t.name),
      topGenres: this.repo.taste(userId, 'genre', 15).map((t) => t.name),
      recommendationCount: this.repo.recommendationCount(userId),
      lastUpdated: state?.last_updated ? new Date(state.last_updated).toISOString() : null,
      configured: true,
      provider,
      capabilities: capabilitiesOf(provider),
      isUpdating: progress?.isUpdating ?? false,
      stale: this.isStale(userId),
      discoverPlaylists: DISCOVER_PRESETS.map((p) => ({ ...p, tags: [...p.tags], artworkUrl: `/api/discover/artwork/${p.id}` })),
      fallbackGenres: genreRows.map((g) => ({ tag: g.tag, name: g.tag, artists: g.rows.map((r) => this.entryOfRanking(r, inLibrary)) })),
      limit,
      offset,
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
      recommendationsCount: scope ? this.repo.recommendationCount(userId!) : (this.ctx.db.prepare('SELECT COUNT(*) AS n FROM discovery_recommendations').get() as { n: number }).n,
      globalTopCount: this.repo.rankingCount('global'),
      cachedImagesCount: images.count,
      cachedImagesSizeBytes: images.bytes,
      updatePhase: p?.updatePhase ?? null,
      updateProgress: p?.updateProgress ?? null,
      updateProgressMessage: p?.updateProgressMessage ?? null,
    };
  }
}

const services = new WeakMap<AppContext, DiscoveryService>();
export function discoveryOf(ctx: AppContext): DiscoveryService {
  let s = services.get(ctx);
  if (!s) services.set(ctx, (s = new DiscoveryService(ctx)));
  return s;
}

/** Registers the refresh queue, the 15-minute check, the health block and the `discover` feature (areas.ts `services`). */
export function startDiscovery(ctx: AppContext): void {
  const service = discoveryOf(ctx);
  ctx.jobs.register<{ userId: number }>(DISCOVERY_USER_QUEUE, {
    concurrency: 1,
    maxAttempts: 1,
    visibilityTimeoutMs: 10 * 60_000,
    handler: async (job: Job<{ userId: number }>) => {
      await service.refreshUser(job.payload.userId, job.signal);
    },
  });
  ctx.scheduler.define({ name: DISCOVERY_CHECK_TASK, every: DISCOVERY_CHECK_EVERY_MS, handler: () => void service.check() });
  ctx.health.push((principal) => ({ discovery: service.health(principal.userId) }));
  ctx.features.add('discover');
}
