import { nameKey } from '../../db/libraryText.js';
import { largestLibraryArtistsWithMbid, ownedAlbumLookup, recentReleaseGroups } from '../../db/flowQueries.js';
import type { Artist, PlanInput, TopTrack } from './types.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryService } from '../discovery/service.js';
import type { MetadataService } from '../metadata/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'log'> & { discovery: DiscoveryService; metadata: MetadataService };

/** Release radar: albums released in the last this many days count as recent. */
const RADAR_WINDOW_DAYS = 120;
/** Release radar: artists considered (recommended, then library artists with an MBID). */
const RADAR_ARTISTS = 40;
/** Release radar: upstream lookups per plan (artist release groups, album track lists); the rest wait for the next run. */
const RADAR_LOOKUPS = 24;

/** What the release radar asks of the plan it is part of. */
export interface RadarPlanner {
  topTracks(artist: Artist): Promise<TopTrack[]>;
  /** One upstream call made (the plan reports its calls). */
  countCall(): void;
}

/**
 * Release radar (reference §3.8: "up to one track per recent album missing from the library"):
 * recent Album and EP release groups (no secondary types) of the recommended and library artists,
 * from the metadata layer's release groups, newest first; an artist never looked up is looked up
 * now, and an album's track list comes from its first release, within RADAR_LOOKUPS upstream calls
 * per plan. Each album's tracks are ranked: the artist's most played ones on the album first (in
 * play order), then the album's other tracks in album order.
 */
export async function recentAlbums(ctx: Deps, input: PlanInput, planner: RadarPlanner): Promise<RadarAlbum[]> {
  const metadata = ctx.metadata;
  const recs = ctx.discovery.repo.allRecommendations(input.ownerUserId).filter((r) => r.mbid).map((r) => ({ name: r.name, mbid: r.mbid! }));
  const libs = largestLibraryArtistsWithMbid(ctx.db, RADAR_ARTISTS);
  const artists = [...new Map([...recs, ...libs].map((a) => [a.mbid, a])).values()].slice(0, RADAR_ARTISTS);
  // The cache as it is (no background refreshes queued from here: lookups stay within the budget).
  const cachedDoc = (kind: string, key: string) => {
    const c = metadata.cache.get(kind, key);
    return c === undefined ? undefined : c.found ? c.payload : null;
  };
  let lookups = 0;
  for (const a of artists) {
    if (cachedDoc('artist', a.mbid) !== undefined) continue;
    if (lookups >= RADAR_LOOKUPS / 2) break;
    lookups++;
    planner.countCall();
    await metadata.artist(a.mbid).catch((err: unknown) => ctx.log.warn('release radar: artist lookup failed', { artist: a.name, error: err instanceof Error ? err.message : String(err) }));
  }
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const now = ctx.clock.now();
  const byMbid = new Map(artists.map((a) => [a.mbid, a]));
  const groups = recentReleaseGroups(ctx.db, [...byMbid.keys()], day(now - RADAR_WINDOW_DAYS * 86_400_000), day(now));
  const ownedAlbum = ownedAlbumLookup(ctx.db);
  const out: RadarAlbum[] = [];
  for (const g of groups) {
    const artist = byMbid.get(g.artistMbid)!;
    if (ownedAlbum(g.title, artist.name)) continue;
    const year = Number(g.date.slice(0, 4)) || null;
    let titles: { title: string; mbid: string | null; durationMs: number | null }[] = [];
    try {
      const cachedGroup = cachedDoc('release-group', g.mbid) as { releases?: { id: string }[] } | null | undefined;
      if (cachedGroup === null) continue;
      if (!cachedGroup && lookups >= RADAR_LOOKUPS) continue;
      if (!cachedGroup) (lookups++, planner.countCall());
      const group = (cachedGroup ?? (await metadata.releaseGroup(g.mbid))) as { releases?: { id: string }[] };
      const releaseId = group.releases?.[0]?.id;
      if (!releaseId) continue;
      const cachedRelease = cachedDoc('release', releaseId);
      if (cachedRelease === null) continue;
      if (!cachedRelease && lookups >= RADAR_LOOKUPS) continue;
      if (!cachedRelease) (lookups++, planner.countCall());
      const release = (cachedRelease ?? (await metadata.release(releaseId))) as { media?: { tracks?: { title: string; length?: number | null; recording: { id: string } }[] }[] };
      titles = (release.media ?? []).flatMap((m) => m.tracks ?? []).map((t) => ({ title: t.title, mbid: t.recording.id, durationMs: t.length ?? null }));
    } catch (err) {
      ctx.log.warn('release radar: album lookup failed', { album: g.title, error: err instanceof Error ? err.message : String(err) });
      continue;
    }
    if (titles.length === 0) continue;
    const top = await planner.topTracks(artist);
    const onAlbum = new Map(titles.map((t) => [nameKey(t.title), t]));
    const played = top.map((t) => onAlbum.get(nameKey(t.name))).filter((t) => t !== undefined);
    const ranked = [...new Set([...played, ...titles])];
    out.push({ artist, album: g.title, tracks: ranked.map((t) => ({ name: t.title, mbid: t.mbid, albumName: g.title, durationMs: t.durationMs, year })) });
  }
  return out;
}

/** One recent album of the release radar, its tracks ranked. */
export interface RadarAlbum {
  artist: Artist;
  album: string;
  tracks: TopTrack[];
}

/**
 * The release radar's candidates in the order the playlist takes them (reference §3.8: "up to one
 * track per recent album missing from the library"): each album's best track, every artist's newest
 * album before anyone's second one, so a playlist shorter than the albums on offer spreads across the
 * artists. `cap` is how many tracks one artist may have: 1 with onePerArtist (its newest album's best
 * track), else one per album of it.
 */
export function radarQueue(albums: RadarAlbum[], onePerArtist: boolean): { candidates: { artist: Artist; track: TopTrack }[]; cap: number } {
  const cap = onePerArtist ? 1 : Math.max(1, albums.length);
  const nth = new Map<string, number>();
  const ordered = albums
    .map((a, i) => {
      const k = nameKey(a.artist.name);
      const rank = nth.get(k) ?? 0;
      nth.set(k, rank + 1);
      return { a, rank, i };
    })
    .sort((x, y) => x.rank - y.rank || x.i - y.i)
    .map((x) => x.a);
  const candidates = ordered.filter((a) => a.tracks.length > 0).map((a) => ({ artist: a.artist, track: a.tracks[0]! }));
  return { candidates, cap };
}
