import type { AppContext } from '../../context.js';
import { downloads, downloadStatuses, type DownloadStatus } from '../../db/downloads.js';
import { hasPermission, type Principal } from '../auth/principal.js';
import { workerSettings } from '../downloads/control.js';
import { presentJob } from '../downloads/present.js';
import { canSeeAllJobs, downloadsOf } from '../downloads/service.js';
import { discoveryProvidersOf } from '../discovery/providers.js';
import { playlistsOf } from '../playlists/registry.js';
import { pausedRetryCycles, RETRY_CYCLE_TASK } from '../playlists/retryCycle.js';
import { slskdOf } from '../slskd/connection.js';
import { FLOW_OP_QUEUE, FLOW_RUN_QUEUE, flowsOf } from './service.js';

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

export function playlistStatus(ctx: AppContext, principal: Principal) {
  const db = ctx.db;
  const flows = flowsOf(ctx);
  const userId = canSeeAllJobs(principal) ? undefined : principal.userId;
  const settings = ctx.settings.get();
  const viewer = { id: principal.userId, role: principal.role };

  const visibleFlows = flows.list(principal);
  const shared = playlistsOf(ctx).provider('shared');
  const sharedPlaylists = shared ? shared.visibleTo(viewer).map((r) => ({ id: r.id, name: r.name, ownerUserId: r.ownerUserId, owner: r.owner, trackCount: r.songCount })) : [];

  const stats = withTotal(downloads.countsByStatus(db, { userId }));
  const flowStats = withTotal(downloads.countsByStatus(db, { userId, playlistType: 'flow' }));
  const sharedStats = withTotal(downloads.countsByStatus(db, { userId, playlistType: 'shared' }));
  const sharedPlaylistStats: Record<string, Counts> = {};
  for (const p of sharedPlaylists) sharedPlaylistStats[p.id] = withTotal(downloads.countsByStatus(db, { userId, playlistType: 'shared', playlistId: p.id }));

  const active = downloads.list(db, { userId, status: 'downloading', limit: 1, offset: 0 });
  const hour = ctx.clock.now() - 3600_000;
  const metrics = db
    .prepare(
      `SELECT SUM(status = 'done' AND completed_at >= @hour) AS completedLastHour, SUM(status = 'failed' AND updated_at >= @hour) AS failedLastHour,
         AVG(CASE WHEN status = 'done' AND completed_at >= @hour THEN completed_at - created_at END) AS averageMs
       FROM download_jobs WHERE (@userId IS NULL OR user_id = @userId)`,
    )
    .get({ hour, userId: userId ?? null }) as { completedLastHour: number | null; failedLastHour: number | null; averageMs: number | null };
  const sources = downloadsOf(ctx).sources();

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

  const avail = flows.sourceAvailability();
  const availableSources = Object.entries(avail).filter(([, r]) => r === null).map(([s]) => s);
  const unavailableSources = Object.entries(avail).filter(([, r]) => r !== null).map(([source, reason]) => ({ source, reason: reason! }));

  const flowIds = new Set(visibleFlows.map((f) => f.id));
  const ops = (
    db
      .prepare(`SELECT id, queue, status, payload, run_at AS runAt FROM jobs WHERE queue IN (?, ?) AND status IN ('pending', 'running') ORDER BY run_at, id`)
      .all(FLOW_RUN_QUEUE, FLOW_OP_QUEUE) as { id: number; queue: string; status: string; payload: string; runAt: number }[]
  )
    .map((j) => ({ ...j, p: JSON.parse(j.payload) as { flowId: string; trigger?: string; op?: string } }))
    // A scheduled run waiting for its day is the flow's nextRunAt, not queued work.
    .filter((j) => (userId === undefined || flowIds.has(j.p.flowId)) && j.runAt <= ctx.clock.now())
    .map((j) => ({ id: String(j.id), type: j.queue === FLOW_RUN_QUEUE ? 'run' : (j.p.op ?? 'operation'), flowId: j.p.flowId, trigger: j.p.trigger ?? null, status: j.status }));

  const slskd = slskdOf(ctx);
  return {
    flows: visibleFlows.map((f) => flows.present(f)),
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
      settings: workerSettings(settings),
      downloadMetrics: {
        completedLastHour: metrics.completedLastHour ?? 0,
        failedLastHour: metrics.failedLastHour ?? 0,
        averageDurationMs: metrics.averageMs === null ? null : Math.round(metrics.averageMs),
      },
    },
    hint,
    capabilities: {
      availableSources,
      unavailableSources,
      lastfmRequired: discoveryProvidersOf(ctx).lastfmUnavailable() !== null,
      downloadSources: sources.map((s) => s.id),
    },
    operationQueue: { pending: ops.filter((o) => o.status === 'pending').length, running: ops.filter((o) => o.status === 'running').length, items: ops },
    slskd: { configured: slskd.configured, connected: slskd.configured && !slskd.circuitOpen },
    ...retryCycles(ctx, viewer),
  };
}

/**
 * The retry cycle of the static and shared playlists the viewer may see: which are paused, and when
 * the others with failed tracks are searched again (the next run of the hourly cycle).
 */
function retryCycles(ctx: AppContext, viewer: { id: number; role: string }) {
  const registry = playlistsOf(ctx);
  const visible = new Set(registry.visibleTo(viewer).filter((r) => r.kind !== 'flow').map((r) => r.id));
  const paused = pausedRetryCycles(ctx);
  const retryCyclePaused: Record<string, boolean> = {};
  for (const id of visible) retryCyclePaused[id] = paused[id] === true;
  const next = ctx.db.prepare('SELECT next_run_at FROM scheduled_tasks WHERE name = ?').pluck().get(RETRY_CYCLE_TASK) as number | null | undefined;
  const retryCycleNextAt: Record<string, string> = {};
  if (next) {
    const failing = ctx.db
      .prepare(`SELECT DISTINCT playlist_id FROM download_jobs WHERE status = 'failed' AND upgrade = 0 AND playlist_type IN ('static', 'shared') AND playlist_id IS NOT NULL`)
      .pluck()
      .all() as string[];
    for (const id of failing) if (visible.has(id) && !retryCyclePaused[id]) retryCycleNextAt[id] = new Date(next).toISOString();
  }
  return { retryCyclePaused, retryCycleNextAt };
}

/**
 * Pushes `playlist_status` to each audience listening on `playlists` or `weekly-flow`: soon after a
 * job, flow or playlist changed (debounced), and every 4 s while someone listens; an audience whose
 * status is unchanged gets nothing.
 */
export function startStatusPush(ctx: AppContext): void {
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
    for (const principals of byAudience.values()) {
      let json: string;
      let body: ReturnType<typeof playlistStatus>;
      try {
        body = playlistStatus(ctx, principals[0]!);
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
  downloadsOf(ctx).onEvent(soon);
  playlistsOf(ctx).onChange(soon);
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
