import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { downloadStatuses } from '../../db/downloads.js';
import { hasPermission, type Principal } from '../../domain/auth/principal.js';
import { approve, cancel, deny, finalMedia, listJobs, stagingMedia, type MediaFile } from '../../domain/downloads/review.js';
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { sendMedia } from '../../library/stream.js';
import { downloadJobSchema as jobSchema } from './jobSchema.js';

/** api.md 4.10: download jobs, their review (approve, deny), cancel, and the held and filed files. */

const jobIdParams = z.object({ jobId: z.coerce.number().int().positive() });
const statusList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(z.enum(downloadStatuses)));
const listQuery = z.object({
  status: statusList.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export function downloadJobRoutes(ctx: AppContext): RouteDefinition[] {
  /** Media routes accept stream tokens, so the permission is checked here. */
  const stream = (resolve: (principal: Principal, jobId: number) => MediaFile) =>
    async ({ req, res, params, principal }: { req: any; res: any; params: { jobId: number }; principal: Principal | null }) => {
      if (!principal || !hasPermission(principal, 'accessFlow')) throw new ForbiddenError('Permission required: accessFlow');
      const file = resolve(principal, params.jobId);
      if (!(await sendMedia(req, res, file))) throw new NotFoundError('Media file not found');
      return undefined;
    };
  return [
    defineRoute({
      method: 'get',
      path: '/api/playlists/jobs',
      summary: "Download jobs, newest first (a user's own; administrators see all); status=blocked for the review queue",
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      query: listQuery,
      response: z.array(jobSchema),
      handler: ({ query, principal }) => listJobs(ctx, principal!, { status: query.status, limit: query.limit, offset: query.offset }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/jobs/:jobId/approve',
      summary: 'Approve a blocked job: its held file is tagged and filed into the library',
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      params: jobIdParams,
      response: z.object({ success: z.boolean(), path: z.string() }),
      handler: ({ params, principal }) => approve(ctx, principal!, params.jobId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/jobs/:jobId/deny',
      summary: 'Deny a blocked job: its held file is removed, its source never picked again, and the job searched again',
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      params: jobIdParams,
      response: z.object({ success: z.boolean() }),
      handler: ({ params, principal }) => deny(ctx, principal!, params.jobId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/jobs/:jobId/cancel',
      summary: 'Cancel a pending or downloading job (feature downloadCancel)',
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      params: jobIdParams,
      response: z.object({ success: z.boolean(), job: jobSchema }),
      handler: ({ params, principal }) => cancel(ctx, principal!, params.jobId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/staging-stream/:jobId',
      summary: "Stream a job's held file for review; Range supported",
      tag: 'playlists',
      access: 'media',
      params: jobIdParams,
      response: 'binary',
      handler: stream((p, id) => stagingMedia(ctx, p, id)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/stream/:jobId',
      summary: "Stream a finished job's file; Range supported",
      tag: 'playlists',
      access: 'media',
      params: jobIdParams,
      response: 'binary',
      handler: stream((p, id) => finalMedia(ctx, p, id)),
    }),
  ];
}
