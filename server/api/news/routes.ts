import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { type NewsArticle, type NewsRefreshInfo } from '../../domain/news/service.js';
import { ValidationError } from '../../domain/errors.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { Same } from '../../http/same.js';

/** api.md §4.9: artist news for the caller's library, publisher blocking, and switching a feed off. */

const NO_STORE = 'private, no-cache, no-store, must-revalidate';

const article = z.object({
  id: z.number(),
  title: z.string(),
  description: z.string().nullable(),
  url: z.string().nullable(),
  source: z.string(),
  feedId: z.string(),
  publishedAt: z.string(),
  imageUrl: z.string().nullable(),
  artists: z.array(z.object({ id: z.number(), name: z.string() })),
});
const refresh = z.object({
  checkedArtistCount: z.number(),
  queuedArtistCount: z.number(),
  callsRemaining: z.number(),
  newsApiConfigured: z.boolean().describe('a NewsAPI key is set: callsRemaining applies'),
  checkedAt: z.string().nullable(),
  isRefreshing: z.boolean(),
  failedFeeds: z.array(z.object({ id: z.string(), name: z.string(), error: z.string() })),
  warning: z.string().optional(),
});
/** Fail to compile when the domain's article or refresh state and these schemas disagree on a field. */
export const articleMatchesSchema: Same<z.infer<typeof article>, NewsArticle> = true;
export const refreshMatchesSchema: Same<z.infer<typeof refresh>, NewsRefreshInfo> = true;
const newsResponse = z.object({ configured: z.boolean(), articles: z.array(article), hasMore: z.boolean(), refresh });
const preferences = z.object({ blockedPublishers: z.array(z.string()) });

const limitQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(100).default(60) })
  .loose();

const preferencesBody = z.unknown().transform((body, zctx) => {
  const list = body && typeof body === 'object' ? (body as { blockedPublishers?: unknown }).blockedPublishers : undefined;
  if (!Array.isArray(list)) {
    zctx.addIssue({ code: 'custom', path: ['blockedPublishers'], message: 'must be an array of publisher names' });
    return z.NEVER;
  }
  if (list.length > 500) {
    zctx.addIssue({ code: 'custom', path: ['blockedPublishers'], message: 'at most 500 publishers' });
    return z.NEVER;
  }
  for (const [i, p] of list.entries())
    if (typeof p !== 'string' || p.length > 200) {
      zctx.addIssue({ code: 'custom', path: ['blockedPublishers', i], message: 'must be a publisher name (text, at most 200 characters)' });
      return z.NEVER;
    }
  return { blockedPublishers: list as string[] };
});

const disableBody = z
  .object({
    /** The feed's id (12 hex digits) or its URL; `url` is accepted as another name for it. */
    id: z.string().trim().min(1).max(2048).optional(),
    feedId: z.string().trim().min(1).max(2048).optional(),
    url: z.string().trim().min(1).max(2048).optional(),
  })
  .strict();

export function newsRoutes(ctx: AppContext): RouteDefinition[] {
  const news = ctx.news;
  return [
    defineRoute({
      tag: 'news',
      access: 'authenticated',
      method: 'get',
      path: '/api/news',
      summary: "Recent news about the library's artists, newest first, without the caller's blocked publishers (limit 1–100, default 60)",
      query: limitQuery,
      response: newsResponse,
      handler: ({ query, principal, res }) => {
        res.setHeader('Cache-Control', NO_STORE);
        news.assertEnabled();
        news.refreshIfStale();
        const configured = news.configured();
        const { articles, hasMore } = news.articles(principal!.userId, query.limit);
        return { configured, articles, hasMore, refresh: news.refreshInfo() };
      },
    }),
    defineRoute({
      tag: 'news',
      access: 'user',
      method: 'get',
      path: '/api/news/preferences',
      summary: "The caller's news preferences (blocked publishers)",
      response: preferences,
      handler: ({ principal, res }) => {
        res.setHeader('Cache-Control', NO_STORE);
        return { blockedPublishers: news.blockedPublishers(principal!.userId) };
      },
    }),
    defineRoute({
      tag: 'news',
      access: 'user',
      method: 'patch',
      path: '/api/news/preferences',
      summary: 'Replace the caller’s blocked publishers (blockedPublishers: an array of publisher names)',
      body: preferencesBody,
      response: preferences,
      handler: ({ body, principal, res }) => {
        res.setHeader('Cache-Control', NO_STORE);
        return { blockedPublishers: news.setBlockedPublishers(principal!.userId, body.blockedPublishers) };
      },
    }),
    defineRoute({
      tag: 'news',
      access: 'admin',
      method: 'get',
      path: '/api/news/feeds',
      summary: 'Every news feed the settings know: the built-in publications, then the custom feeds, each with its id and whether it is read',
      response: z.object({
        feeds: z.array(z.object({ id: z.string(), name: z.string(), url: z.string(), group: z.string(), builtIn: z.boolean(), enabled: z.boolean() })),
      }),
      handler: ({ res }) => {
        res.setHeader('Cache-Control', NO_STORE);
        return { feeds: news.feeds() };
      },
    }),
    defineRoute({
      tag: 'news',
      access: 'admin',
      method: 'post',
      path: '/api/news/feeds/disable',
      summary: 'Switch a news feed off (by feed id or URL): it is added to integrations.news.disabledFeeds',
      body: disableBody,
      response: z.object({ success: z.literal(true), id: z.string(), disabledFeeds: z.array(z.string()) }),
      handler: ({ body }) => {
        const feed = body.id ?? body.feedId ?? body.url;
        if (!feed) throw new ValidationError('id: name the feed (its id or URL)', 'VALIDATION_ERROR');
        return { success: true as const, ...news.disableFeed(feed) };
      },
    }),
  ];
}
