import type { Db } from '../../db/connection.js';
import {
  completedMetrics, downloadMetricsSince, groupedJobCounts, groupedJobCountsByOwner, lastJobMetrics, openJobsOfQueues, playlistRuns,
  playlistsWithFailedJobs, scheduledTaskNextRun, type GroupedByOwner, type GroupedCount } from '../../db/flowQueries.js';
import { downloads, downloadStatuses, type DownloadStatus } from '../../db/downloads.js';
import { hasPermission, type Principal } from '../auth/principal.js';
import { workerSettings } from '../downloads/control.js';
import { presentJob } from '../downloads/present.js';
import { canSeeAllJobs, type DownloadService } from '../downloads/service.js';
import { pausedRetryCycles, RETRY_CYCLE_TASK, type Deps as PlaylistsRetryCycleDeps } from '../playlists/retryCycle.js';
import { sourceAvailability, type Deps as FlowsAvailabilityDeps } from './availability.js';
import { FLOW_OP_QUEUE, FLOW_RUN_QUEUE } from './schedule.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryProviders } from '../discovery/providers.js';
import type { Broadcaster } from '../events.js';
import type { PlaylistRegistry } from '../playlists/registry.js';
import type { SettingsStore } from '../settings/store.js';
import type { SlskdConnection } from '../slskd/connection.js';
import type { FlowService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'onClose'>
  & {
    hub: Broadcaster;
    settings: SettingsStore;
    discoveryProviders: DiscoveryProviders;
    downloads: DownloadService;
    flows: FlowService;
    playlists: PlaylistRegistry;
    slskd: SlskdConnection;
  }
  & FlowsAvailabilityDeps
  & PlaylistsRetryCycleDeps;

/**
 * GET /api/playlists/status and its push (`playlist_status` on the `playlists` and `weekly-flow`
 * channels, decisions §6): flows, shared playlists, job counts, the worker, a hint of what happens
 * now, which flow sources can be used, the flow operation queue and slskd, all scoped to what the
 * caller may see (administrators: everything; users: their own). A push is computed once per
 * audience and sent only when that audience's status changed.
 */

const PUSH_EVERY_MS = 4000;
const DEBOUNCE_MS = 300;

type Counts = Record<DownloadStatus, number> & { total: number };
const withTotal = (c: Record<DownloadStatus, number>): Counts => ({ ...c, total: downloadStatuses.reduce((s, k) => s + c[k], 0) });

/** The audience a principal belongs to: every administrator sees the same status, each user their own. */
export const audienceOf = (p: Principal): string => (canSeeAllJobs(p) ? 'admin' : `user:${p.userId}`);

/**
 * What one push round computes once for all its audiences: the parts that do not depend on the
 * caller (download sources, flow source availability, the flow operation queue) and the job counts
 * by playlist, status and owner (one pass over the jobs instead of one per audience).
 */
export interface StatusRound {
  grouped?: GroupedByOwner[];
  sources?: ReturnType<DownloadService['sources']>;
  availability?: ReturnType<typeof sourceAvailability>;
  lastfmRequired?: boolean;
  ops?: { id: number; queue: string; status: string; payload: string; runAt: number }[];
}

/** The status for one caller; `round` shares what a push computes once for every audience. */
export function playlistStatus(ctx: Deps, principal: Principal, round?: StatusRound) {
  const db = ctx.db;
  const flows = ctx.flows;
  const userId = canSeeAllJobs(principal) ? undefined : principal.userId;
  const settings = ctx.settings.get();
  const viewer = { id: principal.userId, role: principal.role };

  const visibleFlows = flows.list(principal);
  const shared = ctx.playlists.provider('shared');
  const sharedPlaylists = shared ? shared.visibleTo(viewer).map((r) => ({ id: r.id, name: r.name, ownerUserId: r.ownerUserId, owner: r.owner, trackCount: r.songCount })) : [];

  // One grouped query for every count: the caller's totals, per kind, per shared playlist (scoped to
  // what the caller may see) and per flow (a flow's counts are all its jobs, as in GET /flows/:id).
  const zero = () => Object.fromEntries(downloadStatuses.map((k) => [k, 0])) as Record<DownloadStatus, number>;
  const all = zero();
  const byKind = { flow: zero(), shared: zero() };
  const sharedIds = new Set(sharedPlaylists.map((p) => p.id));
  const perShared = new Map<string, Record<DownloadStatus, number>>();
  const perFlow = new Map<string, Record<DownloadStatus, number>>();
  for (const r of round ? groupedFromRound(db, userId, round) : groupedCounts(db, userId)) {
    const mine = r.mine ?? r.n;
    all[r.status] += mine;
    if (r.type === 'flow') {
      byKind.flow[r.status] += mine;
      if (r.id !== null) {
        const c = perFlow.get(r.id) ?? perFlow.set(r.id, zero()).get(r.id)!;
        c[r.status] += r.n;
      }
    } else if (r.type === 'shared') {
      byKind.shared[r.status] += mine;
      if (r.id !== null && sharedIds.has(r.id)) {
        const c = perShared.get(r.id) ?? perShared.set(r.id, zero()).get(r.id)!;
        c[r.status] += mine;
      }
    }
  }
  const stats = withTotal(all);
  const flowStats = withTotal(byKind.flow);
  const sharedStats = withTotal(byKind.shared);
  const sharedPlaylistStats: Record<string, Counts> = {};
  for (const p of sharedPlaylists) sharedPlaylistStats[p.id] = withTotal(perShared.get(p.id) ?? zero());

  const active = downloads.list(db, { userId, status: 'downloading', limit: 1, offset: 0 });
  const hour = ctx.clock.now() - 3600_000;
  const metrics = downloadMetrics(db, hour, userId);
  const sources = round ? (round.sources ??= ctx.downloads.sources()) : ctx.downloads.sources();

  const running = settings.downloads.worker.running;
  const hint = !running
    ? { phase: 'stopped', message: 'The download worker is stopped: start it to download queued tracks' }
    : sources.length === 0 && stats.pending > 0
      ? { phase: 'no-source', message: 'No download source is set up: add slskd, Usenet or yt-dlp in Settings → Downloads' }
      : stats.downloading > 0
        ? { phase: 'downloading', message: `Downloading ${stats.downloading} track${stats.downloading === 1 ? '' : 's'}` }
        : stats.pending > 0
          ? { phase: 'queued', message: `${stats.pending} track${stats.pending === 1 ? '' : 's'} waiting to download` }
          : stats.blocked > 0
            ? { phase: 'review', message: `${stats.blocked} track${stats.blocked === 1 ? '' : 's'} waiting for review` }
            : { phase: 'idle', message: 'Nothing to download' };

  const avail = round ? (round.availability ??= sourceAvailability(ctx)) : sourceAvailability(ctx);
  const availableSources = Object.entries(avail).filter(([, r]) => r === null).map(([s]) => s);
  // Keyed by source, the reason as the value (the reference service's shape, read by the Pocket app).
  const unavailableSources: Record<string, string> = {};
  for (const [source, reason] of Object.entries(avail)) if (reason !== null) unavailableSources[source] = reason;

  const flowIds = new Set(visibleFlows.map((f) => f.id));
  const queued = () =>
    openJobsOfQueues(db, FLOW_RUN_QUEUE, FLOW_OP_QUEUE) as NonNullable<StatusRound['ops']>;
  const ops = (round ? (round.ops ??= queued()) : queued())
    .map((j) => ({ ...j, p: JSON.parse(j.payload) as { flowId: string; trigger?: string; op?: string; afterRefresh?: boolean } }))
    // A scheduled run waiting for its day is the flow's nextRunAt, not queued work; a run waiting for
    // the owner's discovery refresh is.
    .filter((j) => (userId === undefined || flowIds.has(j.p.flowId)) && (j.runAt <= ctx.clock.now() || j.p.afterRefresh === true))
    .map((j) => ({
      id: String(j.id),
      type: j.queue === FLOW_RUN_QUEUE ? 'run' : (j.p.op ?? 'operation'),
      flowId: j.p.flowId,
      trigger: j.p.trigger ?? null,
      status: j.status,
      // Set while the run waits for the discovery refresh to finish.
      ...(j.p.afterRefresh === true && j.status === 'pending' && j.runAt > ctx.clock.now() && { waitingFor: 'discovery' as const }),
    }));
  const flowNames = new Map(visibleFlows.map((f) => [f.id, f.name]));
  const runningOp = ops.find((o) => o.status === 'running');
  const currentLabel = runningOp ? operationLabel(runningOp.type, flowNames.get(runningOp.flowId) ?? runningOp.flowId) : null;
  const operationsRunning = ctx.jobs.started;

  const slskd = ctx.slskd;
  const visibleRetry = retryCycles(ctx, viewer, sharedPlaylists.map((p) => p.id));
  return {
    flows: flows.presentMany(visibleFlows, perFlow, userId),
    sharedPlaylists,
    stats,
    flowStats,
    sharedStats,
    sharedPlaylistStats,
    worker: {
      running,
      processing: stats.downloading > 0,
      activeCount: stats.downloading,
      currentJob: active[0] ? presentJob(active[0]) : null,
      stats,
      settings: { ...workerSettings(settings), retryPausedPlaylistIds: Object.keys(visibleRetry.retryCyclePaused).filter((id) => visibleRetry.retryCyclePaused[id]) },
      downloadMetrics: {
        completedLastHour: metrics.completedLastHour ?? 0,
        failedLastHour: metrics.failedLastHour ?? 0,
        averageDurationMs: metrics.averageMs === null ? null : Math.round(metrics.averageMs),
        ...completedMetrics(db, userId),
      },
      lastJobMetrics: lastJobMetrics(db, userId),
      playlistRuns: playlistRuns(db, [...flowIds], perFlow),
    },
    hint,
    capabilities: {
      availableSources,
      unavailableSources,
      lastfmRequired: round ? (round.lastfmRequired ??= ctx.discoveryProviders.lastfmUnavailable() !== null) : ctx.discoveryProviders.lastfmUnavailable() !== null,
      downloadSources: sources.map((s) => s.id),
    },
    operationQueue: {
      pending: ops.filter((o) => o.status === 'pending').length,
      running: ops.filter((o) => o.status === 'running').length,
      processing: runningOp !== undefined,
      currentLabel,
      items: ops,
    },
    operationWorker: { running: operationsRunning, currentLabel },
    slskd: {
      configured: slskd.configured,
      connected: slskd.configured && !slskd.circuitOpen,
      downloadPath: slskd.configured ? slskd.settings.downloadPath.trim() || null : null,
      serverState: slskd.serverState(),
    },
    ...visibleRetry,
  };
}

/** What the flow operation worker is doing, in words. */
function operationLabel(type: string, flowName: string): string {
  if (type === 'run') return `Building ${flowName}`;
  if (type === 'disable') return `Turning off ${flowName}`;
  if (type === 'delete') return `Deleting ${flowName}`;
  return `${type} ${flowName}`;
}


/**
 * Job counts by playlist and status in one pass: for an administrator over the covering index
 * (playlist_type, playlist_id, status); for a user `mine` counts the user's own jobs beside `n`.
 */
function groupedCounts(db: Db, userId: number | undefined): GroupedCount[] {
  return groupedJobCounts(db, userId);
}

/**
 * groupedCounts for one audience of a push round, from the round's counts by owner (read once: one
 * pass over the jobs serves the administrators and every user).
 */
function groupedFromRound(db: Db, userId: number | undefined, round: StatusRound): GroupedCount[] {
  round.grouped ??= groupedJobCountsByOwner(db);
  const out = new Map<string, GroupedCount>();
  for (const r of round.grouped) {
    const key = `${r.type}\u0000${r.id}\u0000${r.status}`;
    let c = out.get(key);
    if (!c) out.set(key, (c = { type: r.type, id: r.id, status: r.status, n: 0, ...(userId !== undefined && { mine: 0 }) }));
    c.n += r.n;
    if (userId !== undefined && r.userId === userId) c.mine! += r.n;
  }
  return [...out.values()];
}

/** The last hour's downloads: two range reads on (status, completed_at) and (status, updated_at). */
function downloadMetrics(db: Db, hour: number, userId: number | undefined) {
  const { done, failed } = downloadMetricsSince(db, hour, userId);
  return { completedLastHour: done.n, failedLastHour: failed, averageMs: done.averageMs };
}

/**
 * The retry cycle of the static and shared playlists the viewer may see: which are paused, and when
 * the others with failed tracks are searched again (the next run of the hourly cycle).
 */
function retryCycles(ctx: Deps, viewer: { id: number; role: string }, sharedIds: string[]) {
  // Only static and shared playlists have a retry cycle: flows (whose refs cost a track walk each) are not asked.
  const statics = ctx.playlists.provider('static');
  const visible = new Set([...(statics ? statics.visibleTo(viewer).map((r) => r.id) : []), ...sharedIds]);
  const paused = pausedRetryCycles(ctx);
  const retryCyclePaused: Record<string, boolean> = {};
  for (const id of visible) retryCyclePaused[id] = paused[id] === true;
  const next = scheduledTaskNextRun(ctx.db, RETRY_CYCLE_TASK);
  const retryCycleNextAt: Record<string, string> = {};
  if (next) {
    const failing = playlistsWithFailedJobs(ctx.db);
    for (const id of failing) if (visible.has(id) && !retryCyclePaused[id]) retryCycleNextAt[id] = new Date(next).toISOString();
  }
  const retryCycleScheduledByPlaylist: Record<string, boolean> = {};
  for (const id of visible) retryCycleScheduledByPlaylist[id] = retryCycleNextAt[id] !== undefined;
  // The reference service's names of the same facts (read by the Pocket app) beside ours.
  return { retryCyclePaused, retryCycleNextAt, retryCyclePausedByPlaylist: { ...retryCyclePaused }, retryCycleScheduledByPlaylist };
}

/**
 * Pushes `playlist_status` to each audience listening on `playlists` or `weekly-flow`: soon after a
 * job, flow or playlist changed (debounced), and every 4 s while someone listens; an audience whose
 * status is unchanged gets nothing.
 */
export function startStatusPush(ctx: Deps): void {
  /** What each socket's principal was sent last: a socket gets a status it has not seen, once. */
  const delivered = new WeakMap<Principal, string>();
  let timer: NodeJS.Timeout | null = null;
  const push = () => {
    timer = null;
    const byAudience = new Map<string, Principal[]>();
    for (const p of ctx.hub.listeners(['playlists', 'weekly-flow'])) {
      if (!hasPermission(p, 'accessFlow')) continue;
      const key = audienceOf(p);
      byAudience.set(key, [...(byAudience.get(key) ?? []), p]);
    }
    const round: StatusRound = {};
    for (const principals of byAudience.values()) {
      let json: string;
      let body: ReturnType<typeof playlistStatus>;
      try {
        body = playlistStatus(ctx, principals[0]!, round);
        json = JSON.stringify(body);
      } catch (err) {
        ctx.log.warn('playlist status could not be computed', { error: err instanceof Error ? err.message : String(err) });
        continue;
      }
      const targets = new Set(principals.filter((p) => delivered.get(p) !== json));
      if (targets.size === 0) continue;
      for (const p of targets) delivered.set(p, json);
      const audience = (p: Principal) => targets.has(p);
      ctx.hub.broadcast('playlists', 'playlist_status', body, { audience });
      ctx.hub.broadcast('weekly-flow', 'playlist_status', body, { audience });
    }
  };
  const soon = () => {
    if (!timer) timer = setTimeout(push, DEBOUNCE_MS).unref();
  };
  ctx.downloads.onEvent(soon);
  ctx.playlists.onChange(soon);
  ctx.hub.onSubscriptionChange((channel) => {
    if (channel === 'playlists' || channel === 'weekly-flow') soon();
  });
  const every = setInterval(() => {
    if (ctx.hub.subscriberCount('playlists') + ctx.hub.subscriberCount('weekly-flow') > 0) push();
  }, PUSH_EVERY_MS);
  every.unref();
  ctx.onClose(() => {
    clearInterval(every);
    if (timer) clearTimeout(timer);
  });
}
