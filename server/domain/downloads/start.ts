import fs from 'node:fs';
import path from 'node:path';
import { downloads } from '../../db/downloads.js';
import { clearStaging } from './filing.js';
import { STAGING_DIR, downloadsRoot, type Deps as DownloadsLayoutDeps } from './layout.js';
import { TRACK_QUEUE, type DownloadService } from './service.js';
import { DOWNLOAD_SOURCES, type SourcesDeps } from './sources/index.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { TrackPipeline } from './pipeline.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'db' | 'jobs' | 'log' | 'onClose'>
  & {
    settings: SettingsStore;
    downloads: DownloadService;
    trackPipeline: TrackPipeline;
  }
  & DownloadsLayoutDeps
  & SourcesDeps;

/**
 * Starts self-managed downloads: registers every source of DOWNLOAD_SOURCES, the TRACK_QUEUE handler
 * (concurrency follows `downloads.worker.concurrency`, read at each job start), gives jobs left
 * without a queue job theirs (the service's JobLinks: now, when the worker settings change, and the
 * scheduler's repair task), and removes staging folders of finished jobs. Review timeouts are
 * control.ts's task.
 */
export function startDownloads(ctx: Deps): void {
  const svc = ctx.downloads;
  for (const source of DOWNLOAD_SOURCES) {
    svc.registerSource(() => source.factory(ctx));
    source.start?.(ctx);
  }
  const pipeline = ctx.trackPipeline;

  ctx.jobs.register<{ jobId: number }>(TRACK_QUEUE, {
    // The real limit is the setting (checked in the pipeline); this is its maximum.
    concurrency: 8,
    visibilityTimeoutMs: 60_000,
    maxAttempts: 8,
    backoff: { baseMs: 5_000, maxMs: 5 * 60_000 },
    handler: async (job) => {
      try {
        await pipeline.run(job);
      } catch (err) {
        if (job.signal.aborted) throw err;
        const message = err instanceof Error ? err.message : String(err);
        ctx.log.warn('download job run failed', { jobId: job.payload.jobId, attempt: job.attempt, error: message });
        if (job.attempt >= job.maxAttempts) {
          svc.transition(job.payload.jobId, { status: 'failed', error: `The download kept failing: ${message}` }, ['pending', 'downloading']);
          clearStaging(downloadsRoot(ctx), job.payload.jobId);
          return;
        }
        throw err;
      }
    },
  });

  const sweep = () => void svc.links.repairLogged();
  clearLeftoverStaging(ctx);
  sweep();
  const unsubscribe = ctx.settings.onChange((next, previous) => {
    const a = next.downloads.worker;
    const b = previous.downloads.worker;
    if (a.running !== b.running || a.concurrency !== b.concurrency) {
      pipeline.slots.wakeAll();
      sweep();
    }
  });
  ctx.onClose(() => {
    svc.links.close();
    unsubscribe();
  });
}

/**
 * One pass: re-queue orphaned pending/downloading jobs when the worker runs, except those an
 * approve is filing right now (review timeouts: control.ts).
 */
export function sweepOnce(ctx: Deps): void {
  ctx.downloads.links.repair();
}

/** Staging folders of jobs that are finished or gone (a crash between filing and cleanup). */
export function clearLeftoverStaging(ctx: Deps): void {
  const root = downloadsRoot(ctx);
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, STAGING_DIR));
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const job = downloads.get(ctx.db, Number(name));
    if (!job || job.status === 'done' || job.status === 'failed' || job.status === 'cancelled') clearStaging(root, Number(name));
  }
}
