import fs from 'node:fs';
import path from 'node:path';
import { downloads, type DownloadJobRow } from '../../db/downloads.js';
import type { Principal } from '../auth/principal.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { qualityTiers, type Settings } from '../settings/schema.js';
import { STAGING_DIR, downloadsRoot, isInside, type Deps as DownloadsLayoutDeps } from './layout.js';
import { DOWNLOAD_SOURCES, type DownloadSourceId } from './sources/index.js';
import { TRACK_QUEUE, canSeeAllJobs, type DownloadService } from './service.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'scheduler'>
  & {
    settings: SettingsStore;
    downloads: DownloadService;
  }
  & DownloadsLayoutDeps;

/**
 * Control of the track pipeline around it: the worker settings and its start/stop switch, clearing
 * finished jobs, quality upgrades, research of missing tracks and the review timeout. The pipeline
 * itself (the queue handler) reads the same settings; nothing here runs a download.
 */

type QualityTier = (typeof qualityTiers)[number];

/** The caller's view of jobs: their own, or everyone's for administrators (reference §3.10). */
const ownerFilter = (p: Principal): number | undefined => (canSeeAllJobs(p) ? undefined : p.userId);

// --- worker settings ------------------------------------------------------------------------

export interface WorkerSettingsPatch {
  running?: boolean;
  concurrency?: number;
  existingFileMode?: 'download' | 'reuse';
  durationToleranceSeconds?: number;
  minMatchScore?: number;
  retryPauseMinutes?: number;
  blockedTimeoutHours?: number;
  preferLossless?: boolean;
  qualityCutoff?: QualityTier;
  sourcePriorities?: Partial<Record<DownloadSourceId, number>>;
}

/** The flat object clients read (api.md 4.10 worker settings). */
export function workerSettings(settings: Settings) {
  const w = settings.downloads.worker;
  return {
    concurrency: w.concurrency,
    existingFileMode: w.existingFileMode,
    durationToleranceSeconds: w.durationToleranceSeconds,
    minMatchScore: w.minMatchScore,
    retryPauseMinutes: w.retryPauseMinutes,
    blockedTimeoutHours: w.blockedTimeoutHours,
    preferLossless: w.preferLossless,
    qualityCutoff: w.qualityCutoff,
    sourcePriorities: Object.fromEntries(DOWNLOAD_SOURCES.map((s) => [s.id, s.priority(settings)])) as Record<DownloadSourceId, number>,
    running: w.running,
  };
}

/**
 * Saves a partial change through the settings store (validated there as well). A source's priority
 * goes where its descriptor keeps it (Usenet's on both SABnzbd and NZBGet).
 */
export function updateWorkerSettings(ctx: Deps, patch: WorkerSettingsPatch) {
  const { sourcePriorities, ...worker } = patch;
  const integrations: Record<string, { priority: number }> = {};
  for (const source of DOWNLOAD_SOURCES) {
    const priority = sourcePriorities?.[source.id];
    if (priority !== undefined) Object.assign(integrations, source.priorityPatch(priority));
  }
  const next = ctx.settings.update({ downloads: { worker }, ...(Object.keys(integrations).length > 0 && { integrations }) });
  if (next.downloads.worker.running) ctx.jobs.wake(TRACK_QUEUE);
  return workerSettings(next);
}

/** Starts or stops the worker: stopped, no new job starts (running transfers finish). */
export function setWorkerRunning(ctx: Deps, running: boolean): { success: true; running: boolean } {
  const next = ctx.settings.update({ downloads: { worker: { running } } });
  if (running) ctx.jobs.wake(TRACK_QUEUE);
  return { success: true, running: next.downloads.worker.running };
}

// --- clearing jobs ----------------------------------------------------------------------------

/**
 * Deletes the caller's finished jobs (`completed`: done, failed, cancelled), or every job of theirs
 * that is not running (`all`); administrators clear everyone's. Files stay where they are.
 */
export function deleteJobs(ctx: Deps, principal: Principal, which: 'completed' | 'all'): { success: true; deleted: number } {
  const deleted = ctx.db.transaction(() => {
    const rows = downloads.deleteFinished(ctx.db, { userId: ownerFilter(principal), all: which === 'all' });
    // A deleted pending job must not start later: drop its queued run.
    for (const r of rows) if (r.status === 'pending' && r.queueJobId !== null) ctx.jobs.cancel(r.queueJobId);
    return rows.length;
  })();
  return { success: true, deleted };
}

// --- quality upgrades -------------------------------------------------------------------------

/** Tiers worse than the cutoff (qualityTiers runs from best to worst). */
export function tiersBelow(cutoff: QualityTier): QualityTier[] {
  return qualityTiers.slice(qualityTiers.indexOf(cutoff) + 1);
}

const OPEN = new Set(['pending', 'downloading', 'blocked']);

export interface UpgradeScope {
  /** Only this user's jobs; undefined: everyone's. */
  userId?: number;
  /** A flow or playlist id, or a playlist type such as `library`. */
  playlist?: string;
  jobId?: number;
}

/**
 * Queues an upgrade job (a search for a better copy) for each done job below the quality cutoff.
 * Skipped: a job that already has an open upgrade, one whose track a finished upgrade already
 * brought to the cutoff, and, when `respectPause`, one whose last upgrade ended within the retry
 * pause (so the hourly check does not search the same track every hour).
 */
export function queueQualityUpgrades(ctx: Deps, scope: UpgradeScope, options: { respectPause?: boolean } = {}) {
  const worker = ctx.settings.get().downloads.worker;
  const below = tiersBelow(worker.qualityCutoff);
  const service = ctx.downloads;
  const pauseMs = worker.retryPauseMinutes * 60_000;
  const now = ctx.clock.now();
  let queued = 0;
  let skipped = 0;
  for (const job of downloads.doneWithTier(ctx.db, scope, below)) {
    const upgrades = downloads.upgradesOf(ctx.db, job);
    const open = upgrades.some((u) => OPEN.has(u.status));
    const reached = upgrades.some((u) => u.status === 'done' && u.qualityTier !== null && !below.includes(u.qualityTier as QualityTier));
    const recent = options.respectPause && upgrades[0] !== undefined && now - upgrades[0].updatedAt < pauseMs;
    if (open || reached || recent) {
      skipped++;
      continue;
    }
    service.create({
      userId: job.userId,
      playlistType: job.playlistType,
      playlistId: job.playlistId,
      albumId: job.albumId,
      artistName: job.artistName,
      trackName: job.trackName,
      albumName: job.albumName,
      artistMbid: job.artistMbid,
      albumMbid: job.albumMbid,
      releaseMbid: job.releaseMbid,
      recordingMbid: job.recordingMbid,
      trackNumber: job.trackNumber,
      discNumber: job.discNumber,
      durationMs: job.durationMs,
      durationSource: job.durationSource,
      year: job.year,
      upgrade: true,
    });
    queued++;
  }
  return { success: true as const, queued, skipped };
}

/** A job the caller may see, or 404 (another user's job is not revealed). */
export function visibleJob(ctx: Deps, principal: Principal, jobId: number): DownloadJobRow {
  const job = downloads.get(ctx.db, jobId);
  const owner = ownerFilter(principal);
  if (!job || (owner !== undefined && job.userId !== owner)) throw new NotFoundError('Job not found', `No download job ${jobId}`);
  return job;
}

const BUSY_MESSAGE = 'Track is already being processed';

/** The upgrade route for one job: 404 outside the playlist, 409 while the track is being processed. */
export function queueJobUpgrade(ctx: Deps, principal: Principal, playlist: string, jobId: number) {
  const job = visibleJob(ctx, principal, jobId);
  if (job.playlistId !== playlist && !(job.playlistId === null && job.playlistType === playlist))
    throw new NotFoundError('Job not found', `Download job ${jobId} is not in ${playlist}`);
  if (job.status === 'pending' || job.status === 'downloading') throw new ConflictError(BUSY_MESSAGE, 'JOB_BUSY');
  const result = queueQualityUpgrades(ctx, { userId: ownerFilter(principal), playlist, jobId });
  // Not done, or already at the cutoff: nothing to upgrade.
  return result.queued + result.skipped === 0 ? { ...result, skipped: 1 } : result;
}

// --- research of missing tracks -----------------------------------------------------------------

/**
 * Sends one failed or cancelled job back to the search, after the retry pause when it failed
 * recently. Returns false when the job changed meanwhile or its track has another open job.
 */
export function restart(ctx: Deps, job: DownloadJobRow): boolean {
  if (downloads.findOpen(ctx.db, job)) return false;
  const service = ctx.downloads;
  const pauseMs = ctx.settings.get().downloads.worker.retryPauseMinutes * 60_000;
  const waited = ctx.clock.now() - job.updatedAt;
  const delayMs = job.status === 'failed' && waited < pauseMs ? pauseMs - waited : 0;
  const row = service.transition(job.id, { status: 'pending', error: null, phase: null, progress: 0 }, ['failed', 'cancelled']);
  if (!row) return false;
  service.schedule(row, { delayMs });
  return true;
}

/** POST research-missing: every failed or cancelled track job the caller may see is searched again. */
export function researchMissing(ctx: Deps, principal: Principal): { success: true; queued: number } {
  let queued = 0;
  for (const job of downloads.missing(ctx.db, { userId: ownerFilter(principal) })) if (restart(ctx, job)) queued++;
  return { success: true, queued };
}

/**
 * Research of one job (the flow and shared-playlist research routes): 409 while it is pending or
 * downloading (decisions §5), held for review, or being upgraded; otherwise like research-missing.
 */
export function researchJob(ctx: Deps, principal: Principal, jobId: number): { success: true; queued: number } {
  const job = visibleJob(ctx, principal, jobId);
  if (job.status === 'pending' || job.status === 'downloading') throw new ConflictError(BUSY_MESSAGE, 'JOB_BUSY');
  if (job.status === 'blocked') throw new ConflictError('Track is waiting for review: approve or deny it', 'JOB_BLOCKED');
  if (downloads.upgradesOf(ctx.db, job).some((u) => OPEN.has(u.status))) throw new ConflictError('An upgrade of this track is running', 'JOB_BUSY');
  if (job.status === 'done') throw new ConflictError('Track is already downloaded', 'JOB_DONE');
  if (downloads.findOpen(ctx.db, job)) throw new ConflictError(BUSY_MESSAGE, 'JOB_BUSY');
  return { success: true, queued: restart(ctx, job) ? 1 : 0 };
}

// --- review timeout -----------------------------------------------------------------------------

export const REVIEW_TIMED_OUT = 'Review timed out';

/**
 * Removes a held file, but only one in our own staging folder (never a source's folder or the
 * library), only when no other job points at it, and only when its folder, links resolved, is
 * really inside staging. Removes the job's staging folder once it is empty.
 */
function removeHeldFile(ctx: Deps, job: DownloadJobRow): boolean {
  const file = job.stagingPath;
  if (!file) return false;
  const staging = path.join(downloadsRoot(ctx), STAGING_DIR);
  if (!isInside(staging, file) || path.resolve(file) === path.resolve(staging)) return false;
  if (downloads.pathInUse(ctx.db, file, job.id)) return false;
  try {
    const realStaging = fs.realpathSync(staging);
    const realDir = fs.realpathSync(path.dirname(file));
    if (!isInside(realStaging, realDir)) return false;
    if (!fs.lstatSync(file).isFile()) return false;
    fs.unlinkSync(file);
    if (realDir !== realStaging) fs.rmdirSync(realDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Gone already, or the folder still holds other files: nothing more to do.
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST')
      ctx.log.warn('held file of a timed-out job could not be removed', { jobId: job.id, error: err instanceof Error ? err.message : String(err) });
  }
  return !fs.existsSync(file);
}

/** Fails blocked jobs nobody reviewed within `blockedTimeoutHours` (0: never); returns how many. */
export function failTimedOutBlockedJobs(ctx: Deps): number {
  const hours = ctx.settings.get().downloads.worker.blockedTimeoutHours;
  if (hours <= 0) return 0;
  const service = ctx.downloads;
  let failed = 0;
  for (const job of downloads.blockedSince(ctx.db, ctx.clock.now() - hours * 3600_000)) {
    const row = service.transition(job.id, { status: 'failed', error: REVIEW_TIMED_OUT, phase: null }, ['blocked']);
    if (!row) continue;
    failed++;
    if (removeHeldFile(ctx, row)) service.transition(row.id, { stagingPath: null });
  }
  return failed;
}

// --- scheduled tasks --------------------------------------------------------------------------

export const QUALITY_UPGRADE_TASK = 'quality-upgrade-check';
export const BLOCKED_TIMEOUT_TASK = 'blocked-job-timeout';

/** Registers the hourly quality-upgrade check and the review timeout (every 15 minutes). */
export function startDownloadControl(ctx: Deps): void {
  ctx.scheduler.define({
    name: QUALITY_UPGRADE_TASK,
    every: 3600_000,
    priority: 10,
    handler: () => {
      const { queued, skipped } = queueQualityUpgrades(ctx, {}, { respectPause: true });
      if (queued > 0) ctx.log.info('quality upgrades queued', { queued, skipped });
    },
  });
  ctx.scheduler.define({
    name: BLOCKED_TIMEOUT_TASK,
    every: 15 * 60_000,
    handler: () => {
      const failed = failTimedOutBlockedJobs(ctx);
      if (failed > 0) ctx.log.info('blocked jobs timed out', { failed });
    },
  });
}
