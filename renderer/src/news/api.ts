import { api } from '../api';

/** Artist news (api.md §4.9) as server/api/news/routes.ts answers it. */

export interface Article {
  id: number;
  title: string;
  description: string | null;
  url: string | null;
  /** The publisher. */
  source: string;
  feedId: string;
  publishedAt: string;
  imageUrl: string | null;
  artists: { id: number; name: string }[];
}

export interface NewsRefresh {
  checkedArtistCount: number;
  queuedArtistCount: number;
  callsRemaining: number;
  /** A NewsAPI key is set: the call budget and the NewsAPI search queue apply. */
  newsApiConfigured?: boolean;
  checkedAt?: string | null;
  isRefreshing?: boolean;
  failedFeeds?: { id: string; name: string; error: string }[];
  warning?: string;
}

export interface News {
  configured: boolean;
  articles: Article[];
  hasMore: boolean;
  refresh: NewsRefresh;
}

export const NEWS_PAGE = 60;
export const NEWS_MAX = 100;

type Signal = { signal?: AbortSignal };
const opts = (signal?: AbortSignal): Signal => (signal ? { signal } : {});

export const loadNews = (limit: number, signal?: AbortSignal) => api<News>('/api/news', { query: { limit }, ...opts(signal) });
export const loadNewsPreferences = (signal?: AbortSignal) => api<{ blockedPublishers: string[] }>('/api/news/preferences', opts(signal));
/** Replaces the whole list (PATCH semantics of the contract). */
export const saveBlockedPublishers = (blockedPublishers: string[]) => api<{ blockedPublishers: string[] }>('/api/news/preferences', { method: 'PATCH', body: { blockedPublishers } });
/** Administrators: switch a feed off for everyone. */
export const disableFeed = (id: string) => api<{ success: boolean; id: string; disabledFeeds: string[] }>('/api/news/feeds/disable', { method: 'POST', body: { id } });
