import { tagScope } from '../../db/discovery.js';
import { albumYearLookups, libraryArtistsByPlays, playsSince } from '../../db/flowQueries.js';
import { MIX_SOURCES, type Mix, type MixSource, type PlannedTrack } from '../../db/flows.js';
import { nameKey } from '../../db/libraryText.js';
import { requests } from '../../db/requests.js';
import { DeezerClient } from '../../integrations/deezer/client.js';
import { IntegrationError } from '../../integrations/errors.js';
import { recentAlbums, radarQueue, type RadarAlbum, type Deps as FlowsReleaseRadarDeps } from './releaseRadar.js';
import type { Artist, PlanInput, TopTrack } from './types.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryProviders } from '../discovery/providers.js';
import type { DiscoveryService } from '../discovery/service.js';
import type { MetadataService } from '../metadata/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'log'>
  & {
    discovery: DiscoveryService;
    discoveryProviders: DiscoveryProviders;
    metadata: MetadataService;
  }
  & FlowsReleaseRadarDeps;

export type { Artist, PlanInput, TopTrack } from './types.js';

/**
 * Planning one run of a flow (reference §5 "track selection"): `size` tracks split across the mix
 * weights, each source giving artists (personal recommendations, the user's library artists, the
 * global chart, tags and related artists), each artist its top tracks (Last.fm, or Deezer without
 * a Last.fm key; cached per artist). Left out: tracks already in the library (unless the flow wants
 * them), blocked and disliked artists, tracks played in the last 30 days, tracks of the previous run,
 * and tracks whose year (their own, else their album's from the metadata cache or the library) is
 * outside the range; tracks of an unknown album stay in. A reserve list, drawn the same way, replaces
 * tracks whose download fails.
 */

export interface Plan {
  tracks: PlannedTrack[];
  reserve: PlannedTrack[];
  /** Tracks of the playlist per source. */
  counts: Record<MixSource, number>;
  /** Upstream calls the plan made (0 from a warm cache). */
  calls: number;
}

const TOP_TRACKS_KIND = 'flow-top-tracks';
const TOP_TRACKS_FRESH_MS = 7 * 24 * 3600_000;
const RECENT_PLAY_MS = 30 * 24 * 3600_000;
/** Upstream top-track lookups one plan may make (the rest of the artists wait for the next run). */
const MAX_FETCHES = 80;
const FETCH_CONCURRENCY = 4;
/** Where a deep dive starts in an artist's top tracks: past the hits. */
const DEEP_DIVE_OFFSET = 5;


/** Splits `total` across the weights by largest remainder; sources with weight 0 get nothing. */
export function allocate(total: number, mix: Mix): Record<MixSource, number> {
  const sum = MIX_SOURCES.reduce((s, k) => s + Math.max(0, mix[k]), 0);
  const out = { discover: 0, mix: 0, trending: 0, focus: 0 } as Record<MixSource, number>;
  if (sum <= 0 || total <= 0) return out;
  const exact = MIX_SOURCES.map((k) => ({ k, v: (total * Math.max(0, mix[k])) / sum }));
  let given = 0;
  for (const e of exact) {
    out[e.k] = Math.floor(e.v);
    given += out[e.k];
  }
  const byRemainder = [...exact].filter((e) => mix[e.k] > 0).sort((a, b) => b.v - Math.floor(b.v) - (a.v - Math.floor(a.v)) || mix[b.k] - mix[a.k]);
  for (let i = 0; given < total; i = (i + 1) % byRemainder.length, given++) out[byRemainder[i]!.k]++;
  return out;
}

/** A small deterministic shuffle (each run has its own order, a test can repeat one). */
function shuffled<T>(list: T[], seed: number): T[] {
  const out = [...list];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export class FlowPlanner {
  private calls = 0;
  private fetches = 0;
  private readonly memo = new Map<string, Promise<TopTrack[]>>();
  private deezer: DeezerClient | null = null;

  constructor(private readonly ctx: Deps) {}

  private lastfmReady(): boolean {
    return this.ctx.discoveryProviders.lastfmUnavailable() === null;
  }

  /** An artist's top tracks, most played first: the cache, else one lookup (none once the plan's budget is spent). */
  topTracks(artist: Artist): Promise<TopTrack[]> {
    const key = nameKey(artist.name);
    let hit = this.memo.get(key);
    if (!hit) {
      hit = this.fetchTopTracks(key, artist);
      this.memo.set(key, hit);
    }
    return hit;
  }

  private async fetchTopTracks(key: string, artist: Artist): Promise<TopTrack[]> {
    const repo = this.ctx.discovery.repo;
    const cached = repo.cached<TopTrack[]>(TOP_TRACKS_KIND, key, this.ctx.clock.now() - TOP_TRACKS_FRESH_MS);
    if (cached) return cached;
    if (this.fetches >= MAX_FETCHES) return repo.cachedAny<TopTrack[]>(TOP_TRACKS_KIND, key) ?? [];
    this.fetches++;
    try {
      let tracks: TopTrack[];
      if (this.lastfmReady()) {
        this.calls++;
        const page = await this.ctx.discoveryProviders.lastfm().topTracks({ name: artist.name, mbid: artist.mbid }, 50);
        tracks = page.tracks.map((t) => ({ name: t.name, mbid: t.mbid || null, albumName: null, durationMs: null, year: null }));
      } else {
        tracks = await this.deezerTop(artist.name);
      }
      repo.putCache(TOP_TRACKS_KIND, key, tracks, this.ctx.clock.now());
      return tracks;
    } catch (err) {
      if (err instanceof IntegrationError) {
        if (err.kind === 'not_found') {
          repo.putCache(TOP_TRACKS_KIND, key, [], this.ctx.clock.now());
          return [];
        }
        this.ctx.log.warn('flow planning: top tracks unavailable', { artist: artist.name, error: err.message });
        return repo.cachedAny<TopTrack[]>(TOP_TRACKS_KIND, key) ?? [];
      }
      throw err;
    }
  }

  private async deezerTop(name: string): Promise<TopTrack[]> {
    if (!this.deezer) {
      const spacing = this.ctx.config.upstreams.spacingMs;
      this.deezer = new DeezerClient({ baseUrl: this.ctx.config.upstreams.deezer, userAgent: this.ctx.metadata.userAgent(), ...(spacing !== null && { spacingMs: spacing }) });
    }
    this.calls++;
    const key = nameKey(name);
    const found = (await this.deezer.searchArtists(name, 5)).data.find((a) => nameKey(a.name) === key);
    if (!found) return [];
    this.calls++;
    const top = await this.deezer.topTracks(found.id, 50);
    return top.data.map((t) => ({ name: t.title, mbid: null, albumName: t.album?.title ?? null, durationMs: t.duration ? t.duration * 1000 : null, year: null }));
  }

  /** The artists a source draws from, in order of preference. */
  async artistsOf(source: MixSource, input: PlanInput): Promise<Artist[]> {
    const discovery = this.ctx.discovery;
    switch (source) {
      case 'discover':
        return discovery.repo.allRecommendations(input.ownerUserId).map((r) => ({ name: r.name, mbid: r.mbid }));
      case 'trending':
        return discovery.repo.ranking('global', 300).map((r) => ({ name: r.name, mbid: r.mbid }));
      case 'mix':
        return libraryArtistsByPlays(this.ctx.db, input.ownerUserId) as Artist[];
      case 'focus': {
        const out: Artist[] = [];
        for (const tag of input.tags) {
          let rows = discovery.repo.ranking(tagScope(tag), 100);
          if (rows.length === 0 && this.lastfmReady()) {
            this.calls++;
            rows = await discovery.tagArtists(tag, null).catch(() => []);
          }
          out.push(...rows.map((r) => ({ name: r.name, mbid: r.mbid })));
        }
        for (const name of input.relatedArtists) {
          out.push({ name, mbid: null });
          if (!this.lastfmReady()) continue;
          const similar = await discovery.similarOf({ name, mbid: null }, null).catch(() => null);
          out.push(...(similar ?? []).map((s) => ({ name: s.name, mbid: s.mbid })));
        }
        return out;
      }
    }
  }

  /** Release radar albums for this plan (releaseRadar.ts), counting its upstream calls with the plan's. */
  releaseRadar(input: PlanInput): Promise<RadarAlbum[]> {
    return recentAlbums(this.ctx, input, { topTracks: (a) => this.topTracks(a), countCall: () => void this.calls++ });
  }

  /** Plans a run; `seed` varies the order between runs, `exclude` holds `artist\0title` keys (lower case) to leave out. */
  async plan(input: PlanInput, options: { seed?: number; exclude?: Set<string>; reserveSize?: number } = {}): Promise<Plan> {
    const seed = options.seed ?? 1;
    const quotas = allocate(input.size, input.mix);
    const reserveSize = options.reserveSize ?? Math.max(5, Math.ceil(input.size / 2));
    const reserveQuotas = allocate(reserveSize, input.mix);
    const discovery = this.ctx.discovery;

    // Exclusions.
    const prefs = discovery.preferences(input.ownerUserId);
    const blocked = new Set(prefs.excludedArtists.map(nameKey));
    for (const f of discovery.repo.feedback(input.ownerUserId)) if (f.kind === 'less') blocked.add(f.name_key);
    const played = new Set(
      playsSince(this.ctx.db, input.ownerUserId, this.ctx.clock.now() - RECENT_PLAY_MS).map((r) => `${nameKey(r.artist)}\u0000${nameKey(r.title)}`),
    );
    const exclude = options.exclude ?? new Set<string>();
    const taken = new Set<string>();
    const perArtistCount = new Map<string, number>();
    const perArtist = input.onePerArtist ? 1 : input.deepDive ? 2 : 3;

    // A candidate without a year takes its album's (the first release date of the release group the
    // metadata cache knows by the artist's MBID and the album title, or of the library album). Left
    // unfiltered: tracks whose album is unknown (Last.fm top tracks name none) or not in either place.
    const years = albumYearLookups(this.ctx.db);
    const yearMemo = new Map<string, number | null>();
    const albumYear = (artist: Artist, album: string | null): number | null => {
      if (!album) return null;
      const key = `${nameKey(artist.name)}\u0000${album.toLowerCase()}`;
      if (yearMemo.has(key)) return yearMemo.get(key)!;
      const g = artist.mbid ? years.groupYear(artist.mbid, album) : null;
      const y = g ? Number(g) || null : years.libraryYear(album, artist.name);
      yearMemo.set(key, y);
      return y;
    };
    const acceptable = (artist: Artist, t: TopTrack, cap = perArtist): boolean => {
      const a = nameKey(artist.name);
      const key = `${a}\u0000${nameKey(t.name)}`;
      if (taken.has(key) || blocked.has(a) || played.has(key)) return false;
      if (exclude.has(`${artist.name.toLowerCase()}\u0000${t.name.toLowerCase()}`)) return false;
      if ((perArtistCount.get(a) ?? 0) >= cap) return false;
      if (input.yearFrom !== null || input.yearTo !== null) {
        const year = t.year ?? albumYear(artist, t.albumName);
        if (year !== null && ((input.yearFrom !== null && year < input.yearFrom) || (input.yearTo !== null && year > input.yearTo))) return false;
      }
      if (!input.includeLibraryTracks && requests.ownedTrackId(this.ctx.db, { mbid: t.mbid, title: t.name, artistName: artist.name }) !== undefined) return false;
      return true;
    };
    const take = (source: MixSource, artist: Artist, t: TopTrack): PlannedTrack => {
      const a = nameKey(artist.name);
      taken.add(`${a}\u0000${nameKey(t.name)}`);
      perArtistCount.set(a, (perArtistCount.get(a) ?? 0) + 1);
      return {
        source,
        artistName: artist.name,
        trackName: t.name,
        albumName: t.albumName,
        artistMbid: artist.mbid,
        recordingMbid: t.mbid,
        durationMs: t.durationMs,
        year: t.year ?? albumYear(artist, t.albumName),
      };
    };

    // Each source: a queue of artists (library artists in a shuffled order, the others best first
    // with a little variety), walked in passes, one track per artist per pass.
    const walkers = new Map<MixSource, { artists: Artist[]; pass: number; index: number; done: boolean }>();
    // Release radar: the discover share comes from the recent albums (radarQueue).
    const radar = input.templateId === 'release-radar' && quotas.discover + reserveQuotas.discover > 0
      ? radarQueue(await this.releaseRadar(input), input.onePerArtist)
      : null;
    for (const source of MIX_SOURCES) {
      if (quotas[source] + reserveQuotas[source] === 0) continue;
      if (source === 'discover' && radar) continue;
      let artists = await this.artistsOf(source, input);
      const unique = new Map<string, Artist>();
      for (const a of artists) if (!unique.has(nameKey(a.name))) unique.set(nameKey(a.name), a);
      artists = [...unique.values()].filter((a) => !blocked.has(nameKey(a.name)));
      if (input.deepDive && source !== 'mix') artists = [...artists.slice(Math.floor(artists.length / 3)), ...artists.slice(0, Math.floor(artists.length / 3))];
      artists = source === 'mix' ? shuffled(artists, seed) : windowShuffle(artists, seed, 10);
      walkers.set(source, { artists, pass: 0, index: 0, done: artists.length === 0 });
    }

    const next = async (source: MixSource): Promise<PlannedTrack | null> => {
      if (source === 'discover' && radar) {
        while (radar.candidates.length > 0) {
          const c = radar.candidates.shift()!;
          if (acceptable(c.artist, c.track, radar.cap)) return take(source, c.artist, c.track);
        }
        return null;
      }
      const w = walkers.get(source);
      if (!w) return null;
      while (!w.done) {
        if (w.index >= w.artists.length) {
          w.pass++;
          w.index = 0;
          if (w.pass >= perArtist) {
            w.done = true;
            break;
          }
        }
        // Look the next few artists up at once (the cache answers at once when warm).
        const ahead = w.artists.slice(w.index, w.index + FETCH_CONCURRENCY);
        const lists = await Promise.all(ahead.map((a) => this.topTracks(a)));
        for (let k = 0; k < ahead.length; k++) {
          const artist = ahead[k]!;
          const tracks = lists[k]!;
          w.index++;
          const start = input.deepDive ? Math.min(DEEP_DIVE_OFFSET, Math.floor(tracks.length / 2)) : 0;
          const order = [...tracks.slice(start), ...tracks.slice(0, start)];
          const pick = order.find((t) => acceptable(artist, t));
          if (pick) return take(source, artist, pick);
        }
      }
      return null;
    };

    const tracks: PlannedTrack[] = [];
    const counts = { discover: 0, mix: 0, trending: 0, focus: 0 } as Record<MixSource, number>;
    // Round-robin over the sources so the playlist interleaves them.
    const fill = async (target: Record<MixSource, number>, into: PlannedTrack[], tally?: Record<MixSource, number>) => {
      const left = { ...target };
      let progress = true;
      while (progress) {
        progress = false;
        for (const source of MIX_SOURCES) {
          if (left[source] <= 0) continue;
          const t = await next(source);
          if (!t) {
            left[source] = 0;
            continue;
          }
          into.push(t);
          left[source]--;
          if (tally) tally[source]++;
          progress = true;
        }
      }
      return MIX_SOURCES.reduce((s, k) => s + left[k], 0);
    };
    await fill(quotas, tracks, counts);
    // A source that ran dry: the others fill its share, by weight.
    let short = input.size - tracks.length;
    for (const source of [...MIX_SOURCES].filter((s) => input.mix[s] > 0).sort((a, b) => input.mix[b] - input.mix[a])) {
      if (short <= 0) break;
      const before = tracks.length;
      await fill({ discover: 0, mix: 0, trending: 0, focus: 0, [source]: short }, tracks, counts);
      short -= tracks.length - before;
    }
    const reserve: PlannedTrack[] = [];
    await fill(reserveQuotas, reserve);
    return { tracks, reserve, counts, calls: this.calls };
  }
}

/** Shuffles within windows of `size`: the best stay near the top, the order still changes between runs. */
function windowShuffle<T>(list: T[], seed: number, size: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < list.length; i += size) out.push(...shuffled(list.slice(i, i + size), seed + i));
  return out;
}
