import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { INBOX_KINDS } from '../../db/inbox.js';
import type { InboxItem, InboxService } from '../../domain/inbox/service.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { Same } from '../../http/same.js';

/** api.md §4.9: the caller's inbox (user accounts only; the instance API key has no inbox). */

const NO_STORE = 'private, no-cache, no-store, must-revalidate';
const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === '1');

const item = z.object({
  id: z.number(),
  kind: z.enum(INBOX_KINDS),
  sourceKey: z.string(),
  title: z.string(),
  subtitle: z.string().nullable(),
  href: z.string().nullable(),
  imageUrl: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  date: z.string().nullable(),
  createdAt: z.string(),
  isRead: z.boolean(),
  isSaved: z.boolean(),
  isAdded: z.boolean(),
  dismissedUntil: z.string().nullable(),
  expiresAt: z.string().nullable(),
  addable: z.enum(['album', 'artist']).nullable(),
});
const categories = z.object({ releases: z.boolean(), shows: z.boolean(), news: z.boolean(), discoveries: z.boolean() });
const listResponse = z.object({
  enabled: z.boolean(),
  categories,
  items: z.array(item),
  unreadCount: z.number(),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
  hasMore: z.boolean(),
  lastRefreshedAt: z.string().nullable(),
  isRefreshing: z.boolean(),
  warning: z.string().optional(),
});

const actResponse = z.object({ item, unreadCount: z.number(), result: z.unknown().optional() });

/** Fail to compile when the inbox service and these schemas disagree on a field. */
export const inboxSchemasMatchService = {
  item: true satisfies Same<z.infer<typeof item>, InboxItem>,
  list: true satisfies Same<z.infer<typeof listResponse>, ReturnType<InboxService['list']>>,
  act: true satisfies Same<z.infer<typeof actResponse>, Awaited<ReturnType<InboxService['act']>>>,
};

const listQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    kind: z.enum(INBOX_KINDS).optional(),
    saved: flag.optional(),
    unread: flag.optional(),
    /** false: only read (the navigation's unread badge), never queue the refresh that opening the inbox does. */
    refresh: flag.optional(),
  })
  .loose();

const actionBody = z.discriminatedUnion('action', [
  z.object({ action: z.literal('read') }).strict(),
  z.object({ action: z.literal('unread') }).strict(),
  z.object({ action: z.literal('save') }).strict(),
  z.object({ action: z.literal('unsave') }).strict(),
  /** Hidden for `days` (1–3650, default 30). */
  z.object({ action: z.literal('dismiss'), days: z.number().int().min(1).max(3650).optional() }).strict(),
  z.object({ action: z.literal('add') }).strict(),
]);

export function inboxRoutes(ctx: AppContext): RouteDefinition[] {
  const inbox = ctx.inbox;
  return [
    defineRoute({
      tag: 'inbox',
      access: 'user',
      method: 'get',
      path: '/api/inbox',
      summary:
        "The caller's inbox, newest first (limit 1–200, default 50; offset; kind; saved=1; unread=1) with the unread count; opening it queues a refresh when the last is over an hour old (refresh=false: never)",
      query: listQuery,
      response: listResponse,
      handler: ({ query, principal, res }) => {
        res.setHeader('Cache-Control', NO_STORE);
        if (query.refresh !== false) inbox.refreshIfStale(principal!.userId);
        return inbox.list(principal!.userId, query);
      },
    }),
    defineRoute({
      tag: 'inbox',
      access: 'user',
      method: 'post',
      path: '/api/inbox/refresh',
      summary: "Queue a refresh of the caller's inbox (releases, shows, news digests, discoveries) on the job queue",
      status: 202,
      response: z.object({ success: z.literal(true), queued: z.boolean(), jobId: z.number() }),
      handler: ({ principal }) => {
        inbox.assertEnabled();
        const { jobId, created } = inbox.enqueue(principal!.userId);
        return { success: true as const, queued: created, jobId };
      },
    }),
    defineRoute({
      tag: 'inbox',
      access: 'user',
      method: 'post',
      path: '/api/inbox/read-all',
      summary: "Mark every item of the caller's inbox read",
      response: z.object({ success: z.literal(true), updated: z.number(), unreadCount: z.number() }),
      handler: ({ principal }) => ({ success: true as const, ...inbox.readAll(principal!.userId) }),
    }),
    defineRoute({
      tag: 'inbox',
      access: 'user',
      method: 'patch',
      path: '/api/inbox/:id',
      summary:
        'Act on an inbox item: read, unread, save, unsave, dismiss (days, default 30), add (requests the release or adds the artist, as POST /api/library/albums/request and POST /api/library/artists do)',
      params: z.object({ id: z.coerce.number().int().positive() }),
      body: actionBody,
      response: actResponse,
      handler: ({ params, body, principal }) => inbox.act(principal!, params.id, body),
    }),
  ];
}
