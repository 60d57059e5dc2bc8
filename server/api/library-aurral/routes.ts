import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/**
 * Self-managed albums (managedBy `aurral`, reference §3.2): status, monitoring and cancel by the
 * album's id (`aurral:<id>` in status queries). Requests go through the shared add and request
 * routes of api.md §4.5, which dispatch by owner.
 */

const countsSchema = z.object({
  total: z.number(),
  complete: z.number(),
  downloading: z.number(),
  queued: z.number(),
  blocked: z.number(),
  failed: z.number(),
  cancelled: z.number(),
  missing: z.number(),
});

/** decisions §5's self-managed album status. */
export const aurralAlbumStatusSchema = z.object({
  id: z.string(),
  albumId: z.number(),
  albumMbid: z.string(),
  releaseMbid: z.string().nullable(),
  artistMbid: z.string().nullable(),
  artistName: z.string(),
  title: z.string(),
  monitored: z.boolean(),
  managedBy: z.literal('aurral'),
  status: z.enum(['complete', 'downloading', 'queued', 'blocked', 'cancelled', 'failed', 'partial', 'missing']),
  progress: z.number(),
  counts: countsSchema,
  recovery: z.object({ code: z.enum(['download_source_missing', 'review_required', 'source_failed']), message: z.string() }).nullable(),
  message: z.string().nullable(),
  updatedAt: z.string(),
});

const idParams = z.object({ id: z.coerce.number().int().positive() });

export function aurralLibraryRoutes(ctx: AppContext): RouteDefinition[] {
  const albums = () => ctx.albumDownloads;
  const tag = 'library';
  return [
    defineRoute({
      method: 'get',
      path: '/api/library/albums/aurral/:id/status',
      summary: 'Status of a self-managed album: complete, downloading, queued, blocked, cancelled, failed, partial or missing, with per-track counts and recovery',
      tag,
      access: 'authenticated',
      params: idParams,
      response: aurralAlbumStatusSchema,
      handler: ({ params }) => albums().status(params.id),
    }),
    defineRoute({
      method: 'put',
      path: '/api/library/albums/aurral/:id',
      summary: 'Monitor a self-managed album (requests it again: missing, failed and cancelled tracks) or stop monitoring it (queued jobs run on; cancel stops them)',
      tag,
      access: { permission: 'changeMonitoring' },
      params: idParams,
      body: z.object({ monitored: z.boolean() }),
      response: aurralAlbumStatusSchema,
      handler: ({ params, body, principal }) => albums().setMonitored(params.id, body.monitored, principal),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/albums/aurral/:id/cancel',
      summary: "Cancel a self-managed album: its pending and downloading tracks are cancelled, finished ones stay; requesting again retries them",
      tag,
      access: { permission: 'addAlbum' },
      params: idParams,
      response: z.object({ success: z.boolean(), cancelled: z.number(), albumStatus: aurralAlbumStatusSchema }),
      handler: ({ params }) => albums().cancel(params.id),
    }),
  ];
}
