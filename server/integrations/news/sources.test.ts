import { describe, expect, it } from 'vitest';
import { DEFAULT_NEWS_FEEDS, feedFetchUrl } from './sources.js';

describe('feedFetchUrl', () => {
  it('reads a built-in feed from the mirror when one is set, any other feed from its own URL', () => {
    const npr = DEFAULT_NEWS_FEEDS.find((f) => f.name === 'NPR Music')!;
    expect(feedFetchUrl(npr.url, null)).toBe(npr.url);
    expect(feedFetchUrl(npr.url, 'http://127.0.0.1:9/news-feeds/')).toBe('http://127.0.0.1:9/news-feeds/feeds.npr.org/1039/rss.xml');
    expect(feedFetchUrl('https://blog.example.org/feed?x=1', 'http://127.0.0.1:9/news-feeds')).toBe('https://blog.example.org/feed?x=1');
  });
});
