import type { Db } from '../../db/connection.js';
import { sortName } from '../../db/libraryText.js';
import { OwnedTrackLookup } from '../../db/ownedTracks.js';
import { luceneQuote } from '../../integrations/musicbrainz/client.js';
import { baseTitle, fold } from '../search/match.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & { metadata: MetadataService };

/**
 * Matching imported tracks: first against the library (local SQL, no network), then the rest
 * against MusicBrainz in batches: up to 20 ISRCs per recording search (`isrc:A OR isrc:B …`),
 * then up to 5 (title, artist) pairs per search for tracks without one. Every answer is cached
 * (kind `import-match`), so a preview's work is reused by the import and by the next preview.
 */

/** A track as a source lists it. */
export interface SourceTrack {
  title: string;
  /** Credited artists, main artist first. */
  artists: string[];
  album: string | null;
  durationMs: number | null;
  isrc: string | null;
  /** ListenBrainz (and sometimes Last.fm) name the recording already. */
  recordingMbid: string | null;
}

/** A MusicBrainz recording found for a track: what its download job is made of. */
export interface UpstreamMatch {
  recordingMbid: string;
  title: string;
  artist: string;
  artistMbid: string | null;
  album: string | null;
  albumMbid: string | null;
  releaseMbid: string | null;
  durationMs: number | null;
}

const CACHE_KIND = 'import-match';
const FOUND_FRESH_MS = 30 * 24 * 3600_000;
const MISSING_FRESH_MS = 3 * 24 * 3600_000;
export const ISRC_BATCH = 20;
export const NAME_BATCH = 5;
const RESULT_LIMIT = 100;

/** Titles without what services append: "- Remastered 2011", "(feat. X)", "- Radio Edit". */
export function plainTitle(title: string): string {
  return title
    .replace(/\s*[([](feat\.?|ft\.?|featuring|with)\s[^)\]]*[)\]]/gi, '')
    .replace(/\s+-\s+[^-]*\b(remaster(ed)?|version|edit|mix|mono|stereo|live|deluxe|edition|single)\b.*$/i, '')
    .trim();
}

/** The library's own matching (reuse.ts, requests.ownedTrackId) widened to a source's spellings. */
export class LocalMatcher {
  private readonly owned: OwnedTrackLookup;

  constructor(db: Db) {
    this.owned = new OwnedTrackLookup(db);
  }

  trackId(t: { title: string; artists: string[]; recordingMbid?: string | null }): number | null {
    if (t.recordingMbid) {
      const id = this.owned.byMbid(t.recordingMbid);
      if (id !== undefined) return id;
    }
    const titles = [...new Set([t.title, plainTitle(t.title)].filter(Boolean).map(sortName))];
    const main = t.artists[0] ?? '';
    const artists = [...new Set([main, t.artists.join(', '), t.artists.join(' & '), t.artists.length > 1 ? `${main} feat. ${t.artists.slice(1).join(', ')}` : ''].filter(Boolean).map(sortName))];
    for (const title of titles)
      for (const artist of artists) {
        const id = this.owned.byNames(title, artist);
        if (id !== undefined) return id;
      }
    return null;
  }
}

type Recording = {
  id: string;
  title: string;
  length?: number | null;
  isrcs?: string[];
  'artist-credit': { name: string; artist: { id: string; name?: string } }[];
  releases: { id: string; title: string; 'release-group'?: { id: string; title: string } }[];
};

const cacheKey = (t: SourceTrack) => (t.isrc ? `isrc|${t.isrc.toUpperCase()}` : `name|${fold(t.artists[0] ?? '')}|${fold(t.title)}`);
const sameTitle = (a: string, b: string) => {
  const x = baseTitle(a);
  return x !== '' && (x === baseTitle(b) || x === baseTitle(plainTitle(b)));
};
const creditedTo = (r: Recording, t: SourceTrack) => r['artist-credit'].some((c) => t.artists.some((a) => fold(a) !== '' && (fold(c.name) === fold(a) || fold(c.artist.name ?? '') === fold(a))));
const validIsrc = (isrc: string | null) => (isrc && /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/i.test(isrc) ? isrc.toUpperCase() : null);

function toMatch(r: Recording, t: SourceTrack): UpstreamMatch {
  const onAlbum = t.album ? r.releases.find((rel) => sameTitle(rel['release-group']?.title ?? rel.title, t.album!)) : undefined;
  const release = onAlbum ?? r.releases[0];
  const credit = r['artist-credit'][0];
  return {
    recordingMbid: r.id,
    title: r.title,
    artist: credit?.name ?? t.artists[0] ?? '',
    artistMbid: credit?.artist.id ?? null,
    album: release ? (release['release-group']?.title ?? release.title) : t.album,
    albumMbid: release?.['release-group']?.id ?? null,
    releaseMbid: release?.id ?? null,
    durationMs: r.length ?? t.durationMs,
  };
}

/**
 * MusicBrainz matching with an optional deadline: past it no further search starts, and the
 * tracks not looked up yet answer `undefined` (not checked) instead of null (no recording).
 */
export class UpstreamMatcher {
  /** Searches sent to MusicBrainz by this matcher. */
  calls = 0;
  readonly available: boolean;

  constructor(
    private readonly ctx: Deps,
    private readonly options: { deadline?: number; signal?: AbortSignal } = {},
  ) {
    this.available = ctx.metadata.enabled;
  }

  private get expired(): boolean {
    return this.options.deadline !== undefined && Date.now() >= this.options.deadline;
  }

  private cached(t: SourceTrack): UpstreamMatch | null | undefined {
    const hit = this.ctx.metadata.cache.get(CACHE_KIND, cacheKey(t));
    if (!hit) return undefined;
    const age = this.ctx.clock.now() - hit.fetchedAt;
    if (hit.found ? age > FOUND_FRESH_MS : age > MISSING_FRESH_MS) return undefined;
    return hit.found ? (hit.payload as UpstreamMatch) : null;
  }

  private unsaved: [string, UpstreamMatch | null][] = [];

  private store(t: SourceTrack, m: UpstreamMatch | null): void {
    this.unsaved.push([cacheKey(t), m]);
  }

  /** One write transaction per search answer, not one per track. */
  private flush(): void {
    if (this.unsaved.length === 0) return;
    const cache = this.ctx.metadata.cache;
    const now = this.ctx.clock.now();
    const rows = this.unsaved;
    this.unsaved = [];
    this.ctx.db.transaction(() => {
      for (const [key, m] of rows) cache.put(CACHE_KIND, key, m, now);
    })();
  }

  private async search(query: string, limit = RESULT_LIMIT): Promise<{ count: number; recordings: Recording[] }> {
    this.flush();
    this.calls++;
    const answer = await this.ctx.metadata.musicbrainz().searchRecordings(query, limit, 0, this.options.signal);
    return { count: answer.count, recordings: answer.recordings as unknown as Recording[] };
  }

  /** Matches for `tracks` in order: a recording, null (none), or undefined (not checked before the deadline). */
  async match(tracks: SourceTrack[]): Promise<(UpstreamMatch | null | undefined)[]> {
    try {
      return await this.matchAll(tracks);
    } finally {
      this.flush();
    }
  }

  private async matchAll(tracks: SourceTrack[]): Promise<(UpstreamMatch | null | undefined)[]> {
    const out: (UpstreamMatch | null | undefined)[] = tracks.map(() => undefined);
    if (!this.available) return tracks.map(() => null);
    const open: number[] = [];
    tracks.forEach((t, i) => {
      const c = this.cached(t);
      if (c !== undefined) out[i] = c;
      else open.push(i);
    });

    // ISRCs name recordings exactly; the names are the fallback for what they do not find.
    const byName: number[] = [];
    const withIsrc = open.filter((i) => validIsrc(tracks[i]!.isrc));
    for (const i of open) if (!validIsrc(tracks[i]!.isrc)) byName.push(i);
    for (let at = 0; at < withIsrc.length; at += ISRC_BATCH) {
      if (this.expired) return out;
      const batch = withIsrc.slice(at, at + ISRC_BATCH);
      const { recordings } = await this.search(batch.map((i) => `isrc:${validIsrc(tracks[i]!.isrc)}`).join(' OR '));
      for (const i of batch) {
        const isrc = validIsrc(tracks[i]!.isrc)!;
        const hits = recordings.filter((r) => (r.isrcs ?? []).some((x) => x.toUpperCase() === isrc));
        const hit = hits.find((r) => creditedTo(r, tracks[i]!)) ?? hits[0];
        if (hit) {
          out[i] = toMatch(hit, tracks[i]!);
          this.store(tracks[i]!, out[i]!);
        } else byName.push(i);
      }
    }

    const retryAlone: number[] = [];
    for (let at = 0; at < byName.length; at += NAME_BATCH) {
      if (this.expired) return out;
      const batch = byName.slice(at, at + NAME_BATCH);
      const query = batch.map((i) => `(recording:${luceneQuote(plainTitle(tracks[i]!.title) || tracks[i]!.title)} AND artist:${luceneQuote(tracks[i]!.artists[0] ?? '')})`).join(' OR ');
      const { count, recordings } = await this.search(query);
      for (const i of batch) {
        const t = tracks[i]!;
        const candidates = recordings.filter((r) => sameTitle(r.title, t.title) && creditedTo(r, t));
        const hit = (t.album ? candidates.find((r) => r.releases.some((rel) => sameTitle(rel['release-group']?.title ?? rel.title, t.album!))) : undefined) ?? candidates[0];
        if (hit) {
          out[i] = toMatch(hit, t);
          this.store(t, out[i]!);
        } else if (count > recordings.length && batch.length > 1) retryAlone.push(i);
        else {
          out[i] = null;
          this.store(t, null);
        }
      }
    }
    // The batch answer was cut at its limit: these get a search of their own.
    for (const i of retryAlone) {
      if (this.expired) return out;
      const t = tracks[i]!;
      const { recordings } = await this.search(`recording:${luceneQuote(plainTitle(t.title) || t.title)} AND artist:${luceneQuote(t.artists[0] ?? '')}`, 25);
      const hit = recordings.find((r) => sameTitle(r.title, t.title) && creditedTo(r, t));
      out[i] = hit ? toMatch(hit, t) : null;
      this.store(t, out[i]!);
    }
    return out;
  }
}
