/**
 * One search's pure rules (no DOM): what GET /api/search/unified and the playlists list answer,
 * grouped the way the search box and the results page show them — the library first (artists,
 * albums, tracks, playlists), then what can be requested from MusicBrainz.
 */

import { yearOf } from './logic';
import type { Answer } from '../wire.js';

/** GET /api/search/unified: library hits at once, MusicBrainz hits when they answered in time. */
export type Unified = Answer<'/api/search/unified'>;

export type LibraryTrackHit = NonNullable<Unified['library']['tracks']>[number];

/** A playlist as the playlists list names it (the fields search reads). */
export interface PlaylistName {
  id: string;
  name: string;
  owner?: string;
  songCount?: number;
}

/** One option of the search box: a page to open (`href`) or a library track to play (`track`). */
export interface SearchOption {
  /** Unique in the list; the option's element id is built from it. */
  key: string;
  title: string;
  sub: string;
  image: string | null;
  round: boolean;
  href?: string;
  track?: LibraryTrackHit;
}

export type GroupId = 'artists' | 'albums' | 'tracks' | 'playlists' | 'musicbrainz';

export interface SearchGroup {
  id: GroupId;
  label: string;
  options: SearchOption[];
}

export const GROUP_LABELS: Record<GroupId, string> = {
  artists: 'Artists',
  albums: 'Albums',
  tracks: 'Tracks',
  playlists: 'Playlists',
  musicbrainz: 'Request from MusicBrainz',
};

/** The playlists whose name holds every typed word (any case), names starting with the words first. */
export function matchingPlaylists<T extends PlaylistName>(playlists: readonly T[], typed: string, limit = 5): T[] {
  const words = typed.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const phrase = words.join(' ');
  const hits = playlists.filter((p) => {
    const name = p.name.toLowerCase();
    return words.every((w) => name.includes(w));
  });
  const starts = (p: T) => (p.name.toLowerCase().startsWith(phrase) ? 0 : 1);
  return hits
    .map((p, i) => ({ p, i }))
    .sort((a, b) => starts(a.p) - starts(b.p) || a.i - b.i)
    .slice(0, limit)
    .map(({ p }) => p);
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The groups of the search box, in order, empty ones left out: the library's artists, albums, tracks
 * and playlists (their library pages; a track plays), then the MusicBrainz artists and albums the
 * library does not already hold (their pages, where they can be requested).
 */
export function groupsOf(u: Unified, playlists: readonly PlaylistName[]): SearchGroup[] {
  const seen = new Set<string>();
  const artists: SearchOption[] = u.library.artists.map((a) => {
    if (a.mbid) seen.add(a.mbid);
    return { key: `la${a.id}`, href: `/library/artists/${a.id}`, title: a.name, sub: 'Artist · in your library', image: a.imageUrl, round: true };
  });
  const albums: SearchOption[] = u.library.albums.map((a) => {
    if (a.mbid) seen.add(a.mbid);
    return { key: `lb${a.id}`, href: `/library/albums/${a.id}`, title: a.title, sub: ['Album', a.artistName, a.year].filter(Boolean).join(' · '), image: a.imageUrl, round: false };
  });
  // A track with a file plays; one without (wanted, or its file went away) opens its album, which says so.
  const tracks: SearchOption[] = (u.library.tracks ?? []).map((t) => {
    const playable = t.available !== false;
    return {
      key: `lt${t.id}`,
      ...(playable ? { track: t } : { href: t.albumId ? `/library/albums/${t.albumId}` : `/library/tracks?q=${encodeURIComponent(t.title)}` }),
      title: t.title,
      sub: ['Track', t.artistName, t.albumTitle, playable ? null : 'no file yet'].filter(Boolean).join(' · '),
      image: null,
      round: false,
    };
  });
  const lists: SearchOption[] = playlists.map((p) => ({
    key: `lp${p.id}`,
    href: `/playlists/${encodeURIComponent(p.id)}`,
    title: p.name,
    sub: ['Playlist', p.owner, p.songCount === undefined ? null : count(p.songCount, 'track')].filter(Boolean).join(' · '),
    image: null,
    round: false,
  }));
  const remote: SearchOption[] = [
    ...u.remote.artists
      .filter((a) => !seen.has(a.id))
      .map((a) => ({ key: `ra${a.id}`, href: `/artist/${a.id}`, title: a.name, sub: ['Artist', a.type, a.disambiguation].filter(Boolean).join(' · '), image: null, round: true })),
    ...u.remote.albums
      .filter((a) => !seen.has(a.id))
      .map((a) => ({ key: `rb${a.id}`, href: `/release/${a.id}`, title: a.title, sub: ['Album', a.artistName, yearOf(a.releaseDate)].filter(Boolean).join(' · '), image: null, round: false })),
  ];
  const groups: SearchGroup[] = [
    { id: 'artists', label: GROUP_LABELS.artists, options: artists },
    { id: 'albums', label: GROUP_LABELS.albums, options: albums },
    { id: 'tracks', label: GROUP_LABELS.tracks, options: tracks },
    { id: 'playlists', label: GROUP_LABELS.playlists, options: lists },
    { id: 'musicbrainz', label: GROUP_LABELS.musicbrainz, options: remote },
  ];
  return groups.filter((g) => g.options.length > 0);
}

/** The next active option for an arrow key: down from none is the first, up from none the last; both wrap. */
export function moveActive(active: number, count: number, key: 'ArrowDown' | 'ArrowUp'): number {
  if (count === 0) return -1;
  if (key === 'ArrowDown') return active < 0 || active >= count - 1 ? 0 : active + 1;
  return active <= 0 ? count - 1 : active - 1;
}
