import { api, withQuery } from '../api';
import { streamToken } from '../player/streamToken';

/** Discovery (api.md §4.8) as server/api/discover/routes.ts answers it. */

export interface DiscoverEntry {
  /** The artist's MusicBrainz id, when known. */
  id: string | null;
  name: string;
  type: string;
  image: string | null;
  tags: string[];
  inLibrary: boolean;
  source?: string;
  score?: number;
  basedOn?: string[];
  listeners?: number | null;
}

export interface Capabilities {
  arbitraryTagSearch: boolean;
  flows: { discover: boolean; focus: boolean; mix: boolean; trending: boolean };
  genreSections: boolean;
  globalTrending: boolean;
  personalizedRecommendations: boolean;
  relatedArtists: boolean;
}

export interface Preset {
  id: string;
  name: string;
  description: string;
  tags: string[];
  artworkUrl?: string;
}

export interface DiscoverView {
  recommendations: DiscoverEntry[];
  globalTop: DiscoverEntry[];
  basedOn: { id?: string | null; name: string; source: string }[];
  topTags: string[];
  topGenres: string[];
  recommendationCount: number;
  lastUpdated: string | null;
  configured: boolean;
  provider: string;
  capabilities: Capabilities;
  isUpdating: boolean;
  stale: boolean;
  /** Why the last update did not finish, in words. */
  lastError?: string | null;
  discoverPlaylists: Preset[];
  fallbackGenres: { name: string; artists: DiscoverEntry[] }[];
}

export interface TagList {
  tags: { name: string; weight: number }[];
  genres: string[];
  cachedTags: string[];
  arbitraryTagSearch: boolean;
}

export interface TagPage {
  tag: string;
  items: DiscoverEntry[];
  total: number;
  limit: number;
  offset: number;
}

export interface Related {
  artist: string | null;
  items: DiscoverEntry[];
  sections: { seed?: { id: string | null; name: string; source: string }; artists: DiscoverEntry[] }[];
}

export type FeedbackKind = 'more' | 'less';
export interface Feedback {
  id: number;
  artistName: string;
  artistMbid: string | null;
  kind: FeedbackKind;
  createdAt: string;
}

export interface Preferences {
  excludedTags: string[];
  excludedArtists: string[];
  deepDive: boolean;
}

export interface PresetPreview {
  artistName: string;
  trackTitle: string;
  previewUrl: string;
  deezerTrackId: number;
  albumTitle: string | null;
  cover: string | null;
}

export interface Show {
  id: string;
  name: string;
  url: string | null;
  date: string | null;
  time: string | null;
  dateTime: string | null;
  venue: { name: string; city: string | null; region: string | null; countryCode: string | null } | null;
  distance: number | null;
  units: string | null;
  imageUrl: string | null;
  artists: { name: string; mbid: string | null; libraryArtistId: number | null }[];
  inLibrary: boolean;
}

export interface NearbyShows {
  configured: boolean;
  message?: string;
  location: { label: string; source: string } | null;
  radiusMiles: number;
  shows: Show[];
  libraryShowCount: number;
  total: number;
  cachedAt: string | null;
  stale: boolean;
}

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
export const refreshDiscover = () => api<{ queued: boolean; isUpdating: boolean }>('/api/discover/refresh', { method: 'POST' });
export const loadTags = (signal?: AbortSignal) => api<TagList>('/api/discover/tags', opts(signal));
export const loadByTag = (tag: string, offset: number, signal?: AbortSignal) => api<TagPage>('/api/discover/by-tag', { query: { tag, limit: PAGE, offset }, ...opts(signal) });
export const loadRelated = (artist: { name: string; id: string | null }, signal?: AbortSignal) =>
  api<Related>('/api/discover/related', { query: { artist: artist.name, mbid: artist.id, limit: 12 }, ...opts(signal) });
export const loadSeedSections = (signal?: AbortSignal) => api<Related>('/api/discover/related', { query: { limit: 8 }, ...opts(signal) });

export const loadFeedback = (signal?: AbortSignal) => api<{ feedback: Feedback[] }>('/api/discover/feedback', opts(signal));
export const sendFeedback = (artist: { name: string; id: string | null }, kind: FeedbackKind) =>
  api<{ success: boolean; feedback: Feedback; removed: number }>('/api/discover/feedback', { method: 'POST', body: { artistName: artist.name, artistMbid: artist.id, kind } });
export const deleteFeedback = (id: number) => api<{ success: boolean }>(`/api/discover/feedback/${id}`, { method: 'DELETE' });
export const resetFeedback = () => api<{ success: boolean; removed: number }>('/api/discover/feedback/reset', { method: 'POST' });

export const loadPreferences = (signal?: AbortSignal) => api<Preferences>('/api/discover/preferences', opts(signal));
export const savePreferences = (patch: Partial<Preferences>) => api<Preferences>('/api/discover/preferences', { method: 'POST', body: patch });
export const resetPreferences = () => api<Preferences>('/api/discover/preferences/reset', { method: 'POST' });

export const loadPreviews = (presetId: string, signal?: AbortSignal) =>
  api<{ presetId: string; name: string; previews: PresetPreview[]; problem?: string }>(`/api/discover/playlists/${encodeURIComponent(presetId)}/previews`, opts(signal));

export const loadNearbyShows = (location: string, signal?: AbortSignal) => api<NearbyShows>('/api/discover/nearby-shows', { query: { location, limit: 30 }, ...opts(signal) });

/** A preset's generated cover: a media route, so an <img> carries a stream token. */
export async function presetArtworkUrl(presetId: string, size: number): Promise<string> {
  const { token } = await streamToken();
  return withQuery(`/api/discover/artwork/${encodeURIComponent(presetId)}`, { size, st: token });
}
