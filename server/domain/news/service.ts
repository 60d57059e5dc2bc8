import { libraryArtistsForNews, NewsRepository } from '../../db/news.js';
import { IntegrationError } from '../../integrations/errors.js';
import { fetchArticleImage } from '../../integrations/news/ogImage.js';
import { feedId } from '../../integrations/news/feed.js';
import { DEFAULT_NEWS_FEEDS, type NewsSource } from '../../integrations/news/sources.js';
import { NotConfiguredError } from '../errors.js';
import { allowedPrivateTargets, type Deps as NetworkPrivateTargetsDeps } from '../network/privateTargets.js';
import { RequestBudget } from './budget.js';
import { ArtistMatcher, nameStrength, type MatchableArtist } from './matcher.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryProviders } from '../discovery/providers.js';
import type { RemoteImages } from '../metadata/remoteImages.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'scheduler'>
  & {
    settings: SettingsStore;
    discoveryProviders: DiscoveryProviders;
    news: NewsService;
    remoteImages: RemoteImages;
  }
  & NetworkPrivateTargetsDeps;

export const NEWS_QUEUE = 'news-refresh';
export const NEWS_TASK = 'news-refresh';
/** A refresh older than this is redone when someone reads the news. */
export const NEWS_STALE_MS = 15 * 60_000;
/** An artist is searched on NewsAPI again after this long. */
export const ARTIST_RECHECK_MS = 6 * 3600_000;
/** NewsAPI searches per refresh at most (the rest wait for the next refresh). */
export const ARTISTS_PER_REFRESH = 25;
/** Articles kept: the newest, at most this many, none older than the age limit. */
export const MAX_ARTICLES = 5000;
export const MAX_ARTICLE_AGE_MS = 30 * 86_400_000;
/** Article pages fetched per refresh for a picture when the feed names none. */
const IMAGE_LOOKUPS_PER_REFRESH = 20;
const FEED_CONCURRENCY = 3;
export const NEWSAPI = 'newsapi';

export interface NewsArticle {
  id: number;
  title: string;
  description: string | null;
  url: string | null;
  source: string;
  feedId: string;
  publishedAt: string;
  /** The picture through this server's image proxy. */
  imageUrl: string | null;
  artists: { id: number; name: string }[];
}

export interface NewsRefreshInfo {
  checkedArtistCount: number;
  queuedArtistCount: number;
  callsRemaining: number;
  /** A NewsAPI key is set, so the call budget applies (the feeds have none). */
  newsApiConfigured: boolean;
  checkedAt: string | null;
  isRefreshing: boolean;
  failedFeeds: { id: string; name: string; error: string }[];
  warning?: string;
}

interface Candidate {
  feedId: string;
  publisher: string;
  title: string;
  summary: string | null;
  url: string | null;
  guid: string;
  imageUrl: string | null;
  publishedAt: number | null;
  categories: string[];
}

/** The article's link without its fragment and tracking parameters: the same story from two feeds is one row. */
export function dedupeKeyOf(c: { url: string | null; feedId: string; guid: string }): string {
  if (c.url) {
    try {
      const u = new URL(c.url);
      u.hash = '';
      for (const k of [...u.searchParams.keys()]) if (/^(utm_|fbclid$|gclid$|mc_)/i.test(k)) u.searchParams.delete(k);
      return `${u.protocol}//${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}${u.search}`;
    } catch {
      /* fall through */
    }
  }
  return `${c.feedId}:${c.guid}`;
}

export class NewsService {
  readonly budget: RequestBudget;
  private readonly repo: NewsRepository;
  private running: Promise<void> | null = null;

  constructor(private readonly ctx: Deps) {
    this.budget = new RequestBudget(ctx.db, ctx.clock);
    this.repo = new NewsRepository(ctx.db);
  }

  private settings() {
    return this.ctx.settings.get().integrations.news;
  }

  /** The whole feature switched off by the administrator: 409 NOT_CONFIGURED. */
  assertEnabled(): void {
    if (!this.settings().enabled) throw new NotConfiguredError('integrations.news.enabled', 'Artist news is switched off in Settings (integrations.news.enabled)');
  }

  /** Something to read: a feed that is not disabled or a NewsAPI key. */
  configured(): boolean {
    const providers = this.ctx.discoveryProviders;
    return providers.newsFeeds().length > 0 || providers.newsapi() !== null;
  }

  callsRemaining(): number {
    return this.budget.remaining(NEWSAPI, this.settings().requestBudget);
  }

  isRefreshing(): boolean {
    return this.running !== null || (this.ctx.jobs.activeCounts()[NEWS_QUEUE] ?? 0) > 0;
  }

  /** Queues a refresh when the last one is older than 15 minutes (or there was none); true when one was queued. */
  refreshIfStale(): boolean {
    if (!this.settings().enabled || !this.configured() || this.isRefreshing()) return false;
    const last = this.repo.state().finished_at;
    if (last !== null && this.ctx.clock.now() - last < NEWS_STALE_MS) return false;
    return this.ctx.scheduler.runNow(NEWS_TASK);
  }

  refreshInfo(): NewsRefreshInfo {
    const s = this.repo.state();
    const warnings: string[] = [];
    if (s.warning) warnings.push(s.warning);
    if (!this.configured()) warnings.push('No news source: every feed is disabled and no NewsAPI key is set');
    else if (s.finished_at === null) warnings.push('News has not been fetched yet; a refresh is under way');
    return {
      checkedArtistCount: s.checked_artist_count,
      queuedArtistCount: s.queued_artist_count,
      callsRemaining: this.callsRemaining(),
      newsApiConfigured: this.ctx.discoveryProviders.newsapi() !== null,
      checkedAt: s.finished_at === null ? null : new Date(s.finished_at).toISOString(),
      isRefreshing: this.isRefreshing(),
      failedFeeds: JSON.parse(s.failed_feeds_json) as NewsRefreshInfo['failedFeeds'],
      ...(warnings.length > 0 && { warning: warnings.join('; ') }),
    };
  }

  blockedPublishers(userId: number): string[] {
    return this.repo.blockedPublishers(userId);
  }

  setBlockedPublishers(userId: number, list: string[]): string[] {
    const seen = new Set<string>();
    const clean: string[] = [];
    for (const p of list.map((x) => x.trim()).filter(Boolean)) {
      if (seen.has(p.toLowerCase())) continue;
      seen.add(p.toLowerCase());
      clean.push(p);
    }
    this.repo.setBlockedPublishers(userId, clean, this.ctx.clock.now());
    return clean;
  }

  /**
   * Newest first: articles about artists in the library now, minus the publishers the user blocked.
   * `userId` -1 (the instance API key) has no preferences.
   */
  articles(userId: number, limit: number): { articles: NewsArticle[]; hasMore: boolean } {
    const blocked = userId >= 0 ? this.blockedPublishers(userId).map((p) => p.toLowerCase()) : [];
    const rows = this.repo.page(blocked, limit + 1);
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const artists = new Map<number, { id: number; name: string }[]>();
    for (const l of this.repo.artistsOf(page.map((r) => r.id))) {
      const list = artists.get(l.article_id) ?? [];
      list.push({ id: l.id, name: l.name });
      artists.set(l.article_id, list);
    }
    return {
      hasMore,
      articles: page.map((r) => ({
        id: r.id,
        title: r.title,
        description: r.summary,
        url: r.url,
        source: r.publisher,
        feedId: r.feed_id,
        publishedAt: new Date(r.published_at).toISOString(),
        imageUrl: r.image_proxy_url,
        artists: artists.get(r.id) ?? [],
      })),
    };
  }

  /** Every news feed the settings know: the built-in publications, then the custom feeds, each with its id and whether it is read. */
  feeds(): { id: string; name: string; url: string; group: string; builtIn: boolean; enabled: boolean }[] {
    const s = this.settings();
    const disabled = new Set(s.disabledFeeds);
    const off = (id: string, url: string) => disabled.has(id) || disabled.has(url);
    return [
      ...DEFAULT_NEWS_FEEDS.map((f) => ({ ...f, builtIn: true, enabled: !off(f.id, f.url) })),
      ...s.feeds.map((f) => {
        const id = feedId(f.url);
        return { id, name: f.name || new URL(f.url).hostname, url: f.url, group: 'custom', builtIn: false, enabled: !off(id, f.url) };
      }),
    ];
  }

  /** Adds a feed (by id or URL) to `integrations.news.disabledFeeds`; answers the feed's id. */
  disableFeed(feed: string): { id: string; disabledFeeds: string[] } {
    const s = this.settings();
    const trimmed = feed.trim();
    const all = [...this.ctx.discoveryProviders.newsFeeds(), ...(s.feeds.map((f) => ({ url: f.url })) as { url: string; id?: string }[])];
    const known = all.find((f) => ('id' in f && f.id === trimmed) || f.url === trimmed);
    const id = known && 'id' in known && known.id ? known.id : trimmed;
    const next = s.disabledFeeds.includes(id) ? s.disabledFeeds : [...s.disabledFeeds, id];
    this.ctx.settings.update({ integrations: { news: { disabledFeeds: next } } });
    return { id, disabledFeeds: next };
  }

  /** One refresh at a time in this process; a second caller waits for the running one. */
  refresh(signal?: AbortSignal): Promise<void> {
    if (!this.running) {
      this.running = this.refreshOnce(signal).finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private libraryArtists(): (MatchableArtist & { trackCount: number })[] {
    return libraryArtistsForNews(this.ctx.db);
  }

  private async refreshOnce(signal?: AbortSignal): Promise<void> {
    const now = this.ctx.clock.now();
    this.repo.markStarted(now);
    const providers = this.ctx.discoveryProviders;
    const artists = this.libraryArtists();
    const matcher = new ArtistMatcher(artists);
    const warnings: string[] = [];
    const failedFeeds: NewsRefreshInfo['failedFeeds'] = [];
    const fresh: number[] = [];

    // 1. The feeds, three at a time.
    const feeds = providers.newsFeeds();
    if (matcher.size > 0) {
      let next = 0;
      const worker = async () => {
        while (next < feeds.length && !signal?.aborted) {
          const source = feeds[next++]!;
          try {
            const feed = await providers.fetchFeed(source.url, signal);
            for (const item of feed.items) {
              const id = this.store(
                {
                  feedId: source.id,
                  publisher: publisherOf(source, feed.title),
                  title: item.title,
                  summary: item.description,
                  url: item.url,
                  guid: item.id,
                  imageUrl: item.imageUrl,
                  publishedAt: item.publishedAt,
                  categories: item.categories,
                },
                matcher,
              );
              if (id !== null) fresh.push(id);
            }
          } catch (err) {
            failedFeeds.push({ id: source.id, name: source.name, error: err instanceof Error ? err.message.slice(0, 300) : String(err) });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(FEED_CONCURRENCY, feeds.length) }, worker));
    }
    if (failedFeeds.length > 0) warnings.push(`${failedFeeds.length} of ${feeds.length} feeds could not be read`);

    // 2. NewsAPI searches for the artists due, from the shared budget.
    const client = providers.newsapi();
    const searchable = artists.filter((a) => nameStrength(a.name) === 'text');
    let queued = 0;
    if (client) {
      const checked = this.repo.artistChecks();
      const due = searchable
        .filter((a) => (checked.get(a.id) ?? -Infinity) <= now - ARTIST_RECHECK_MS)
        .sort((a, b) => (checked.get(a.id) ?? -1) - (checked.get(b.id) ?? -1) || b.trackCount - a.trackCount || a.id - b.id);
      const budget = newsApiBudgetOf(this.ctx);
      let searched = 0;
      for (const artist of due) {
        if (searched >= ARTISTS_PER_REFRESH || signal?.aborted) break;
        if (!budget.take('news')) {
          warnings.push('The NewsAPI request budget is used up; the remaining artists are searched when it refills');
          break;
        }
        searched++;
        try {
          const answer = await client.everything({ q: `"${artist.name.replace(/"/g, '')}"`, searchIn: ['title', 'description'], from: now - 7 * 86_400_000, language: 'en', sortBy: 'publishedAt', pageSize: 20, ...(signal && { signal }) });
          for (const a of answer.articles) {
            const id = this.store(
              { feedId: NEWSAPI, publisher: a.source ?? hostOf(a.url) ?? 'NewsAPI', title: a.title, summary: a.description, url: a.url, guid: a.url, imageUrl: a.imageUrl, publishedAt: a.publishedAt, categories: [] },
              matcher,
            );
            if (id !== null) fresh.push(id);
          }
          this.repo.markChecked(artist.id, now);
        } catch (err) {
          if (err instanceof IntegrationError && (err.kind === 'rate_limited' || err.kind === 'unauthorized')) {
            warnings.push(err.kind === 'rate_limited' ? 'NewsAPI refused more requests today (rate limited)' : 'NewsAPI refused the API key');
            break;
          }
          warnings.push(`NewsAPI search failed: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
        }
      }
      const after = this.repo.artistChecks();
      queued = searchable.filter((a) => (after.get(a.id) ?? -Infinity) <= now - ARTIST_RECHECK_MS).length;
    }

    // 3. Pictures for new articles without one (the article page's og:image), a few per refresh.
    await this.findImages(fresh, signal);

    // 4. Keep the store bounded.
    this.prune();

    this.repo.markFinished(this.ctx.clock.now(), { checked: matcher.size, queued, failedFeedsJson: JSON.stringify(failedFeeds), warning: warnings.length ? [...new Set(warnings)].join('; ') : null });
  }

  /** Stores an article about at least one library artist; answers its id when it is new, else null. */
  private store(c: Candidate, matcher: ArtistMatcher): number | null {
    if (!c.title.trim()) return null;
    const found = matcher.match({ title: c.title, summary: c.summary, categories: c.categories });
    if (found.length === 0) return null;
    const now = this.ctx.clock.now();
    const publishedAt = c.publishedAt !== null && c.publishedAt <= now + 86_400_000 ? c.publishedAt : now;
    if (publishedAt < now - MAX_ARTICLE_AGE_MS) return null;
    const stored = this.repo.store(
      {
        dedupeKey: dedupeKeyOf(c),
        feedId: c.feedId,
        publisher: c.publisher.slice(0, 200),
        title: c.title.slice(0, 300),
        summary: c.summary?.slice(0, 1000) ?? null,
        url: safeUrl(c.url),
        imageUrl: safeUrl(c.imageUrl),
        imageProxyUrl: this.proxied(c.imageUrl),
        publishedAt,
      },
      found,
      now,
    );
    return stored.created ? stored.id : null;
  }

  /** The picture's image-proxy URL (registered now, so reading the news writes nothing). */
  private proxied(url: string | null): string | null {
    const safe = safeUrl(url);
    return safe ? this.ctx.remoteImages.proxyUrl(safe) : null;
  }

  private async findImages(ids: number[], signal?: AbortSignal): Promise<void> {
    if (ids.length === 0) return;
    const rows = this.repo.withoutImage(ids, IMAGE_LOOKUPS_PER_REFRESH);
    const ua = this.ctx.discoveryProviders.userAgent();
    for (const r of rows) {
      if (signal?.aborted) return;
      try {
        const image = await fetchArticleImage(r.url, { allowPrivateTargets: allowedPrivateTargets(this.ctx), userAgent: ua, ...(signal && { signal }) });
        if (image) this.repo.setImage(r.id, safeUrl(image), this.proxied(image));
      } catch {
        /* a page without a picture, or unreachable: the article stays without one */
      }
    }
  }

  /** Drops articles past the age limit and all but the newest MAX_ARTICLES. */
  prune(): void {
    this.repo.prune(this.ctx.clock.now() - MAX_ARTICLE_AGE_MS, MAX_ARTICLES);
  }
}

function publisherOf(source: NewsSource, feedTitle: string | null): string {
  return source.group === 'custom' && feedTitle && !source.name ? feedTitle : source.name || feedTitle || hostOf(source.url) || 'News';
}

function hostOf(url: string | null): string | null {
  try {
    return url ? new URL(url).hostname.replace(/^www\./, '') : null;
  } catch {
    return null;
  }
}

/** Only http(s) links are handed to browsers. */
function safeUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString().slice(0, 2048) : null;
  } catch {
    return null;
  }
}

/** Registers the refresh queue and its 15-minute task. */
export function startNews(ctx: Deps): void {
  const news = ctx.news;
  ctx.jobs.register(NEWS_QUEUE, {
    concurrency: 1,
    maxAttempts: 2,
    backoff: { baseMs: 60_000, maxMs: 15 * 60_000 },
    handler: async ({ signal }) => {
      if (!ctx.settings.get().integrations.news.enabled || !news.configured()) return;
      await news.refresh(signal);
    },
  });
  ctx.scheduler.define({ name: NEWS_TASK, every: NEWS_STALE_MS, queue: NEWS_QUEUE, priority: 5 });
}

/**
 * The NewsAPI request budget every feature shares (news, inbox digests): `take(purpose)` before each
 * request, false when the rolling 24 hours' `integrations.news.requestBudget` is used up.
 */
export function newsApiBudgetOf(ctx: Deps): { remaining(): number; take(purpose: string): boolean } {
  const budget = ctx.news.budget;
  const limit = () => ctx.settings.get().integrations.news.requestBudget;
  return { remaining: () => budget.remaining(NEWSAPI, limit()), take: (purpose) => budget.take(NEWSAPI, limit(), purpose) };
}
