import fs from 'node:fs';
import path from 'node:path';
import { downloads, type DownloadJobPatch, type DownloadJobRow } from '../../db/downloads.js';
import { FilingError, clearStaging, clearStagingAsync, freeName, placeFile, removeSafely } from './filing.js';
import { downloadsRoot, finalPath, type Deps as DownloadsLayoutDeps } from './layout.js';
import { replayGainForDownload, type Deps as DownloadsReplayGainDeps } from './replayGain.js';
import { JobLeft, type PipelineState } from './state.js';
import { qualityTier, readAudio, tierRank } from './verify.js';
import type { Kernel } from '../../kernel.js';
import type { LibraryService } from '../library/service.js';
import type { DownloadService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'log'>
  & {
    downloads: DownloadService;
    library: LibraryService;
  }
  & DownloadsLayoutDeps
  & DownloadsReplayGainDeps;

/**
 * Files a held file: tags it, places it at the layout's path, asks for a scoped library scan and
 * marks the job done. Used by the pipeline's file phase and by approve (from `blocked`).
 */
export async function fileJob(
  ctx: Deps,
  job: DownloadJobRow,
  st: PipelineState,
  opts: { signal?: AbortSignal; ffmpeg: string | null; fromStatus: 'downloading' },
): Promise<string> {
  const svc = ctx.downloads;
  const root = downloadsRoot(ctx);
  const held = st.held ?? job.stagingPath;
  const save = (patch: DownloadJobPatch) => {
    const after = svc.transition(job.id, patch, [opts.fromStatus]);
    if (!after) throw new JobLeft('job left downloading');
    return after;
  };
  // Filed before a restart, only the bookkeeping left.
  if (job.finalPath && st.target === job.finalPath && fs.existsSync(job.finalPath)) return finish(ctx, job, job.finalPath, root, save);
  if (!held || !fs.existsSync(held)) {
    svc.transition(job.id, { status: 'failed', error: 'The downloaded file is gone from staging; search again' }, [opts.fromStatus]);
    throw new FilingError('Staging file no longer exists');
  }
  const facts = await readAudio(held);
  const ext = path.extname(held).replace(/^\./, '').toLowerCase() || facts.format;
  let target: string;
  try {
    target = freeName(finalPath(root, job, ext), st.target ?? null);
  } catch (err) {
    svc.transition(job.id, { status: 'failed', error: err instanceof Error ? err.message : String(err) }, [opts.fromStatus]);
    throw err;
  }
  save({ phase: 'file', sourceState: JSON.stringify({ ...st, held, target }) });
  const replayGain = await replayGainForDownload(ctx, held, facts, opts.ffmpeg, opts.signal);
  let placed;
  try {
    placed = await placeFile({
      held,
      target,
      jobId: job.id,
      ffmpeg: opts.ffmpeg,
      signal: opts.signal,
      expectDurationMs: facts.durationMs,
      tags: {
        title: job.trackName,
        artist: job.artistName,
        album: job.albumName,
        trackNumber: job.trackNumber,
        discNumber: job.discNumber,
        year: job.year,
        recordingMbid: job.recordingMbid,
        releaseMbid: job.releaseMbid,
        albumMbid: job.albumMbid,
        artistMbid: job.artistMbid,
        replayGain,
      },
    });
  } catch (err) {
    if (err instanceof FilingError) {
      svc.transition(job.id, { status: 'failed', error: err.message }, [opts.fromStatus]);
      clearStaging(root, job.id);
    }
    throw err;
  }
  if (!placed.tagged && placed.tagError === null) ctx.log.warn('ffmpeg not found: download filed without tags', { jobId: job.id, path: placed.path });
  else if (!placed.tagged) ctx.log.warn('tagging failed: download filed without tags', { jobId: job.id, path: placed.path, error: placed.tagError });
  save({
    finalPath: placed.path,
    sourceState: JSON.stringify({ ...st, held, target: placed.path }),
    format: facts.format,
    bitrate: facts.bitrate,
    sampleRate: facts.sampleRate,
    bitDepth: facts.bitDepth,
    qualityTier: qualityTier(facts),
    streamFormat: ext,
  });
  if (job.upgrade === 1) {
    const replaced = replaceUpgraded(ctx, job, placed.path, qualityTier(facts), root);
    if (!replaced) {
      removeSafely(ctx.db, root, placed.path, job.id);
      svc.transition(job.id, { status: 'failed', finalPath: null, error: 'No better copy than the one in the library was found' }, [opts.fromStatus]);
      clearStaging(root, job.id);
      throw new JobLeft('upgrade not better');
    }
  }
  return finish(ctx, job, placed.path, root, save);
}

/**
 * A finished quality upgrade: the done job it upgrades now points at the better file (and its
 * quality), and the old file is removed when nothing else uses it. False when the new copy is not
 * better (or the original job is gone), so the caller drops the new file instead.
 */
function replaceUpgraded(ctx: Deps, upgrade: DownloadJobRow, file: string, tier: string, root: string): boolean {
  const target = downloads.upgradeTarget(ctx.db, upgrade);
  if (!target) return false;
  if (tierRank(tier) <= tierRank(target.qualityTier)) return false;
  const fresh = downloads.get(ctx.db, upgrade.id)!;
  const old = target.finalPath;
  const updated = ctx.downloads.transition(
    target.id,
    {
      finalPath: file,
      format: fresh.format,
      bitrate: fresh.bitrate,
      sampleRate: fresh.sampleRate,
      bitDepth: fresh.bitDepth,
      qualityTier: fresh.qualityTier,
      streamFormat: fresh.streamFormat,
    },
    ['done'],
  );
  if (!updated) return false;
  if (old && old !== file && removeSafely(ctx.db, root, old, target.id)) {
    try {
      ctx.library.scans.requestScan('quick', 'download upgraded', [old], { paced: true });
    } catch (err) {
      ctx.log.warn('library scan request failed', { jobId: upgrade.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return true;
}

/**
 * The bookkeeping after the file is in place: the library scan of it, the staging folder gone, the
 * job done. Staging is cleared first (off the event loop), so a done job never leaves it behind; a
 * kill in between finds the file filed and only this left to do.
 */
async function finish(ctx: Deps, job: DownloadJobRow, file: string, root: string, save: (p: DownloadJobPatch) => DownloadJobRow): Promise<string> {
  try {
    ctx.library.scans.requestScan('quick', 'download filed', [file], { paced: true });
  } catch (err) {
    ctx.log.warn('library scan request failed', { jobId: job.id, error: err instanceof Error ? err.message : String(err) });
  }
  await clearStagingAsync(root, job.id);
  save({
    status: 'done',
    phase: 'file',
    progress: 100,
    finalPath: file,
    stagingPath: null,
    error: null,
    blockReason: null,
    completedAt: ctx.clock.now(),
  });
  return file;
}
