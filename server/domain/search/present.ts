import type { AlbumRow } from '../../db/libraryReads.js';
import type { MbArtist, MbReleaseGroup } from '../../integrations/musicbrainz/schemas.js';

/** api.md "Search artist entry". */
export interface SearchArtistEntry {
  id: string;
  name: string;
  type: string;
  /** Null until artist images exist (Deezer/Last.fm enrichment). */
  image: string | null;
  tags: string[];
  inLibrary: boolean;
  disambiguation: string;
  country: string | null;
  score: number;
}

/**
 * Library state of an album, in the words of POST /api/library/albums/lookup/batch (`complete`,
 * `partial`, `missing`), and `not_in_library` when the library has no such album.
 */
export type AlbumLibraryStatus = 'complete' | 'partial' | 'missing' | 'not_in_library';

/** api.md "Search album entry". */
export interface SearchAlbumEntry {
  id: string;
  title: string;
  artistName: string;
  artistId: string | null;
  type: string;
  secondaryTypes: string[];
  releaseDate: string | null;
  status: AlbumLibraryStatus;
  inLibrary: boolean;
  score: number;
}

export function libraryStatus(album: AlbumRow | undefined): AlbumLibraryStatus {
  if (!album) return 'not_in_library';
  if (album.available_track_count === 0) return 'missing';
  return album.available_track_count < album.track_count ? 'partial' : 'complete';
}

const byCount = <T extends { name: string; count?: number }>(list: T[] | undefined) =>
  [...(list ?? [])].sort((a, b) => (b.count ?? 0) - (a.count ?? 0)).map((t) => t.name);

export function artistEntry(a: MbArtist, inLibrary: boolean): SearchArtistEntry {
  return {
    id: a.id,
    name: a.name,
    type: a.type ?? 'Other',
    image: null,
    tags: byCount(a.tags).slice(0, 10),
    inLibrary,
    disambiguation: a.disambiguation ?? '',
    country: a.country ?? null,
    score: a.score ?? 0,
  };
}

export function albumEntry(g: MbReleaseGroup, owned: AlbumRow | undefined): SearchAlbumEntry {
  const credit = g['artist-credit'] ?? [];
  return {
    id: g.id,
    title: g.title,
    artistName: credit.map((c) => c.name + (c.joinphrase ?? '')).join(''),
    artistId: credit[0]?.artist.id ?? null,
    type: g['primary-type'] ?? 'Other',
    secondaryTypes: g['secondary-types'] ?? [],
    releaseDate: g['first-release-date'] || null,
    status: libraryStatus(owned),
    inLibrary: owned !== undefined,
    score: g.score ?? 0,
  };
}
