import { feedId } from './feed.js';

/** A news feed the server reads: a built-in publication or one an administrator added (`custom`). */
export interface NewsSource {
  id: string;
  name: string;
  url: string;
  group: string;
}

const builtIn = (group: string, name: string, url: string): NewsSource => ({ id: feedId(url), name, url, group });

/**
 * The publications read out of the box (external-services (o)); `integrations.news.disabledFeeds`
 * switches single ones off by id, `integrations.news.feeds` adds custom ones.
 */
export const DEFAULT_NEWS_FEEDS: readonly NewsSource[] = [
  builtIn('major', 'Consequence', 'https://consequence.net/feed/'),
  builtIn('major', 'NME', 'https://www.nme.com/feed'),
  builtIn('major', 'NPR Music', 'https://feeds.npr.org/1039/rss.xml'),
  builtIn('major', 'Pitchfork', 'https://pitchfork.com/feed/feed-news/rss'),
  builtIn('major', 'The Guardian Music', 'https://www.theguardian.com/music/rss'),
  builtIn('indie', 'Stereogum', 'https://www.stereogum.com/feed/'),
  builtIn('electronic', 'Mixmag', 'https://mixmag.net/feed'),
  builtIn('metal', 'Metal Injection', 'https://metalinjection.net/feed'),
  builtIn('jazz', 'All About Jazz', 'https://www.allaboutjazz.com/rss'),
  builtIn('regional', 'Reggaeville', 'https://www.reggaeville.com/feeds/news.xml'),
  builtIn('concerts', 'JamBase', 'https://www.jambase.com/feed'),
];

/**
 * Where a feed is fetched: a built-in feed under `mirror` (`<mirror>/<host><path>`, for tests and
 * mirrors) when one is set; any other feed, and every feed without a mirror, at its own URL.
 */
export function feedFetchUrl(url: string, mirror: string | null): string {
  if (!mirror || !DEFAULT_NEWS_FEEDS.some((f) => f.url === url)) return url;
  const u = new URL(url);
  return `${mirror.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

/** The feeds to read: built-in ones not disabled, then the custom ones (group `custom`), each URL once. */
export function activeNewsFeeds(settings: { feeds: readonly { url: string; name: string }[]; disabledFeeds: readonly string[] }): NewsSource[] {
  const disabled = new Set(settings.disabledFeeds);
  const seen = new Set<string>();
  const out: NewsSource[] = [];
  const custom = settings.feeds.map((f) => ({ id: feedId(f.url), name: f.name || new URL(f.url).hostname, url: f.url, group: 'custom' }));
  for (const source of [...DEFAULT_NEWS_FEEDS, ...custom]) {
    if (disabled.has(source.id) || disabled.has(source.url) || seen.has(source.url)) continue;
    seen.add(source.url);
    out.push(source);
  }
  return out;
}
