import fs from 'node:fs';
import { attachedJobs } from '../../db/playlistQueries.js';
import type { DownloadJobRow } from '../../db/downloads.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';
import type { LibraryService } from '../library/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'log'>
  & {
    attach: AttachState;
    downloads: DownloadService;
    library: LibraryService;
  };

/**
 * Tracks that a static or shared playlist wanted and a download job fetched: once the job is done
 * and its file is a library track, the track joins the playlist, once. A job finishes before the
 * library scan that reads its file ends, so a job whose track is not in the library yet is tried
 * again after every scan. Upgrade jobs (a better copy of a track already there) never join.
 */

/**
 * Adds the finished job's library track to its playlist (inside a transaction); returns what to do
 * once it is committed (announce the change), or false when the playlist is gone.
 */
export type AttachHandler = (job: DownloadJobRow, trackId: number) => false | (() => void);

export interface AttachState {
  handlers: Map<string, AttachHandler>;
}


/** The library track a done job stands for: the reused track, else the scanned file at its final path. */
export function trackOfJob(ctx: Deps, job: Pick<DownloadJobRow, 'reusedTrackId' | 'finalPath'>): number | undefined {
  if (job.reusedTrackId !== null) {
    if (attachedJobs.availableTrack(ctx.db, job.reusedTrackId)) return job.reusedTrackId;
  }
  if (!job.finalPath) return undefined;
  const paths = [job.finalPath];
  try {
    const real = fs.realpathSync(job.finalPath);
    if (real !== job.finalPath) paths.push(real);
  } catch {
    // The file is gone: only an index row with the stored path can still name it.
  }
  for (const p of paths) {
    const id = attachedJobs.trackOfDownloadedFile(ctx.db, p);
    if (id !== undefined) return id;
  }
  return undefined;
}

function tryAttach(ctx: Deps, state: AttachState, job: DownloadJobRow): boolean {
  const handler = state.handlers.get(job.playlistType);
  if (!handler || job.status !== 'done' || job.upgrade !== 0 || job.playlistId === null) return false;
  const trackId = trackOfJob(ctx, job);
  if (trackId === undefined) return false;
  const after = ctx.db.transaction((): false | (() => void) => {
    if (!attachedJobs.claim(ctx.db, job.id, trackId, ctx.clock.now())) return false;
    return handler(job, trackId);
  })();
  if (!after) return false;
  after();
  return true;
}

/** Done jobs of the registered playlist kinds whose track has not joined yet; tried after each scan. */
function sweep(ctx: Deps, state: AttachState): number {
  const types = [...state.handlers.keys()];
  if (types.length === 0) return 0;
  const ids = attachedJobs.unattachedDoneJobs(ctx.db, types);
  let n = 0;
  const service = ctx.downloads;
  for (const id of ids) {
    const job = service.get(id);
    if (job && tryAttach(ctx, state, job)) n++;
  }
  return n;
}

/** The joining of a running server (built by server/wiring.ts): follows finished jobs and scans from its first use. */
export function createAttachState(ctx: Deps): AttachState {
  const created: AttachState = { handlers: new Map() };
  ctx.downloads.onEvent((e) => {
    if (e.type !== 'job_updated' || e.job.status !== 'done' || e.previousStatus === 'done') return;
    if (created.handlers.has(e.job.playlistType)) tryAttach(ctx, created, e.job);
  });
  ctx.library.onScanCompleted(() => {
    const n = sweep(ctx, created);
    if (n > 0) ctx.log.info('downloaded tracks joined their playlists', { count: n });
  });
  return created;
}

/**
 * Makes finished download jobs with `playlist_type = playlistType` join their playlist
 * (`playlist_id`) through `handler`, exactly once per job. Call once per kind at start-up; static
 * playlists register here (see staticDownloads.ts) and so do shared playlists.
 */
export function attachFinishedJobs(ctx: Deps, playlistType: string, handler: AttachHandler): void {
  ctx.attach.handlers.set(playlistType, handler);
}

/** Tries every done job that has not joined yet (also run after each library scan). */
export function attachPendingJobs(ctx: Deps): number {
  return sweep(ctx, ctx.attach);
}
