/** Pure helpers of the News screen (only the import-free time formatter, so unit tests run them on plain Node). */
import { dateTime } from '../time.js';

/** The articles without those of the blocked publishers (compared without case, as the server does). */
export function withoutPublishers<T extends { source: string }>(articles: T[], blocked: string[]): T[] {
  const gone = new Set(blocked.map((p) => p.trim().toLowerCase()));
  return articles.filter((a) => !gone.has(a.source.trim().toLowerCase()));
}

/** Newest first; the same moment keeps the server's order. */
export function newestFirst<T extends { publishedAt: string }>(articles: T[]): T[] {
  return articles
    .map((a, i) => ({ a, i, t: Date.parse(a.publishedAt) || 0 }))
    .sort((x, y) => y.t - x.t || x.i - y.i)
    .map((x) => x.a);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * "Checked 120 artists · 30 waiting for a NewsAPI search · 87 NewsAPI calls left today" and the
 * refresh state; the NewsAPI parts only when a NewsAPI key is set (the feeds have no budget).
 */
export function refreshLine(r: { checkedArtistCount: number; queuedArtistCount: number; callsRemaining: number; newsApiConfigured?: boolean; checkedAt?: string | null; isRefreshing?: boolean }): string {
  const parts = [`Checked ${plural(r.checkedArtistCount, 'artist')}`];
  if (r.newsApiConfigured === true) {
    if (r.queuedArtistCount > 0) parts.push(`${plural(r.queuedArtistCount, 'artist')} waiting for a NewsAPI search`);
    parts.push(`${plural(r.callsRemaining, 'NewsAPI call')} left in the last 24 hours' budget`);
  }
  if (r.isRefreshing) parts.push('reading the feeds now');
  else if (r.checkedAt) parts.push(`last read ${dateTime(r.checkedAt)}`);
  return parts.join(' · ');
}
