import { ApiError, api } from '../api';
import type { Answer } from '../wire.js';
import type { ReleaseGroupEntry, ResolvedLink, SearchScope } from './logic';

export { isHttpLink, yearOf, type ReleaseGroupEntry, type ResolvedLink, type SearchScope } from './logic';

/** The metadata layer's answers (api.md 4.6, 4.7): the routes' own types, generated into wire.gen.ts. */

export type ArtistDetail = Answer<'/api/artists/{mbid}'>;
export type ReleaseGroupDetail = Answer<'/api/artists/release-group/{mbid}'>;
export type ArtistCredit = ReleaseGroupDetail['artist-credit'][number];
type ReleaseTracks = Answer<'/api/artists/release-group/{mbid}/tracks'>;
export type ReleaseTrack = ReleaseTracks['tracks'][number];
export type SearchPage = Answer<'/api/search'>;
type SearchHit = SearchPage['items'][number];
export type ArtistHit = Extract<SearchHit, { name: string }>;
export type AlbumHit = Extract<SearchHit, { title: string }>;
/** Deezer top tracks of an artist with their 30-second previews. */
export type PreviewTrack = Answer<'/api/artists/{mbid}/preview'>['tracks'][number];
export type SimilarArtist = Answer<'/api/artists/{mbid}/similar'>['artists'][number];

type Signal = { signal?: AbortSignal };
const opts = (signal?: AbortSignal): Signal => (signal ? { signal } : {});

/** `core` answers without the appearances on other artists' releases (the slow part). */
export const loadArtist = (mbid: string, mode: 'core' | 'full', signal?: AbortSignal) =>
  api<ArtistDetail>(`/api/artists/${encodeURIComponent(mbid)}`, { query: { mode }, ...opts(signal) });
export const loadReleaseGroup = (mbid: string, signal?: AbortSignal) =>
  api<ReleaseGroupDetail>(`/api/artists/release-group/${encodeURIComponent(mbid)}`, opts(signal));
export const loadReleaseTracks = (mbid: string, signal?: AbortSignal) =>
  api<ReleaseTracks>(`/api/artists/release-group/${encodeURIComponent(mbid)}/tracks`, opts(signal));

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
  optional(async () => (await api<Answer<'/api/artists/{mbid}/similar'>>(`/api/artists/${encodeURIComponent(mbid)}/similar`, opts(signal))).artists);

export const loadPreviews = (mbid: string, signal?: AbortSignal) =>
  optional(async () => (await api<Answer<'/api/artists/{mbid}/preview'>>(`/api/artists/${encodeURIComponent(mbid)}/preview`, opts(signal))).tracks);

export const loadArtistCover = (mbid: string, signal?: AbortSignal) =>
  optional(async () => {
    const body = await api<Answer<'/api/artists/{mbid}/cover'>>(`/api/artists/${encodeURIComponent(mbid)}/cover`, opts(signal));
    return body.imageUrl ?? body.images.at(-1)?.url ?? null;
  });

/** Library albums by release-group MBID: where an "In library" marker links. */
export async function libraryAlbumIds(mbids: string[], signal?: AbortSignal): Promise<Map<string, string>> {
  if (mbids.length === 0) return new Map();
  const out = new Map<string, string>();
  for (let i = 0; i < mbids.length; i += 1000) {
    const found = await api<Answer<'/api/library/albums/lookup/batch', 'post'>>('/api/library/albums/lookup/batch', {
      method: 'POST',
      body: { mbids: mbids.slice(i, i + 1000) },
      ...opts(signal),
    });
    for (const [mbid, lookup] of Object.entries(found)) if (lookup.libraryAlbumId !== null) out.set(mbid, lookup.libraryAlbumId);
  }
  return out;
}

export interface AlbumRequest {
  albumMbid: string;
  albumName: string;
  artistMbid: string;
  artistName: string;
}

export type AlbumRequestResult = Answer<'/api/library/albums/request', 'post'>;

export const requestAlbum = (body: AlbumRequest) =>
  api<AlbumRequestResult>('/api/library/albums/request', { method: 'POST', body: { ...body, triggerSearch: true } });

