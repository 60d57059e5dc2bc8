import type { DownloadJobRow, DownloadStatus } from '../../db/downloads.js';
import { clearStaging, removeSafely } from './filing.js';
import { downloadsRoot, type Deps as DownloadsLayoutDeps } from './layout.js';
import { readState } from './state.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db' | 'jobs' | 'log'> & { downloads: DownloadService } & DownloadsLayoutDeps;

/**
 * Cancels a job however it is asked for (the cancel route, an album cancelled or removed): the job
 * becomes `cancelled` if it is still in one of `from`, its queued run is dropped, the source's
 * transfer is stopped, and its held or partial files leave staging. Returns the cancelled row, or
 * undefined when the job had moved on meanwhile; `stopped` settles once the source has answered.
 */
export function cancelJob(
  ctx: Deps,
  job: DownloadJobRow,
  from: DownloadStatus[],
  error = 'Cancelled by user',
): { row: DownloadJobRow; stopped: Promise<void> } | undefined {
  const row = ctx.downloads.transition(job.id, { status: 'cancelled', error, progress: 0, stagingPath: null }, from);
  if (!row) return undefined;
  if (job.queueJobId !== null) ctx.jobs.cancel(job.queueJobId);
  return { row, stopped: stopTransfer(ctx, job) };
}

async function stopTransfer(ctx: Deps, job: DownloadJobRow): Promise<void> {
  const handle = readState(job).handle;
  if (handle) {
    const source = ctx.downloads.sources().find((s) => s.id === handle.source);
    await source?.cancel(handle).catch((err: unknown) => {
      ctx.log.warn('stopping the transfer of a cancelled job failed', { jobId: job.id, error: err instanceof Error ? err.message : String(err) });
    });
  }
  const root = downloadsRoot(ctx);
  removeSafely(ctx.db, root, job.stagingPath, job.id);
  clearStaging(root, job.id);
}
