import type { AlbumRow, ArtistRow, TrackRow } from '../../db/libraryReads.js';
import type { SearchAlbumEntry, SearchArtistEntry } from './present.js';
import type { LibraryService } from '../library/service.js';
import type { MetadataService } from '../metadata/service.js';
import type { SearchService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  {
    library: LibraryService;
    metadata: MetadataService;
    search: SearchService;
    searchCallers: Map<string, AbortController>;
  };

/** How long suggestions wait for MusicBrainz before answering with the library part alone. */
export const REMOTE_BUDGET_MS = 1500;
/** A failed MusicBrainz search this recent, with no success since, means it is down. */
const OUTAGE_WINDOW_MS = 60_000;
/**
 * The wait while MusicBrainz is down: long enough for an answer from the search cache, too short to
 * hold every keystroke for REMOTE_BUDGET_MS while the searches retry (their answers still land in
 * the cache once MusicBrainz is back).
 */
const OUTAGE_BUDGET_MS = 50;

/**
 * `complete`: MusicBrainz answered in time; `pending`: it is still working (the answer lands in the
 * search cache, so asking again shortly gets it); `unavailable`: it failed, or it is still retrying
 * after the latest searches failed; `disabled`: MusicBrainz
 * lookups are switched off in Settings.
 */
export type RemoteStatus = 'complete' | 'pending' | 'unavailable' | 'disabled';

const imageUrl = (key: string | null) => (key ? `/api/image-proxy/${key}` : null);

export interface UnifiedAnswer {
  query: string;
  library: {
    artists: { id: string; name: string; mbid: string | null; imageUrl: string | null }[];
    albums: { id: string; title: string; artistName: string; mbid: string | null; year: number | null; imageUrl: string | null }[];
    tracks: { id: string; title: string; artistName: string; albumId: string | null; albumTitle: string | null; available: boolean }[];
  };
  remote: { status: RemoteStatus; artists: SearchArtistEntry[]; albums: SearchAlbumEntry[] };
}

/**
 * As-you-type suggestions: the library's own names first (names starting with the words typed, then
 * other full-text matches; LibraryReader.suggest), then
 * MusicBrainz artists and albums when they arrive within REMOTE_BUDGET_MS (OUTAGE_BUDGET_MS while it is down).
 */
/** Per server and caller, the controller of the caller's latest suggestion request. */

/**
 * `caller` names who is typing (a user or API key): their newer request drops the MusicBrainz
 * searches of their older ones that are still waiting for a turn, so a word typed letter by letter
 * does not queue a search per letter at MusicBrainz's 1 request/s.
 */
export async function unifiedSearch(ctx: Deps, q: string, limit: number, caller: string, budgetMs = REMOTE_BUDGET_MS): Promise<UnifiedAnswer> {
  const library = ctx.library;
  const local: UnifiedAnswer['library'] = {
    artists: library.suggest('artists', q, limit).map((a) => ({ id: String(a.id), name: a.name, mbid: a.mbid, imageUrl: imageUrl(a.image_key) })),
    albums: library.suggest('albums', q, limit).map((a) => ({
      id: String(a.id), title: a.title, artistName: a.album_artist, mbid: a.mbid, year: a.year || null, imageUrl: imageUrl(a.image_key),
    })),
    tracks: library.suggest('tracks', q, limit).map((t) => ({
      id: String(t.id), title: t.title, artistName: t.artist_name, albumId: t.album_id === null ? null : String(t.album_id), albumTitle: t.album_title,
      available: t.available === 1,
    })),
  };
  if (!ctx.metadata.enabled) return { query: q, library: local, remote: { status: 'disabled', artists: [], albums: [] } };

  const search = ctx.search;
  const callers = ctx.searchCallers;
  callers.get(caller)?.abort();
  const mine = new AbortController();
  callers.set(caller, mine);
  const common = { q, limit, offset: 0, releaseTypes: [], sort: 'relevance' as const };
  const upstream = { upstream: mine.signal };
  const remote = Promise.all([search.search({ ...common, scope: 'artist' }, upstream), search.search({ ...common, scope: 'album' }, upstream)]);
  let timer: NodeJS.Timeout | undefined;
  const wait = search.failingSince(OUTAGE_WINDOW_MS) ? Math.min(budgetMs, OUTAGE_BUDGET_MS) : budgetMs;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), wait)));
  try {
    const outcome = await Promise.race([remote, late]);
    if (outcome === 'late') {
      remote.catch(() => undefined);
      // Still waiting while the last searches failed: an outage (retries and back-off), not slowness.
      const status = search.failingSince(OUTAGE_WINDOW_MS) ? 'unavailable' : 'pending';
      return { query: q, library: local, remote: { status, artists: [], albums: [] } };
    }
    const [artists, albums] = outcome;
    return {
      query: q,
      library: local,
      remote: { status: 'complete', artists: artists.items as SearchArtistEntry[], albums: albums.items as SearchAlbumEntry[] },
    };
  } catch {
    // Superseded by the caller's next keystroke: that request carries the answer.
    const status = mine.signal.aborted ? 'pending' : 'unavailable';
    return { query: q, library: local, remote: { status, artists: [], albums: [] } };
  } finally {
    clearTimeout(timer);
    remote.finally(() => {
      if (callers.get(caller) === mine) callers.delete(caller);
    }).catch(() => undefined);
  }
}
