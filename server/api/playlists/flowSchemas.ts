import { z } from 'zod';
import { downloadStatuses, type DownloadStatus } from '../../db/downloads.js';
import { MIX_SOURCES } from '../../db/flows.js';
import { DOWNLOAD_SOURCE_IDS } from '../../domain/downloads/sources/index.js';
import type { importListOf } from '../../domain/flows/feed.js';
import type { templatesFor } from '../../domain/flows/availability.js';
import type { FlowService } from '../../domain/flows/service.js';
import type { playlistStatus } from '../../domain/flows/status.js';
import { qualityTiers } from '../../domain/settings/schema.js';
import type { Same } from '../../http/same.js';
import { downloadJobSchema } from './jobSchema.js';

/**
 * The answers of the flow routes (api/playlists/flows.ts, api.md 4.10): a flow, the templates, the
 * Lidarr import list and GET /api/playlists/status, each checked below against the domain
 * (domain/flows), so the OpenAPI document and the renderer's generated types describe them whole.
 */

const mix = z.object(Object.fromEntries(MIX_SOURCES.map((s) => [s, z.number()])) as Record<(typeof MIX_SOURCES)[number], z.ZodNumber>);
/** A flow run's state and what started it (058_flows.sql's CHECKs; db/flows.ts FlowRunRow). */
const runStatus = z.enum(['planning', 'downloading', 'done', 'failed']);
const runTrigger = z.enum(['manual', 'schedule', 'create']);
/** Job counts by download status, with their total. */
const jobCounts = z.object({
  total: z.number(),
  ...(Object.fromEntries(downloadStatuses.map((s) => [s, z.number()])) as Record<DownloadStatus, z.ZodNumber>),
});

/** A flow as FlowService.present shows it. */
export const flowSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  size: z.number(),
  ownerUserId: z.number().nullable(),
  owner: z.string(),
  enabled: z.boolean(),
  mix,
  tags: z.array(z.string()),
  relatedArtists: z.array(z.string()),
  deepDive: z.boolean(),
  recordHistory: z.boolean(),
  showInLibrary: z.boolean().describe("the flow's downloaded tracks are library content too (else only its playlist holds them)"),
  includeLibraryTracks: z.boolean(),
  onePerArtist: z.boolean().describe('at most one track per artist'),
  yearFrom: z.number().nullable(),
  yearTo: z.number().nullable(),
  scheduleDays: z.array(z.number()),
  scheduleTime: z.string(),
  templateId: z.string().nullable(),
  discoverPresetId: z.string().nullable(),
  playlistType: z.literal('flow'),
  trackCount: z.number(),
  durationMs: z.number(),
  nextRunAt: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  lastError: z.string().nullable(),
  stats: jobCounts,
  currentRun: z
    .object({
      id: z.number(),
      status: runStatus,
      trigger: runTrigger,
      planned: z.number(),
      reserve: z.number(),
      error: z.string().nullable(),
      createdAt: z.string().nullable(),
      finishedAt: z.string().nullable(),
    })
    .nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export const flowTemplatesSchema = z.object({
  templates: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), mix, size: z.number(), available: z.boolean(), reason: z.string().nullable() })),
});

export const importListSchema = z.object({ success: z.boolean(), flowId: z.string(), token: z.string(), path: z.string(), url: z.string(), itemCount: z.number() });

export const keptAsStaticSchema = z.object({ success: z.boolean(), playlistId: z.string(), name: z.string(), trackCount: z.number() });

/** Switching a flow on answers at once; switching it off, deleting it or running it queues an operation. */
export const flowEnabledSchema = z.union([
  z.object({ success: z.boolean(), flowId: z.string(), enabled: z.boolean(), tracksQueued: z.number(), message: z.string() }),
  z.object({ success: z.boolean(), flowId: z.string(), enabled: z.boolean(), queued: z.boolean(), operationId: z.string() }),
]);
export const flowRemovedSchema = z.object({ success: z.boolean(), flowId: z.string(), queued: z.boolean(), operationId: z.string() });
export const flowStartedSchema = z.object({
  success: z.boolean(),
  flowId: z.string(),
  queued: z.boolean(),
  operationId: z.string(),
  tracksQueued: z.number(),
  jobIds: z.array(z.string()),
  reserveTracks: z.number(),
});

/** `worker.playlistRuns.<flowId>`: the flow's latest run (db/flowQueries.ts PlaylistRun). */
const playlistRun = z.object({
  runId: z.string(),
  status: runStatus,
  trigger: runTrigger,
  planned: z.number(),
  reserveDepth: z.number(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
  failureSummary: z.object({ failedTracks: z.number(), blockedTracks: z.number() }),
});

/** GET /api/playlists/status and the `playlist_status` push. */
export const playlistStatusSchema = z.object({
  flows: z.array(flowSchema),
  sharedPlaylists: z.array(z.object({ id: z.string(), name: z.string(), ownerUserId: z.number().nullable(), owner: z.string(), trackCount: z.number() })),
  stats: jobCounts,
  flowStats: jobCounts,
  sharedStats: jobCounts,
  sharedPlaylistStats: z.record(z.string(), jobCounts),
  worker: z.object({
    running: z.boolean(),
    processing: z.boolean(),
    activeCount: z.number(),
    currentJob: downloadJobSchema.nullable(),
    stats: jobCounts,
    settings: z.object({
      concurrency: z.number(),
      existingFileMode: z.enum(['download', 'reuse']),
      durationToleranceSeconds: z.number(),
      minMatchScore: z.number(),
      retryPauseMinutes: z.number(),
      blockedTimeoutHours: z.number(),
      preferLossless: z.boolean(),
      qualityCutoff: z.enum(qualityTiers),
      sourcePriorities: z.record(z.enum(DOWNLOAD_SOURCE_IDS), z.number()),
      running: z.boolean(),
      retryPausedPlaylistIds: z.array(z.string()),
    }),
    downloadMetrics: z.object({
      completedLastHour: z.number(),
      failedLastHour: z.number(),
      averageDurationMs: z.number().nullable(),
      completedTracks: z.number(),
      avgAttemptsPerTrack: z.number(),
      avgSuccessLatencyMs: z.number(),
    }),
    lastJobMetrics: z
      .object({ jobId: z.string(), finishedAt: z.number(), elapsedMs: z.number(), failed: z.boolean(), source: z.string().nullable(), error: z.string().nullable() })
      .nullable(),
    playlistRuns: z.record(z.string(), playlistRun),
  }),
  hint: z.object({ phase: z.string(), message: z.string() }),
  capabilities: z.object({
    availableSources: z.array(z.string()),
    unavailableSources: z.record(z.string(), z.string()).describe('flow sources that cannot be used now, each with the reason'),
    lastfmRequired: z.boolean(),
    downloadSources: z.array(z.string()),
  }),
  operationQueue: z.object({
    pending: z.number(),
    running: z.number(),
    processing: z.boolean(),
    currentLabel: z.string().nullable(),
    items: z.array(
      z.object({
        id: z.string(),
        type: z.string(),
        flowId: z.string(),
        trigger: z.string().nullable(),
        status: z.string(),
        waitingFor: z.literal('discovery').optional().describe("set while a run waits for the owner's discovery refresh to finish"),
      }),
    ),
  }),
  operationWorker: z.object({ running: z.boolean(), currentLabel: z.string().nullable() }),
  slskd: z.object({ configured: z.boolean(), connected: z.boolean(), downloadPath: z.string().nullable(), serverState: z.string().nullable() }),
  retryCyclePaused: z.record(z.string(), z.boolean()),
  retryCycleNextAt: z.record(z.string(), z.string()),
  retryCyclePausedByPlaylist: z.record(z.string(), z.boolean()),
  retryCycleScheduledByPlaylist: z.record(z.string(), z.boolean()),
});


/** Fail to compile when domain/flows and these schemas disagree on a field. */
export const flowSchemasMatchDomain = {
  flow: true satisfies Same<z.infer<typeof flowSchema>, ReturnType<FlowService['present']>>,
  templates: true satisfies Same<z.infer<typeof flowTemplatesSchema>, ReturnType<typeof templatesFor>>,
  importList: true satisfies Same<z.infer<typeof importListSchema>, ReturnType<typeof importListOf>>,
  keptAsStatic: true satisfies Same<z.infer<typeof keptAsStaticSchema>, ReturnType<FlowService['keepAsStatic']>>,
  enabled: true satisfies Same<z.infer<typeof flowEnabledSchema>, ReturnType<FlowService['setEnabled']>>,
  removed: true satisfies Same<z.infer<typeof flowRemovedSchema>, ReturnType<FlowService['remove']>>,
  started: true satisfies Same<z.infer<typeof flowStartedSchema>, ReturnType<FlowService['start']>>,
  status: true satisfies Same<z.infer<typeof playlistStatusSchema>, ReturnType<typeof playlistStatus>>,
};
