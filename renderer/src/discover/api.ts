import { api, withQuery } from '../api';
import { streamToken } from '../player/streamToken';
import type { Answer } from '../wire.js';

/** Discovery (api.md §4.8): the types are the routes' own, generated into wire.gen.ts. */

export type DiscoverView = Answer<'/api/discover'>;
export type DiscoverEntry = DiscoverView['recommendations'][number];
export type Capabilities = DiscoverView['capabilities'];
export type Preset = DiscoverView['discoverPlaylists'][number];
export type TagList = Answer<'/api/discover/tags'>;
export type TagPage = Answer<'/api/discover/by-tag'>;
export type Related = Answer<'/api/discover/related'>;
export type Feedback = Answer<'/api/discover/feedback'>['feedback'][number];
export type FeedbackKind = Feedback['kind'];
export type Preferences = Answer<'/api/discover/preferences'>;
type Previews = Answer<'/api/discover/playlists/{presetId}/previews'>;
export type PresetPreview = Previews['previews'][number];
export type NearbyShows = Answer<'/api/discover/nearby-shows'>;
export type Show = NearbyShows['shows'][number];

/** What /ws channel `discovery` says while a refresh runs (decisions §6). */
export interface DiscoveryUpdate {
  userId: number | null;
  isUpdating: boolean;
  updatePhase: string | null;
  updateProgress: number | null;
  updateProgressMessage: string | null;
  lastUpdated?: string | null;
  recommendationsCount?: number;
}

type Signal = { signal?: AbortSignal };
const opts = (signal?: AbortSignal): Signal => (signal ? { signal } : {});

export const PAGE = 24;

export const loadDiscover = (offset: number, signal?: AbortSignal) => api<DiscoverView>('/api/discover', { query: { limit: PAGE, offset }, ...opts(signal) });
export const refreshDiscover = () => api<Answer<'/api/discover/refresh', 'post'>>('/api/discover/refresh', { method: 'POST' });
export const loadTags = (signal?: AbortSignal) => api<TagList>('/api/discover/tags', opts(signal));
export const loadByTag = (tag: string, offset: number, signal?: AbortSignal) => api<TagPage>('/api/discover/by-tag', { query: { tag, limit: PAGE, offset }, ...opts(signal) });
export const loadRelated = (artist: { name: string; id: string | null }, signal?: AbortSignal) =>
  api<Related>('/api/discover/related', { query: { artist: artist.name, mbid: artist.id, limit: 12 }, ...opts(signal) });
export const loadSeedSections = (signal?: AbortSignal) => api<Related>('/api/discover/related', { query: { limit: 8 }, ...opts(signal) });

export const loadFeedback = (signal?: AbortSignal) => api<Answer<'/api/discover/feedback'>>('/api/discover/feedback', opts(signal));
export const sendFeedback = (artist: { name: string; id: string | null }, kind: FeedbackKind) =>
  api<Answer<'/api/discover/feedback', 'post'>>('/api/discover/feedback', { method: 'POST', body: { artistName: artist.name, artistMbid: artist.id, kind } });
export const deleteFeedback = (id: number) => api<Answer<'/api/discover/feedback/{id}', 'delete'>>(`/api/discover/feedback/${id}`, { method: 'DELETE' });
export const resetFeedback = () => api<Answer<'/api/discover/feedback/reset', 'post'>>('/api/discover/feedback/reset', { method: 'POST' });

export const loadPreferences = (signal?: AbortSignal) => api<Preferences>('/api/discover/preferences', opts(signal));
export const savePreferences = (patch: Partial<Preferences>) => api<Preferences>('/api/discover/preferences', { method: 'POST', body: patch });
export const resetPreferences = () => api<Preferences>('/api/discover/preferences/reset', { method: 'POST' });

export const loadPreviews = (presetId: string, signal?: AbortSignal) =>
  api<Previews>(`/api/discover/playlists/${encodeURIComponent(presetId)}/previews`, opts(signal));

export const loadNearbyShows = (location: string, signal?: AbortSignal) => api<NearbyShows>('/api/discover/nearby-shows', { query: { location, limit: 30 }, ...opts(signal) });

/** A preset's generated cover: a media route, so an <img> carries a stream token. */
export async function presetArtworkUrl(presetId: string, size: number): Promise<string> {
  const { token } = await streamToken();
  return withQuery(`/api/discover/artwork/${encodeURIComponent(presetId)}`, { size, st: token });
}
