import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { decideAlbum, identifyProposals, startIdentifyRun } from '../../domain/library/identify.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/**
 * Administrators: "Identify files without MusicBrainz ids" (issue 26 §2). Start a run (202), read its
 * progress and the proposals per album, accept or reject an album's proposals. `albumId` `none`
 * names files of no album.
 */

const run = z
  .object({
    id: z.number(),
    status: z.enum(['running', 'done', 'failed']),
    total: z.number(),
    processed: z.number(),
    proposed: z.number(),
    progress: z.number(),
    note: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .nullable();
const proposal = z.object({
  id: z.number(),
  path: z.string(),
  trackId: z.number().nullable(),
  current: z.object({ title: z.string(), artistName: z.string() }),
  proposed: z.object({ recordingMbid: z.string(), title: z.string(), artistName: z.string().nullable(), artistMbid: z.string().nullable() }),
  score: z.number(),
});
const albumParams = z.object({ albumId: z.union([z.literal('none'), z.coerce.number().int().positive()]) });
const decideBody = z.object({ proposalIds: z.array(z.number().int().positive()).min(1).max(1000).optional() }).strict();
const decided = z.object({ success: z.boolean(), decided: z.number(), failed: z.array(z.object({ path: z.string(), error: z.string() })) });

export function identifyRoutes(ctx: AppContext): RouteDefinition[] {
  const albumOf = (p: { albumId: number | 'none' }) => (p.albumId === 'none' ? null : p.albumId);
  return [
    defineRoute({
      method: 'post',
      path: '/api/library/identify',
      summary: 'Start identifying library files without MusicBrainz ids by their sound (AcoustID); answers the run',
      tag: 'library',
      access: 'admin',
      status: 202,
      response: z.object({ started: z.boolean(), run }),
      handler: () => startIdentifyRun(ctx),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/identify',
      summary: 'The latest identify run with its progress, and the pending proposals per album',
      tag: 'library',
      access: 'admin',
      response: z.object({ run, albums: z.array(z.object({ albumId: z.number().nullable(), albumTitle: z.string().nullable(), proposals: z.array(proposal) })) }),
      handler: () => identifyProposals(ctx),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/identify/albums/:albumId/accept',
      summary: "Write an album's proposed ids, titles and artists into its files' tags (all pending, or the listed proposals)",
      tag: 'library',
      access: 'admin',
      params: albumParams,
      body: decideBody,
      response: decided,
      handler: ({ params, body }) => decideAlbum(ctx, albumOf(params), 'accept', body.proposalIds),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/identify/albums/:albumId/reject',
      summary: "Reject an album's proposals; those files are not proposed again",
      tag: 'library',
      access: 'admin',
      params: albumParams,
      body: decideBody,
      response: decided,
      handler: ({ params, body }) => decideAlbum(ctx, albumOf(params), 'reject', body.proposalIds),
    }),
  ];
}
