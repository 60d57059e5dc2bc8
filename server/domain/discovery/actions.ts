import fs from 'node:fs';
import { tagScope, type FeedbackRow } from '../../db/discovery.js';
import { clearImageAndMetadataCaches, orphanedRemoteImageKeys } from '../../db/discoveryQueries.js';
import { nameKey } from '../../db/libraryText.js';
import { NotConfiguredError, NotFoundError, ValidationError } from '../errors.js';
import { capabilitiesOf, type DiscoveryEntry, type Preferences, type DiscoveryService } from './service.js';
import type { Kernel } from '../../kernel.js';
import type { LibraryService } from '../library/service.js';
import type { RemoteImages } from '../metadata/remoteImages.js';
import type { DiscoveryProviders } from './providers.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db'>
  & {
    discovery: DiscoveryService;
    discoveryProviders: DiscoveryProviders;
    library: LibraryService;
    remoteImages: RemoteImages;
  };

/** The discovery routes besides GET /api/discover: feedback, preferences, related, tags, clearing. */

const presentFeedback = (f: FeedbackRow) => ({
  id: f.id,
  artistName: f.artist_name,
  artistMbid: f.artist_mbid,
  kind: f.kind,
  createdAt: new Date(f.created_at).toISOString(),
});

export function listFeedback(ctx: Deps, userId: number) {
  return ctx.discovery.repo.feedback(userId).map(presentFeedback);
}

/**
 * More or less like this. "Less" takes the artist and the artists most similar to it out of the
 * user's recommendations at once (from the cached similar list, or one Last.fm call); "more" makes
 * the artist a seed and queues a refresh.
 */
export async function recordFeedback(ctx: Deps, userId: number, input: { artistName: string; artistMbid?: string | null | undefined; kind: 'more' | 'less' }) {
  const service = ctx.discovery;
  const key = nameKey(input.artistName);
  if (!key) throw new ValidationError('artistName: must name an artist');
  const row = service.repo.putFeedback(userId, { nameKey: key, name: input.artistName.trim(), mbid: input.artistMbid ?? null, kind: input.kind }, ctx.clock.now());
  let removed = 0;
  if (input.kind === 'less') {
    const gone = new Set([key]);
    let similar = service.repo.cachedAny<{ name: string }[]>('similar', key);
    if (!similar && service.provider() === 'lastfm') similar = await service.similarOf({ name: input.artistName, mbid: input.artistMbid ?? null }, null).catch(() => null);
    for (const s of (similar ?? []).slice(0, 10)) gone.add(nameKey(s.name));
    removed = service.repo.removeRecommendations(userId, gone);
  } else service.enqueue(userId);
  return { success: true, feedback: presentFeedback(row), removed };
}

export function deleteFeedback(ctx: Deps, userId: number, id: number) {
  const service = ctx.discovery;
  if (!service.repo.feedbackById(userId, id)) throw new NotFoundError('Feedback not found');
  service.repo.deleteFeedback(userId, id);
  return { success: true };
}

export function resetFeedback(ctx: Deps, userId: number) {
  const removed = ctx.discovery.repo.resetFeedback(userId);
  if (removed > 0) ctx.discovery.enqueue(userId);
  return { success: true, removed };
}

const cleanList = (list: string[]) => [...new Map(list.map((v) => v.trim()).filter(Boolean).map((v) => [v.toLowerCase(), v])).values()].slice(0, 500);

/** Updates the given fields; newly excluded artists and tags leave the recommendations at once. */
export function updatePreferences(ctx: Deps, userId: number, patch: Partial<Preferences>): Preferences {
  const service = ctx.discovery;
  const before = service.preferences(userId);
  const next: Preferences = {
    excludedTags: patch.excludedTags ? cleanList(patch.excludedTags).map((t) => t.toLowerCase()) : before.excludedTags,
    excludedArtists: patch.excludedArtists ? cleanList(patch.excludedArtists) : before.excludedArtists,
    deepDive: patch.deepDive ?? before.deepDive,
  };
  service.repo.putPreferences(userId, next, ctx.clock.now());
  const artists = new Set(next.excludedArtists.map(nameKey));
  const tags = new Set(next.excludedTags);
  const gone = service.repo
    .allRecommendations(userId)
    .filter((r) => artists.has(r.name_key) || (JSON.parse(r.tags_json) as string[]).some((t) => tags.has(t)))
    .map((r) => r.name_key);
  service.repo.removeRecommendations(userId, gone);
  if (next.deepDive !== before.deepDive) service.enqueue(userId);
  return next;
}

export function resetPreferences(ctx: Deps, userId: number): Preferences {
  ctx.discovery.repo.resetPreferences(userId);
  ctx.discovery.enqueue(userId);
  return ctx.discovery.preferences(userId);
}

function requireLastFm(ctx: Deps, what: string): void {
  const unavailable = ctx.discoveryProviders.lastfmUnavailable();
  if (unavailable) throw new NotConfiguredError(unavailable.setting, `${what} needs Last.fm: ${unavailable.message}`);
}

/** Related artists of one artist (Last.fm), or without one the recommendations grouped by the seed that found them. */
/** GET /api/discover/related: one artist's neighbours (items), or the recommendations grouped by seed (sections). */
export interface RelatedArtists {
  artist: string | null;
  items: DiscoveryEntry[];
  sections: { seed: { id: string | null; name: string; source: string }; artists: DiscoveryEntry[] }[];
}

export async function related(ctx: Deps, userId: number, query: { artist?: string | undefined; mbid?: string | undefined; limit: number }): Promise<RelatedArtists> {
  const service = ctx.discovery;
  const inLibrary = service.inLibraryNow();
  if (query.artist) {
    requireLastFm(ctx, 'Related artists');
    const list = (await service.similarOf({ name: query.artist, mbid: query.mbid ?? null }, null)) ?? [];
    const blocked = new Set(service.preferences(userId).excludedArtists.map(nameKey));
    const items: DiscoveryEntry[] = list
      .filter((s) => !blocked.has(nameKey(s.name)))
      .slice(0, query.limit)
      .map((s) => ({
        id: s.mbid,
        name: s.name,
        type: 'artist',
        image: s.image ? ctx.remoteImages.proxyUrl(s.image) : null,
        tags: service.repo.cachedAny<string[]>('tags', nameKey(s.name)) ?? [],
        inLibrary: inLibrary(s.name, s.mbid),
        source: 'lastfm',
        score: s.match,
      }));
    return { artist: query.artist, items, sections: [] };
  }
  const recs = service.repo.allRecommendations(userId);
  const bySeed = new Map<string, DiscoveryEntry[]>();
  for (const r of recs)
    for (const seed of JSON.parse(r.seeds_json) as string[]) {
      const list = bySeed.get(seed) ?? [];
      if (list.length < query.limit) list.push(service.entryOfRecommendation(r, inLibrary));
      bySeed.set(seed, list);
    }
  const seeds = service.repo.seeds(userId);
  const sections = seeds.filter((s) => bySeed.has(s.name)).map((s) => ({ seed: { id: s.mbid, name: s.name, source: s.source }, artists: bySeed.get(s.name)! }));
  return { artist: null, items: [], sections };
}

/** Cached tags, genres and seed artists of the user's taste. */
export function similarSummary(ctx: Deps, userId: number) {
  const service = ctx.discovery;
  return {
    tags: service.repo.taste(userId, 'tag', 30),
    genres: service.repo.taste(userId, 'genre', 30),
    seeds: service.repo.seeds(userId).map((s) => ({ id: s.mbid, name: s.name, source: s.source, weight: s.weight })),
  };
}

/** Recommendations filtered by tag, source, score or library state, from the cache. */
export function filtered(ctx: Deps, userId: number, q: { tag?: string | undefined; source?: string | undefined; minScore?: number | undefined; hideInLibrary: boolean; limit: number; offset: number }) {
  const service = ctx.discovery;
  const inLibrary = service.inLibraryNow();
  const tag = q.tag?.toLowerCase();
  const all = service.repo
    .allRecommendations(userId)
    .map((r) => service.entryOfRecommendation(r, inLibrary))
    .filter((e) => (!tag || e.tags.includes(tag)) && (!q.source || e.source === q.source) && (q.minScore === undefined || (e.score ?? 0) >= q.minScore) && (!q.hideInLibrary || !e.inLibrary));
  return { items: all.slice(q.offset, q.offset + q.limit), total: all.length, limit: q.limit, offset: q.offset };
}

/** The user's taste tags, the genre sections and the tags with a cached ranking. */
export function tags(ctx: Deps, userId: number) {
  const service = ctx.discovery;
  const excluded = new Set(service.preferences(userId).excludedTags);
  return {
    tags: service.repo.taste(userId, 'tag', 50).filter((t) => !excluded.has(t.name)).map((t) => ({ name: t.name, weight: t.weight })),
    genres: service.repo.ranking('genres').map((g) => g.name),
    cachedTags: service.repo.rankedTags(),
    arbitraryTagSearch: capabilitiesOf(service.provider()).arbitraryTagSearch,
  };
}

/** Artists for a tag (Last.fm tag.getTopArtists, cached), without blocked and disliked ones. */
export async function byTag(ctx: Deps, userId: number, q: { tag: string; limit: number; offset: number; hideInLibrary: boolean }) {
  const service = ctx.discovery;
  const tag = q.tag.trim().toLowerCase();
  if (!tag) throw new ValidationError('tag: required');
  let rows = service.repo.ranking(tagScope(tag));
  const unavailable = ctx.discoveryProviders.lastfmUnavailable();
  if (!unavailable) rows = await service.tagArtists(tag, null).catch((err: unknown) => {
    if (rows.length) return rows; // stale ranking rather than nothing
    throw err;
  });
  else if (!rows.length) requireLastFm(ctx, 'Tag search');
  const prefs = service.preferences(userId);
  const blocked = new Set([...prefs.excludedArtists.map(nameKey), ...service.repo.feedback(userId).filter((f) => f.kind === 'less').map((f) => f.name_key)]);
  const inLibrary = service.inLibraryNow();
  const items = rows
    .filter((r) => !blocked.has(r.name_key))
    .map((r) => service.entryOfRanking(r, inLibrary))
    .filter((e) => !q.hideInLibrary || !e.inLibrary);
  return { tag, items: items.slice(q.offset, q.offset + q.limit), total: items.length, limit: q.limit, offset: q.offset };
}

/** Clears the derived discovery cache: the caller's, or everyone's (an administrator). Feedback and preferences stay. */
export function clearDiscovery(ctx: Deps, userId: number, all: boolean): { success: boolean; scope: 'all' | 'user' } {
  ctx.discovery.repo.clear(all ? null : userId);
  return { success: true, scope: all ? 'all' : 'user' };
}

/**
 * POST /api/discover/clear: forgets the remote picture links (`remote_images`), deletes the fetched
 * picture files no library item uses, and empties the metadata-provider caches (`metadata_cache`,
 * the discovery per-artist cache). Library artwork, overrides, feedback and preferences are kept.
 */
export function clearCaches(ctx: Deps) {
  const db = ctx.db;
  const images = ctx.library.images;
  const orphaned = orphanedRemoteImageKeys(db);
  const counts = db.transaction(() => {
    const { links, metadata } = clearImageAndMetadataCaches(db, orphaned.map((o) => o.key));
    ctx.discovery.repo.clearImages();
    return { links, metadata };
  })();
  let files = 0;
  let resized: string[] = [];
  try {
    resized = fs.readdirSync(images.resizedDir);
  } catch {
    resized = [];
  }
  for (const o of orphaned) {
    try {
      fs.rmSync(images.fileOf(o.key), { force: true });
      files++;
    } catch {
      /* already gone */
    }
    for (const name of resized) if (name.startsWith(`${o.key}-`)) fs.rmSync(`${images.resizedDir}/${name}`, { force: true });
  }
  return { success: true, clearedImageLinks: counts.links, clearedImageFiles: files, clearedMetadataEntries: counts.metadata };
}
