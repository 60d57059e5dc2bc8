import type { ReplayGainValues } from '../player/replayGain';
import { api } from '../api';

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

export interface Track {
  id: number;
  title: string;
  artistName: string;
  artistId?: number | null;
  albumId?: number | null;
  albumTitle?: string | null;
  trackNumber?: number;
  discNumber?: number;
  durationMs?: number;
  available?: boolean;
  imageUrl?: string | null;
  userFavorite?: boolean;
  /** A 30-second preview from outside the library (Discover): played from this URL, never recorded or saved. */
  previewUrl?: string;
  /** The library's ReplayGain values (decisions §12), applied by the player. */
  replayGain?: ReplayGainValues;
}

export interface Genre {
  id: number;
  name: string;
  artistCount: number;
  albumCount: number;
  trackCount: number;
}

export type Kind = 'artists' | 'albums' | 'tracks' | 'genres';

export interface CanonicalPage<T> {
  kind: Kind;
  page: number;
  pageSize: number;
  total: number;
  hasMore: boolean;
  items: T[];
}

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

export function canonicalPage<T>(kind: Kind, page: number, params: CanonicalParams, signal?: AbortSignal, pageSize = PAGE_SIZE) {
  return api<CanonicalPage<T>>('/api/library/canonical', {
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
  tracks: Track[];
}

export function loadFavorites(signal?: AbortSignal) {
  return api<Favorites>('/api/library/favorites', { ...(signal && { signal }) });
}
