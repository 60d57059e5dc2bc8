import { z } from 'zod';
import type { AppContext } from '../../context.js';
import {
  deleteJobs,
  queueJobUpgrade,
  queueQualityUpgrades,
  researchMissing,
  setWorkerRunning,
  updateWorkerSettings,
  workerSettings } from '../../domain/downloads/control.js';
import { canSeeAllJobs } from '../../domain/downloads/service.js';
import { DOWNLOAD_SOURCE_IDS, type DownloadSourceId } from '../../domain/downloads/sources/index.js';
import { pausedRetryCycles } from '../../domain/playlists/retryCycle.js';
import { sourcePriority as priority } from '../../domain/settings/fields.js';
import { downloadWorker, qualityTiers } from '../../domain/settings/schema.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md 4.10: control of the download worker around the track pipeline. */

const w = downloadWorker.shape;

/** One priority per source of the list (domain/downloads/sources/index.ts). */
const sourcePriorities = z.object(Object.fromEntries(DOWNLOAD_SOURCE_IDS.map((id) => [id, priority])) as Record<DownloadSourceId, typeof priority>);

const settingsView = z.object({
  concurrency: z.number().int(),
  existingFileMode: z.enum(['download', 'reuse']),
  durationToleranceSeconds: z.number().int(),
  minMatchScore: z.number(),
  retryPauseMinutes: z.number().int(),
  blockedTimeoutHours: z.number().int().describe('0: a held track waits for review forever'),
  preferLossless: z.boolean(),
  qualityCutoff: z.enum(qualityTiers).describe('tracks below it are searched for better copies'),
  sourcePriorities: sourcePriorities.describe('lower is tried first; usenet is the priority of SABnzbd and NZBGet'),
  running: z.boolean(),
  retryPausedPlaylistIds: z.array(z.string()).describe('static and shared playlists whose hourly retry of missing tracks is paused'),
});

/** Every field optional, nothing else accepted; the limits are those of the settings. */
const settingsPatch = z
  .object({
    running: w.running.unwrap().optional(),
    concurrency: w.concurrency.unwrap().optional(),
    existingFileMode: w.existingFileMode.unwrap().optional(),
    durationToleranceSeconds: w.durationToleranceSeconds.unwrap().optional(),
    minMatchScore: w.minMatchScore.unwrap().optional(),
    retryPauseMinutes: w.retryPauseMinutes.unwrap().optional(),
    blockedTimeoutHours: w.blockedTimeoutHours.unwrap().optional(),
    preferLossless: w.preferLossless.unwrap().optional(),
    qualityCutoff: w.qualityCutoff.unwrap().optional(),
    sourcePriorities: sourcePriorities.partial().strict().optional(),
  })
  .strict();

const upgradeResult = z.object({ success: z.literal(true), queued: z.number().int(), skipped: z.number().int() });
const playlistParam = z.string().min(1).max(200);
const jobIdParam = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a job id')
  .transform(Number);

export function playlistWorkerRoutes(ctx: AppContext): RouteDefinition[] {
  /** The settings with the playlists whose retry cycle is paused (the reference service's `retryPausedPlaylistIds`). */
  const withRetryPauses = <T extends object>(s: T) => ({ ...s, retryPausedPlaylistIds: Object.keys(pausedRetryCycles(ctx)) });
  return [
    defineRoute({
      tag: 'playlists',
      access: 'admin',
      method: 'get',
      path: '/api/playlists/worker/settings',
      summary: 'Download worker settings: concurrency, existing-file mode, review thresholds, retry pause, review timeout, quality profile, source priorities, running',
      response: settingsView,
      handler: () => withRetryPauses(workerSettings(ctx.settings.get())),
    }),
    defineRoute({
      tag: 'playlists',
      access: 'admin',
      method: 'put',
      path: '/api/playlists/worker/settings',
      summary: 'Change some worker settings (the fields sent); answers all of them',
      body: settingsPatch,
      response: settingsView,
      handler: ({ body }) => withRetryPauses(updateWorkerSettings(ctx, body)),
    }),
    ...(['start', 'stop'] as const).map((action) =>
      defineRoute({
        tag: 'playlists',
        access: 'admin',
        method: 'post',
        path: `/api/playlists/worker/${action}`,
        summary: action === 'start' ? 'Start the download worker' : 'Stop the download worker: no new job starts, running transfers finish',
        response: z.object({ success: z.literal(true), running: z.boolean() }),
        handler: () => setWorkerRunning(ctx, action === 'start'),
      }),
    ),
    ...(['completed', 'all'] as const).map((which) =>
      defineRoute({
        tag: 'playlists',
        access: { permission: 'accessFlow' },
        method: 'delete',
        path: `/api/playlists/jobs/${which}`,
        summary:
          which === 'completed'
            ? 'Delete finished jobs (done, failed, cancelled): your own, everyone\'s for administrators; files stay'
            : 'Delete every job that is not running: your own, everyone\'s for administrators; files stay',
        response: z.object({ success: z.literal(true), deleted: z.number().int() }),
        handler: ({ principal }) => deleteJobs(ctx, principal!, which),
      }),
    ),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: '/api/playlists/quality-upgrades',
      summary: 'Queue a search for a better copy of every done track below the quality cutoff that you may see',
      response: upgradeResult,
      handler: ({ principal }) => queueQualityUpgrades(ctx, { userId: canSeeAllJobs(principal!) ? undefined : principal!.userId }),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: '/api/playlists/quality-upgrades/:playlistId',
      summary: 'Queue upgrades for the tracks of a flow or playlist (`library` for single tracks and albums)',
      params: z.object({ playlistId: playlistParam }),
      response: upgradeResult,
      handler: ({ principal, params }) => {
        // A playlist the caller may edit (a shared one they own): every track of it, whoever's job it is.
        const registry = ctx.playlists;
        const viewer = { id: principal!.userId, role: principal!.role };
        const ref = registry.findFor(params.playlistId, viewer);
        const all = canSeeAllJobs(principal!) || (ref !== undefined && registry.canEdit(ref, viewer));
        return queueQualityUpgrades(ctx, { userId: all ? undefined : principal!.userId, playlist: params.playlistId });
      },
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: '/api/playlists/quality-upgrades/:playlistId/:jobId',
      summary: 'Queue an upgrade of one track; 409 while it is pending or downloading',
      params: z.object({ playlistId: playlistParam, jobId: jobIdParam }),
      response: upgradeResult,
      handler: ({ principal, params }) => queueJobUpgrade(ctx, principal!, params.playlistId, params.jobId),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: '/api/playlists/research-missing',
      summary: 'Search again for every failed or cancelled track you may see (after the retry pause for recent failures)',
      response: z.object({ success: z.literal(true), queued: z.number().int() }),
      handler: ({ principal }) => researchMissing(ctx, principal!),
    }),
  ];
}
