import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { presetOf } from '../../domain/discovery/presets.js';
import { UnauthorizedError, ValidationError } from '../../domain/errors.js';
import { adoptPlaylist, adoptPreset } from '../../domain/flows/adopt.js';
import { templatesFor } from '../../domain/flows/availability.js';
import { writePlaylistFiles } from '../../domain/flows/files.js';
import { playlistStatus } from '../../domain/flows/status.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import {
  flowEnabledSchema,
  flowRemovedSchema,
  flowSchema,
  flowStartedSchema,
  flowTemplatesSchema,
  importListSchema,
  keptAsStaticSchema,
  playlistStatusSchema,
} from './flowSchemas.js';
import { downloadJobSchema as jobSchema } from './jobSchema.js';

/**
 * api.md 4.10 flows (create from fields or a template, change, switch on and off, run now, keep as a
 * static playlist, research a track, jobs of a flow), the Lidarr import list of a flow and its feed
 * (decisions §1: `lidarr-import-list`, `/api/feeds/lidarr/flows/:flowId.json`, also under the
 * neutral `libmgr` spelling), and 4.8 adopting an editorial preset as a flow or a static playlist.
 */

const mixSchema = z.object({ discover: z.number(), mix: z.number(), trending: z.number(), focus: z.number() }).partial();
const flowBody = z.looseObject({
  name: z.string().optional(),
  description: z.string().optional(),
  size: z.number().optional(),
  mix: mixSchema.optional(),
  tags: z.array(z.string()).optional(),
  relatedArtists: z.array(z.string()).optional(),
  deepDive: z.boolean().optional(),
  recordHistory: z.boolean().optional(),
  showInLibrary: z.boolean().optional(),
  includeLibraryTracks: z.boolean().optional(),
  onePerArtist: z.boolean().optional(),
  yearFrom: z.number().nullable().optional(),
  yearTo: z.number().nullable().optional(),
  scheduleDays: z.array(z.number()).optional(),
  scheduleTime: z.string().optional(),
  enabled: z.boolean().optional(),
  templateId: z.string().optional(),
});
const flowParams = z.object({ flowId: z.string().min(1).max(100) });
const adoptBody = z.looseObject({
  presetId: z.string().min(1),
  name: z.string().optional(),
  size: z.number().optional(),
  scheduleDays: z.array(z.number()).optional(),
  scheduleTime: z.string().optional(),
  enabled: z.boolean().optional(),
});

export function flowRoutes(ctx: AppContext): RouteDefinition[] {
  const svc = ctx.flows;
  const access = { permission: 'accessFlow' as const };

  const importList = (path: string) =>
    defineRoute({
      method: 'get',
      path,
      summary: "Create or read the flow's Lidarr import-list token, its feed path and how many items the feed lists",
      tag: 'playlists',
      access,
      params: flowParams,
      response: importListSchema,
      handler: ({ params, principal }) => svc.importList(principal!, params.flowId),
    });
  const feed = (path: string) =>
    defineRoute({
      method: 'get',
      path,
      summary: "Lidarr Custom List feed of a flow's artists (and their albums in the flow); authenticated by the flow's token",
      tag: 'feeds',
      access: 'public',
      params: z.object({ file: z.string() }),
      query: z.looseObject({ token: z.string().optional() }),
      response: z.array(z.looseObject({ MusicBrainzId: z.string() })),
      handler: ({ params, query }) => {
        const m = /^(.+)\.json$/.exec(params.file);
        const items = m ? svc.feed(m[1]!, typeof query.token === 'string' ? query.token : undefined) : undefined;
        if (!items) throw new UnauthorizedError('A valid feed token is required');
        return items;
      },
    });

  return [
    defineRoute({
      method: 'get',
      path: '/api/playlists/status',
      summary: 'Flows, shared playlists, job counts, the worker, what happens now, usable flow sources, the flow operation queue and slskd, scoped to the caller',
      tag: 'playlists',
      access,
      response: playlistStatusSchema,
      handler: ({ principal }) => playlistStatus(ctx, principal!),
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/flow-templates',
      summary: 'The flow templates and whether each can be used now (and why not)',
      tag: 'playlists',
      access,
      response: flowTemplatesSchema,
      handler: ({ principal }) => templatesFor(ctx, principal!),
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/flows',
      summary: "The caller's flows (administrators: every flow)",
      tag: 'playlists',
      access,
      response: z.object({ flows: z.array(flowSchema) }),
      handler: ({ principal }) => ({ flows: svc.list(principal!).map((f) => svc.present(f)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/flows',
      summary: 'Create a flow from its fields or from a templateId (the body name overrides the template name)',
      tag: 'playlists',
      access,
      body: flowBody,
      response: z.object({ success: z.boolean(), flow: flowSchema }),
      handler: ({ body, principal }) => ({ success: true, flow: svc.present(svc.create(principal!, body)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/flows/:flowId',
      summary: 'One flow with its current run and job counts',
      tag: 'playlists',
      access,
      params: flowParams,
      response: z.object({ flow: flowSchema }),
      handler: ({ params, principal }) => ({ flow: svc.present(svc.visible(principal!, params.flowId)) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/playlists/flows/:flowId',
      summary: 'Change a flow (fields not sent stay as they are)',
      tag: 'playlists',
      access,
      params: flowParams,
      body: flowBody,
      response: z.object({ success: z.boolean(), flow: flowSchema }),
      handler: ({ params, body, principal }) => ({ success: true, flow: svc.present(svc.update(principal!, params.flowId, body)) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/playlists/flows/:flowId',
      summary: 'Delete a flow; its jobs stop and its files go unless something else uses them',
      tag: 'playlists',
      access,
      params: flowParams,
      response: flowRemovedSchema,
      handler: ({ params, principal }) => svc.remove(principal!, params.flowId),
    }),
    defineRoute({
      method: 'put',
      path: '/api/playlists/flows/:flowId/enabled',
      summary: 'Switch a flow on (it runs on its schedule) or off (its running downloads stop)',
      tag: 'playlists',
      access,
      params: flowParams,
      body: z.looseObject({ enabled: z.unknown() }),
      response: flowEnabledSchema,
      handler: ({ params, body, principal }) => {
        if (typeof body.enabled !== 'boolean') throw new ValidationError('enabled must be a boolean');
        return svc.setEnabled(principal!, params.flowId, body.enabled);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/start/:flowId',
      summary: 'Run a flow now (queued): plan its tracks, rotate the previous run out, queue the downloads',
      tag: 'playlists',
      access,
      params: flowParams,
      response: flowStartedSchema,
      handler: ({ params, principal }) => svc.start(principal!, params.flowId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/flows/:flowId/static-playlist',
      summary: "Keep the flow's downloaded tracks as a static playlist of the caller",
      tag: 'playlists',
      access,
      params: flowParams,
      body: z.looseObject({ name: z.string().optional() }).optional(),
      response: keptAsStaticSchema,
      handler: ({ params, body, principal }) => svc.keepAsStatic(principal!, params.flowId, body?.name),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/flows/:flowId/tracks/:jobId/research',
      summary: 'Search for a failed or cancelled track of a flow again',
      tag: 'playlists',
      access,
      params: z.object({ flowId: z.string().min(1).max(100), jobId: z.coerce.number().int().positive() }),
      response: z.object({ success: z.boolean(), queued: z.number() }),
      handler: ({ params, principal }) => svc.research(principal!, params.flowId, params.jobId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/jobs/:flowId',
      summary: 'Download jobs of a flow (current run in playlist order first) or of a static playlist',
      tag: 'playlists',
      access,
      params: flowParams,
      response: z.array(jobSchema),
      handler: ({ params, principal }) => svc.jobsOf(principal!, params.flowId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/reset',
      summary: 'Reset selected flows to empty: their jobs stop and go, their runs and planned tracks go, their files go unless something else uses them',
      tag: 'playlists',
      access,
      body: z.looseObject({ flowIds: z.unknown().optional(), playlistTypes: z.unknown().optional() }).describe('flowIds (or playlistTypes, the reference spelling): the flow ids to reset'),
      response: z.object({ success: z.boolean(), reset: z.array(z.string()), removedJobs: z.number(), removedFiles: z.number() }),
      handler: ({ body, principal }) => {
        const ids = body.flowIds ?? body.playlistTypes;
        if (!Array.isArray(ids) || ids.length === 0 || ids.length > 500 || !ids.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 100))
          throw new ValidationError('flowIds must be a non-empty array of flow ids');
        return svc.reset(principal!, ids as string[]);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/playlist/:playlistType/create',
      summary: 'Write the Navidrome smart-playlist (.nsp) and M3U8 files of a flow or playlist (or of every flow: "flow") into the flow-playlists folder of the downloads root',
      tag: 'playlists',
      access,
      params: z.object({ playlistType: z.string().min(1).max(100) }),
      response: z.object({ success: z.boolean(), playlistType: z.string(), folder: z.string(), files: z.array(z.object({ playlistId: z.string(), path: z.string(), written: z.boolean() })) }),
      handler: ({ params, principal }) => writePlaylistFiles(ctx, principal!, params.playlistType),
    }),
    importList('/api/playlists/flows/:flowId/lidarr-import-list'),
    importList('/api/playlists/flows/:flowId/libmgr-import-list'),
    feed('/api/feeds/lidarr/flows/:file'),
    feed('/api/feeds/libmgr/flows/:file'),
    defineRoute({
      method: 'post',
      path: '/api/discover/playlists/adopt',
      summary: 'Create a flow from an editorial preset',
      tag: 'discover',
      access,
      body: adoptBody,
      response: z.object({ success: z.boolean(), flow: flowSchema }),
      handler: ({ body, principal }) => {
        presetOf(body.presetId);
        return { success: true, flow: svc.present(adoptPreset(ctx, principal!, body)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/playlists/adopt-playlist',
      summary: 'Create a static playlist from an editorial preset: tracks in the library now, the others queued for download',
      tag: 'discover',
      access,
      body: adoptBody,
      response: z.looseObject({ success: z.boolean(), playlist: z.looseObject({ id: z.string(), name: z.string(), trackCount: z.number() }) }),
      handler: ({ body, principal }) => adoptPlaylist(ctx, principal!, body),
    }),
  ];
}
