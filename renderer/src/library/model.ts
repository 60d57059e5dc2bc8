import { api } from '../api';
import type { Answer } from '../wire.js';

type CanonicalAnswer = Answer<'/api/library/canonical'>;

/** A library artist as the library routes answer it (every field of the server's artist entry). */
export type Artist = CanonicalAnswer['artists'][number];

/** A library album as the library routes answer it. */
export type Album = CanonicalAnswer['albums'][number];

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

export type Favorites = Answer<'/api/library/favorites'>;

export function loadFavorites(signal?: AbortSignal) {
  return api<Favorites>('/api/library/favorites', { ...(signal && { signal }) });
}
