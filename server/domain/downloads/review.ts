import fs from 'node:fs';
import path from 'node:path';
import { downloads, type DownloadJobRow, type DownloadStatus } from '../../db/downloads.js';
import { audioMimeOf } from '../../library/audioFormats.js';
import type { Principal } from '../auth/principal.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { locateFfmpeg } from '../subsonic/transcoding.js';
import { clearStaging, FilingError, removeSafely } from './filing.js';
import { STAGING_DIR, downloadsRoot, isInside, type Deps as DownloadsLayoutDeps } from './layout.js';
import { fileJob, type Deps as DownloadsFilePhaseDeps } from './filePhase.js';
import { readState } from './state.js';
import { presentJob, type PresentedJob } from './present.js';
import { cancelJob, type Deps as DownloadsCancelDeps } from './cancel.js';
import { canSeeAllJobs, type DownloadService } from './service.js';
import type { Kernel } from '../../kernel.js';
import type { LibraryService } from '../library/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db'>
  & {
    downloads: DownloadService;
    library: LibraryService;
  }
  & DownloadsCancelDeps
  & DownloadsFilePhaseDeps
  & DownloadsLayoutDeps;

/**
 * Review and control of download jobs for the /api/playlists/jobs routes: listing (users see
 * their own jobs, administrators all), approving a held file (filed like the pipeline's file
 * phase), denying it (removed, the source recorded so it is never picked again, the job searched
 * again), cancelling, and the files the preview and stream routes may send. A job of another user
 * is answered as missing (404), never as forbidden.
 */

export interface JobListOptions {
  status?: DownloadStatus[];
  limit?: number;
  offset?: number;
}

export function listJobs(ctx: Deps, principal: Principal, o: JobListOptions = {}): PresentedJob[] {
  const rows = downloads.list(ctx.db, {
    userId: canSeeAllJobs(principal) ? undefined : principal.userId,
    status: o.status && o.status.length > 0 ? o.status : undefined,
    limit: o.limit ?? 50,
    offset: o.offset ?? 0,
  });
  return rows.map(presentJob);
}

/** The job if the caller may see it; 404 `notFound` otherwise. */
export function visibleJob(ctx: Deps, principal: Principal, jobId: number, notFound = 'Job not found'): DownloadJobRow {
  const job = downloads.get(ctx.db, jobId);
  if (!job || (!canSeeAllJobs(principal) && job.userId !== principal.userId)) throw new NotFoundError(notFound);
  return job;
}

function blockedJob(ctx: Deps, principal: Principal, jobId: number): DownloadJobRow {
  const job = visibleJob(ctx, principal, jobId, 'Blocked job not found');
  if (job.status !== 'blocked') throw new NotFoundError('Blocked job not found');
  return job;
}

/** A held file the server may read: inside `<downloads root>/.staging`. */
function heldFile(ctx: Deps, job: DownloadJobRow): string {
  if (!job.stagingPath) throw new ValidationError('This job holds no file to review');
  const root = downloadsRoot(ctx);
  const p = path.resolve(job.stagingPath);
  if (!isInside(path.join(root, STAGING_DIR), p)) throw new ValidationError('The held file is outside the staging folder');
  if (!fs.existsSync(p)) throw new NotFoundError('Staging file no longer exists');
  return p;
}

/** Files the held file of a blocked job; answers its library path. */
export async function approve(ctx: Deps, principal: Principal, jobId: number): Promise<{ success: true; path: string }> {
  const job = blockedJob(ctx, principal, jobId);
  const held = heldFile(ctx, job);
  const svc = ctx.downloads;
  return svc.inHandOf(job.id, async () => {
    // Taken out of `blocked` first, so a second approve or a deny racing this one finds nothing.
    const taken = svc.transition(job.id, { status: 'downloading', phase: 'file', error: null }, ['blocked']);
    if (!taken) throw new NotFoundError('Blocked job not found');
    const st = readState(taken);
    try {
      const file = await fileJob(ctx, taken, { ...st, held }, { ffmpeg: locateFfmpeg(ctx.config.ffmpegPath), fromStatus: 'downloading' });
      return { success: true as const, path: file };
    } catch (err) {
      if (err instanceof FilingError) throw new ConflictError(err.message, 'FILING_FAILED');
      throw err;
    }
  });
}

/** Removes the held file, records its source as denied and sends the job back to the queue. */
export function deny(ctx: Deps, principal: Principal, jobId: number): { success: true } {
  const job = blockedJob(ctx, principal, jobId);
  const st = readState(job);
  if (st.chosen) downloads.deny(ctx.db, job.id, st.chosen.source, st.chosen.ref, ctx.clock.now());
  const next = { ...st, chosen: undefined, handle: undefined, held: undefined, target: undefined };
  const svc = ctx.downloads;
  const back = svc.transition(
    job.id,
    {
      status: 'pending',
      phase: 'search',
      error: 'Denied by user',
      blockReason: null,
      blockedAt: null,
      stagingPath: null,
      progress: 0,
      sourceState: JSON.stringify(next),
    },
    ['blocked'],
  );
  if (!back) throw new NotFoundError('Blocked job not found');
  const root = downloadsRoot(ctx);
  removeSafely(ctx.db, root, job.stagingPath, job.id);
  clearStaging(root, job.id);
  svc.schedule(back);
  return { success: true };
}

/** Cancels a pending or downloading job (and its transfer); its files are removed from staging. */
export async function cancel(ctx: Deps, principal: Principal, jobId: number): Promise<{ success: true; job: PresentedJob }> {
  const job = visibleJob(ctx, principal, jobId);
  if (job.status !== 'pending' && job.status !== 'downloading') throw new ConflictError(`Only pending or downloading jobs can be cancelled (this one is ${job.status})`);
  if (job.phase === 'file' && job.status === 'downloading') throw new ConflictError('The file is being placed in the library; it can no longer be cancelled');
  const done = cancelJob(ctx, job, ['pending', 'downloading']);
  if (!done) throw new ConflictError('The job changed meanwhile; reload it');
  await done.stopped;
  return { success: true, job: presentJob(done.row) };
}

export interface MediaFile {
  path: string;
  mime: string;
}

/** The held file of a job for the review preview (any visible job with a file in staging). */
export function stagingMedia(ctx: Deps, principal: Principal, jobId: number): MediaFile {
  const job = visibleJob(ctx, principal, jobId);
  const p = realInside(heldFile(ctx, job), path.join(downloadsRoot(ctx), STAGING_DIR));
  return { path: p, mime: audioMimeOf(p) };
}

/** The filed file of a done job: inside the downloads root, or the library file a reused job links. */
export function finalMedia(ctx: Deps, principal: Principal, jobId: number): MediaFile {
  const job = visibleJob(ctx, principal, jobId);
  if (job.status !== 'done' || !job.finalPath) throw new NotFoundError('Job file not found', 'The job has no finished file');
  if (job.reusedTrackId !== null) {
    const f = ctx.library.playableFile(job.reusedTrackId);
    return { path: f.path, mime: f.mime ?? audioMimeOf(f.path) };
  }
  const root = downloadsRoot(ctx);
  const p = path.resolve(job.finalPath);
  if (!isInside(root, p) || isInside(path.join(root, STAGING_DIR), p)) throw new NotFoundError('Job file not found');
  const real = realInside(p, root);
  return { path: real, mime: audioMimeOf(real) };
}

/** The real path of `p`, refused (404) when a link leads outside `root`. */
function realInside(p: string, root: string): string {
  let real: string;
  let realRoot: string;
  try {
    real = fs.realpathSync(p);
    realRoot = fs.realpathSync(root);
  } catch {
    throw new NotFoundError('Media file not found');
  }
  if (!isInside(realRoot, real)) throw new NotFoundError('Media file not found');
  return real;
}
