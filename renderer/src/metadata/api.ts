import { ApiError, api } from '../api';
import { listOf, type ReleaseGroupEntry, type ResolvedLink, type SearchScope } from './logic';

export { isHttpLink, yearOf, type ReleaseGroupEntry, type ResolvedLink, type SearchScope } from './logic';

/** The metadata layer's answers (api.md 4.6, 4.7), as server/api/artists/routes.ts presents them. */

export interface ArtistDetail {
  id: string;
  name: string;
  sortName: string;
  type: string | null;
  country: string | null;
  disambiguation: string;
  lifeSpan: { begin: string | null; end: string | null };
  tags: string[];
  genres: string[];
  links: { type: string; url: string }[];
  'release-groups': ReleaseGroupEntry[];
  'appears-on-release-groups': ReleaseGroupEntry[];
  appearsOnLoaded: boolean;
  inLibrary: boolean;
  libraryArtistId: string | null;
}

export interface ArtistCredit {
  name: string;
  joinphrase: string;
  artist: { id: string; name: string };
}

export interface ReleaseGroupDetail {
  id: string;
  title: string;
  'primary-type': string;
  'secondary-types': string[];
  'first-release-date': string | null;
  'artist-credit': ArtistCredit[];
  releases: { id: string; title: string; status: string | null; date: string | null; country: string | null }[];
  genres: string[];
  tags: string[];
  rating: number | null;
  coverUrl: string | null;
  overview: string;
  inLibrary: boolean;
}

export interface ReleaseTrack {
  id: string;
  mbid: string;
  title: string;
  trackNumber: number;
  number: string;
  discNumber: number;
  durationMs: number | null;
  artistName: string;
  inLibrary: boolean;
}

export interface ArtistHit {
  id: string;
  name: string;
  type?: string | null;
  image?: string | null;
  tags?: string[];
  inLibrary?: boolean;
  disambiguation?: string | null;
  country?: string | null;
  score?: number;
}

export interface AlbumHit {
  id: string;
  title: string;
  artistName?: string;
  artistId?: string | null;
  type?: string | null;
  secondaryTypes?: string[];
  releaseDate?: string | null;
  status?: string | null;
  inLibrary?: boolean;
  score?: number;
}

export interface SearchPage {
  scope: SearchScope;
  query: string;
  count: number;
  offset: number;
  items: (ArtistHit | AlbumHit)[];
}

/** Deezer top tracks of an artist with their 30-second previews; the shape is read leniently. */
export interface PreviewTrack {
  id?: string | number;
  title: string;
  preview?: string | null;
  previewUrl?: string | null;
  durationMs?: number | null;
  duration?: number | null;
  album?: string | { title?: string; coverUrl?: string | null } | null;
}

export interface SimilarArtist {
  id?: string | null;
  mbid?: string | null;
  name: string;
  image?: string | null;
  imageUrl?: string | null;
  match?: number | null;
  inLibrary?: boolean;
  libraryArtistId?: string | null;
}

type Signal = { signal?: AbortSignal };
const opts = (signal?: AbortSignal): Signal => (signal ? { signal } : {});

/** `core` answers without the appearances on other artists' releases (the slow part). */
export const loadArtist = (mbid: string, mode: 'core' | 'full', signal?: AbortSignal) =>
  api<ArtistDetail>(`/api/artists/${encodeURIComponent(mbid)}`, { query: { mode }, ...opts(signal) });
export const loadReleaseGroup = (mbid: string, signal?: AbortSignal) =>
  api<ReleaseGroupDetail>(`/api/artists/release-group/${encodeURIComponent(mbid)}`, opts(signal));
export const loadReleaseTracks = (mbid: string, signal?: AbortSignal) =>
  api<{ releaseId: string; tracks: ReleaseTrack[] }>(`/api/artists/release-group/${encodeURIComponent(mbid)}/tracks`, opts(signal));

export const SEARCH_PAGE = 24;

export const search = (q: string, scope: SearchScope, offset: number, signal?: AbortSignal) =>
  api<SearchPage>('/api/search', { query: { q, scope, limit: SEARCH_PAGE, offset }, ...opts(signal) });

export const resolveLink = (url: string, signal?: AbortSignal) => api<ResolvedLink>('/api/search/link', { query: { url }, ...opts(signal) });

/**
 * An optional enrichment: null when its route is missing or has nothing (404), or the upstream is
 * down (409/502/503), so the section it feeds simply does not appear.
 */
export async function optional<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof ApiError && [404, 409, 501, 502, 503, 504].includes(err.status)) return null;
    throw err;
  }
}

export const loadSimilar = (mbid: string, signal?: AbortSignal) =>
  optional(async () => listOf<SimilarArtist>(await api<unknown>(`/api/artists/${encodeURIComponent(mbid)}/similar`, opts(signal)), 'artists', 'similar', 'items'));

export const loadPreviews = (mbid: string, signal?: AbortSignal) =>
  optional(async () => listOf<PreviewTrack>(await api<unknown>(`/api/artists/${encodeURIComponent(mbid)}/preview`, opts(signal)), 'tracks', 'items', 'data'));

export const loadArtistCover = (mbid: string, signal?: AbortSignal) =>
  optional(async () => {
    const body = await api<Record<string, unknown> | null>(`/api/artists/${encodeURIComponent(mbid)}/cover`, opts(signal));
    if (typeof body?.imageUrl === 'string') return body.imageUrl;
    const images = listOf<{ url?: string }>(body, 'images');
    return images.at(-1)?.url ?? null;
  });

/** Library albums by release-group MBID: where an "In library" marker links. */
export async function libraryAlbumIds(mbids: string[], signal?: AbortSignal): Promise<Map<string, string>> {
  if (mbids.length === 0) return new Map();
  const out = new Map<string, string>();
  for (let i = 0; i < mbids.length; i += 1000) {
    const found = await api<Record<string, { libraryAlbumId: string }>>('/api/library/albums/lookup/batch', {
      method: 'POST',
      body: { mbids: mbids.slice(i, i + 1000) },
      ...opts(signal),
    });
    for (const [mbid, lookup] of Object.entries(found)) out.set(mbid, lookup.libraryAlbumId);
  }
  return out;
}

export interface AlbumRequest {
  albumMbid: string;
  albumName: string;
  artistMbid: string;
  artistName: string;
}

export interface AlbumRequestResult {
  success: boolean;
  createdArtist: boolean;
  createdAlbum: boolean;
  queued: boolean;
  status?: string;
  /** `aurral` when Tonearm downloads it itself; `lidarr` when Lidarr does. */
  managedBy?: string;
  /** Self-managed albums: where the request stands, and what is needed when it cannot go on. */
  albumStatus?: { status: string; recovery?: { code: string; message: string } | null };
}

export const requestAlbum = (body: AlbumRequest) =>
  api<AlbumRequestResult>('/api/library/albums/request', { method: 'POST', body: { ...body, triggerSearch: true } });

