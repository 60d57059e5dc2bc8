import { api } from '../api';
import type { Answer } from '../wire.js';

/** Artist news (api.md §4.9): the types are the routes' own, generated into wire.gen.ts. */

export type News = Answer<'/api/news'>;
export type Article = News['articles'][number];
export type NewsRefresh = News['refresh'];
type NewsPreferences = Answer<'/api/news/preferences'>;

export const NEWS_PAGE = 60;
export const NEWS_MAX = 100;

type Signal = { signal?: AbortSignal };
const opts = (signal?: AbortSignal): Signal => (signal ? { signal } : {});

export const loadNews = (limit: number, signal?: AbortSignal) => api<News>('/api/news', { query: { limit }, ...opts(signal) });
export const loadNewsPreferences = (signal?: AbortSignal) => api<NewsPreferences>('/api/news/preferences', opts(signal));
/** Replaces the whole list (PATCH semantics of the contract). */
export const saveBlockedPublishers = (blockedPublishers: string[]) => api<NewsPreferences>('/api/news/preferences', { method: 'PATCH', body: { blockedPublishers } });
/** Administrators: switch a feed off for everyone. */
export const disableFeed = (id: string) => api<Answer<'/api/news/feeds/disable', 'post'>>('/api/news/feeds/disable', { method: 'POST', body: { id } });
