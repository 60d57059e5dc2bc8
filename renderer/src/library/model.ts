import { api } from '../api';
import type { Answer } from '../wire.js';

type CanonicalAnswer = Answer<'/api/library/canonical'>;

/** Entries of a canonical page, as the library routes present them (extra fields ignored). */
export interface Artist {
  id: number;
  name: string;
  /** MusicBrainz artist id when the tags carry one: the artist's page in the metadata layer. */
  mbid?: string | null;
  imageUrl?: string | null;
  /** albumCount: its own albums; appearsOnCount: other artists' albums it has tracks on (compilations). */
  statistics?: { albumCount?: number; appearsOnCount?: number; trackCount?: number };
  userFavorite?: boolean;
}

export interface Album {
  id: number;
  title: string;
  /** MusicBrainz release-group id when known: the release page in the metadata layer. */
  mbid?: string | null;
  artistId?: number | null;
  artistName?: string;
  year?: number | null;
  imageUrl?: string | null;
  statistics?: { trackCount?: number };
  userFavorite?: boolean;
}

/** A library track as the library routes answer it (every field of the server's track entry). */
export type LibraryTrack = CanonicalAnswer['tracks'][number];

/**
 * What the track lists and the player take: a library track, or one built from what a flow's job or
 * a Discover preview knows (the id, title and artist, and those of the library's fields it has).
 */
export type Track = Pick<LibraryTrack, 'id' | 'title' | 'artistName'> &
  Partial<Pick<LibraryTrack, 'artistId' | 'albumId' | 'albumTitle' | 'trackNumber' | 'discNumber' | 'durationMs' | 'available' | 'imageUrl' | 'userFavorite' | 'replayGain'>> & {
    /** A 30-second preview from outside the library (Discover): played from this URL, never recorded or saved. */
    previewUrl?: string;
  };

export type Genre = CanonicalAnswer['genres'][number];

export type Kind = 'artists' | 'albums' | 'tracks' | 'genres';

/** The entries each kind of canonical page lists. */
export interface KindItems {
  artists: Artist;
  albums: Album;
  tracks: LibraryTrack;
  genres: Genre;
}

/** GET /api/library/canonical, its `items` being the entries of the kind asked for. */
export type CanonicalPage<K extends Kind> = Omit<CanonicalAnswer, 'kind' | 'items'> & { kind: K; items: KindItems[K][] };

export interface CanonicalParams {
  query?: string;
  genre?: string;
  artistId?: number;
  albumId?: number;
  /** Albums of other artists this artist appears on, or its tracks on them. */
  appearsOn?: number;
  sort?: string;
  direction?: 'asc' | 'desc';
}

export const PAGE_SIZE = 50;

export function canonicalPage<K extends Kind>(kind: K, page: number, params: CanonicalParams, signal?: AbortSignal, pageSize = PAGE_SIZE) {
  return api<CanonicalPage<K>>('/api/library/canonical', {
    query: { kind, page, pageSize, ...params },
    ...(signal && { signal }),
  });
}

/** Artwork at a given pixel size through the image proxy; the server picks the nearest cached size. */
export function artworkUrl(imageUrl: string | null | undefined, size: number): string | null {
  if (!imageUrl) return null;
  return `${imageUrl}${imageUrl.includes('?') ? '&' : '?'}size=${size}`;
}

export type FavoriteKind = 'artist' | 'album' | 'track';

export function setFavorite(kind: FavoriteKind, id: number, favorite: boolean) {
  return api<unknown>('/api/library/favorites', { method: 'POST', body: { kind, id, favorite } });
}

export interface Favorites {
  artists: Artist[];
  albums: Album[];
  tracks: LibraryTrack[];
}

export function loadFavorites(signal?: AbortSignal) {
  return api<Favorites>('/api/library/favorites', { ...(signal && { signal }) });
}
