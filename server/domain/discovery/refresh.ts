import { nameKey } from '../../db/libraryText.js';
import { userScope } from '../../db/discovery.js';
import { librarySeedArtists, playedArtistsSince, topLibraryGenres } from '../../db/discoveryQueries.js';
import { IntegrationError } from '../../integrations/errors.js';
import { koitoBaseUrl } from '../../integrations/koito/client.js';
import type { LastFmImage } from '../../integrations/lastfm/client.js';
import { NotConfiguredError } from '../errors.js';
import { failureText } from './failure.js';
import { CallBudget } from './callBudget.js';
import type { DiscoveryProviderName, LibraryIndex, RefreshHost as DiscoveryService, SimilarList } from './types.js';

export { CallBudget } from './callBudget.js';
export type { LibraryIndex, SimilarList } from './types.js';

/**
 * The recommendation refresh: seeds from the library, the listening history and "more like this"
 * feedback; similar artists per seed (Last.fm) or the sitewide chart (ListenBrainz) scored into a
 * pool; tags for the best of them; the shared charts and genre sections when stale — every upstream
 * call within one CallBudget. The DiscoveryService (service.ts) queues refreshes, reports their
 * progress and serves what they saved.
 */

/** Upstream calls one refresh may make, whatever the size of the library or the history. */
export const DISCOVERY_CALL_BUDGET = 60;
/** The chart and the genre sections are shared and fetched again after this long. */
export const GLOBAL_STALE_MS = 12 * 3600_000;
export const SIMILAR_FRESH_MS = 7 * 24 * 3600_000;
export const TAGS_FRESH_MS = 30 * 24 * 3600_000;
const MAX_SEEDS_STORED = 50;
const MAX_RECOMMENDATIONS = 500;
const FALLBACK_GENRE_COUNT = 6;
/** A refresh gives up (keeping the previous cache) after this many upstream failures in a row. */
const MAX_CONSECUTIVE_FAILURES = 2;

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

export const bestImage = (images: LastFmImage[]): string | null => {
  const order = ['mega', 'extralarge', 'large', 'medium', 'small', ''];
  const sorted = [...images].filter((i) => i.url).sort((a, b) => order.indexOf(a.size) - order.indexOf(b.size));
  return sorted[0]?.url ?? null;
};
export const uniqueLower = (list: string[]) => [...new Set(list.map((t) => t.trim().toLowerCase()).filter(Boolean))];
export const message = (err: unknown) => (err instanceof Error ? err.message : String(err));


/** Library seeds: the user's most played library artists first, then those with the most tracks (bounded). */
function librarySeeds(service: DiscoveryService, userId: number, limit: number): Seed[] {
  const rows = librarySeedArtists(service.ctx.db, userId, limit);
  return rows.map((r, i) => ({ key: nameKey(r.name), name: r.name, mbid: r.mbid, weight: 1 - (0.5 * i) / Math.max(1, rows.length), source: 'library' }));
}

/** History seeds per the user's listening-history setting; a provider that fails gives none. */
async function historySeeds(service: DiscoveryService, userId: number, budget: CallBudget, signal: AbortSignal): Promise<Seed[]> {
  const now = () => service.ctx.clock.now();
  const user = service.ctx.users.get(userId);
  const h = user.listeningHistory;
  const p = service.ctx.discoveryProviders;
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
      const answer = await p.koito(koitoBaseUrl(h.url) ?? h.url, user.role).topArtists({ period: 'month', limit: 50, signal });
      return toSeeds(answer.items, 'koito');
    }
  } catch (err) {
    service.ctx.log.warn('discovery: listening history unavailable', { userId, provider: h.provider, error: message(err) });
    return [];
  }
  const rows = playedArtistsSince(service.ctx.db, userId, now() - 180 * 24 * 3600_000);
  return toSeeds(rows, 'local');
}


/** The shared part: the global chart and (Last.fm) the fallback genre sections. */
async function refreshGlobal(service: DiscoveryService, budget: CallBudget, signal: AbortSignal, provider: DiscoveryProviderName, library: LibraryIndex): Promise<void> {
  const now = () => service.ctx.clock.now();
  const state = service.repo.state('global');
  const fresh = state?.last_updated && state.provider === provider && state.last_updated >= now() - GLOBAL_STALE_MS && !state.last_error;
  if (fresh) return;
  service.repo.attempt('global', now());
  const before = budget.used;
  try {
    const p = service.ctx.discoveryProviders;
    if (provider === 'lastfm') {
      if (!budget.take()) return;
      const chart = await p.lastfm().chartTopArtists(100, 1, signal);
      service.repo.replaceRanking(
        'global',
        chart.items.map((a) => ({ name_key: nameKey(a.name), name: a.name, mbid: a.mbid, listeners: a.listeners ?? null, source: 'lastfm', image: service.image(bestImage(a.image)), in_library: library.has(a.name, a.mbid) ? 1 : 0 })),
        now(),
      );
      if (!budget.take()) return;
      const tags = (await p.lastfm().chartTopTags(FALLBACK_GENRE_COUNT, 1, signal)).items.map((t) => t.name.toLowerCase());
      service.repo.replaceRanking(
        'genres',
        tags.map((t) => ({ name_key: t, name: t, mbid: null, listeners: null, source: 'lastfm', image: null, in_library: 0 })),
        now(),
      );
      for (const tag of tags) await service.tagArtists(tag, budget, signal, true, library);
    } else {
      if (!budget.take()) return;
      const stats = await p.listenbrainz().sitewideArtists({ range: 'month', count: 100, signal });
      if (stats.ready)
        service.repo.replaceRanking(
          'global',
          stats.artists.map((a) => ({ name_key: nameKey(a.name), name: a.name, mbid: a.mbid, listeners: a.listenCount, source: 'listenbrainz', image: null, in_library: library.has(a.name, a.mbid) ? 1 : 0 })),
          now(),
        );
      service.repo.replaceRanking('genres', [], now());
    }
    service.repo.succeeded('global', provider, budget.used - before, now());
  } catch (err) {
    if (signal.aborted) throw err;
    service.repo.failed('global', message(err), budget.used - before, now());
    throw new RefreshFailed(failureText(err, provider === 'lastfm' ? 'Last.fm' : 'ListenBrainz'), { cause: err });
  }
}

/**
 * One user's refresh within one call budget: the shared part when stale, seeds from the library and
 * the history, similar artists per seed (Last.fm) or the sitewide chart (ListenBrainz), scored into
 * a pool without library, blocked, disliked and seed artists, then tags for the best of them. When
 * the provider fails, the previous cache stays and is served as stale.
 */
export async function refreshRecommendations(service: DiscoveryService, userId: number, signal: AbortSignal, budget: CallBudget): Promise<{ calls: number; recommendations: number }> {
  const now = () => service.ctx.clock.now();
  const scope = userScope(userId);
  const provider = service.provider();
  service.repo.attempt(scope, now());
  const step = (updatePhase: string, updateProgress: number, updateProgressMessage: string) =>
    service.report(userId, { isUpdating: true, updatePhase, updateProgress, updateProgressMessage });
  try {
    step('starting', 5, 'Reading the library');
    const library = service.libraryIndex();
    step('global', 10, provider === 'lastfm' ? 'Fetching the Last.fm charts and genres' : 'Fetching the ListenBrainz sitewide chart');
    await refreshGlobal(service, budget, signal, provider, library);

    step('seeds', 25, 'Reading your library and listening history');
    const prefs = service.preferences(userId);
    const feedback = service.repo.feedback(userId);
    const seeds = new Map<string, Seed>();
    const addSeed = (s: Seed) => {
      if (!s.key) return;
      const had = seeds.get(s.key);
      if (had) had.weight += s.weight;
      else seeds.set(s.key, { ...s });
    };
    for (const f of feedback) if (f.kind === 'more') addSeed({ key: f.name_key, name: f.artist_name, mbid: f.artist_mbid, weight: 1.5, source: 'feedback' });
    for (const s of await historySeeds(service, userId, budget, signal)) addSeed(s);
    for (const s of librarySeeds(service, userId, 100)) addSeed(s);
    const blocked = new Set(prefs.excludedArtists.map(nameKey));
    const disliked = new Set(feedback.filter((f) => f.kind === 'less').map((f) => f.name_key));
    const seedList = [...seeds.values()].filter((s) => !blocked.has(s.key) && !disliked.has(s.key)).sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));

    // Artists next to a disliked one go with it ("less like this").
    const nearDisliked = new Set<string>();
    for (const f of feedback.filter((x) => x.kind === 'less'))
      for (const s of (service.repo.cachedAny<SimilarList>('similar', f.name_key) ?? []).slice(0, 10)) nearDisliked.add(nameKey(s.name));
    const globalKeys = new Set(service.repo.ranking('global', 100).map((r) => r.name_key));
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
        const cached = service.repo.cached<SimilarList>('similar', seed.key, now() - SIMILAR_FRESH_MS);
        if (!cached && budget.remaining <= reserve) continue;
        asked++;
        let list: SimilarList | null;
        try {
          list = await service.similarOf(seed, budget, signal);
          failures = 0;
        } catch (err) {
          if (signal.aborted) throw err;
          failures++;
          service.ctx.log.warn('discovery: similar artists failed', { seed: seed.name, error: message(err) });
          if (failures >= MAX_CONSECUTIVE_FAILURES) {
            if (answered === 0) throw new RefreshFailed(failureText(err, 'Last.fm'), { cause: err });
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
          add({ key: nameKey(s.name), name: s.name, mbid: s.mbid, score: weight, image: service.image(s.image), source: 'lastfm', tags: [], seed: seed.name });
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
      const chart = service.repo.ranking('global', 100);
      chart.forEach((r, i) => add({ key: r.name_key, name: r.name, mbid: r.mbid, score: 1 - i / Math.max(1, chart.length), image: r.image, source: 'listenbrainz', tags: [], seed: null }));
    }

    let ranked = [...pool.values()].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, MAX_RECOMMENDATIONS);

    if (provider === 'lastfm') {
      step('tags', 75, 'Reading the tags of the recommendations');
      const excludedTags = new Set(prefs.excludedTags.map((t) => t.toLowerCase()));
      let tagFailures = 0;
      for (const c of ranked) {
        let tags = service.repo.cached<string[]>('tags', c.key, now() - TAGS_FRESH_MS);
        if (!tags && budget.remaining > 0 && tagFailures < MAX_CONSECUTIVE_FAILURES) {
          tags = await service.tagsOf(c.name, budget, signal).catch((err: unknown) => {
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
    const genres = topLibraryGenres(service.ctx.db);
    service.repo.replaceUser(
      userId,
      ranked.map((c) => ({ name_key: c.key, name: c.name, mbid: c.mbid, score: Math.round(c.score * 1000) / 1000, source: c.source, seeds_json: JSON.stringify([...c.seeds].slice(0, 5)), tags_json: JSON.stringify(c.tags), image: c.image })),
      seedList.slice(0, MAX_SEEDS_STORED).map((s) => ({ name_key: s.key, name: s.name, mbid: s.mbid, source: s.source, weight: Math.round(s.weight * 1000) / 1000 })),
      [
        ...[...tagWeights].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([name, weight]) => ({ kind: 'tag' as const, name, weight })),
        ...genres.map((g) => ({ kind: 'genre' as const, name: g.name, weight: g.track_count })),
      ],
    );
    service.repo.succeeded(scope, provider, budget.used, now());
    service.report(userId, { isUpdating: false, updatePhase: 'done', updateProgress: 100, updateProgressMessage: `${ranked.length} recommendations` });
    return { calls: budget.used, recommendations: ranked.length };
  } catch (err) {
    // Stored and shown as the reason the update did not finish: the cause in words, no request address.
    const reason = failureText(err);
    service.repo.failed(scope, reason, budget.used, now());
    service.report(userId, { isUpdating: false, updatePhase: 'failed', updateProgress: null, updateProgressMessage: reason });
    if (err instanceof RefreshFailed || err instanceof IntegrationError || err instanceof NotConfiguredError) {
      service.ctx.log.warn('discovery refresh failed; the previous recommendations stay', { userId, error: message(err instanceof RefreshFailed && err.cause ? err.cause : err) });
      return { calls: budget.used, recommendations: service.repo.recommendationCount(userId) };
    }
    throw err;
  }
}

