import type { AppContext } from '../../context.js';
import type { DownloadJobRow } from '../../db/downloads.js';
import { requests } from '../../db/requests.js';
import { libraryServiceOf } from '../library/service.js';
import { downloadsOf } from './service.js';

/**
 * File reuse (`existingFileMode` `reuse`): a track the canonical library already holds (same
 * recording MBID, else the same normalised artist and title) is linked to the job instead of
 * downloaded again. Returns true when the job was completed that way.
 */
export function reuseOwnedTrack(ctx: AppContext, job: DownloadJobRow): boolean {
  const trackId = requests.ownedTrackId(ctx.db, { mbid: job.recordingMbid, title: job.trackName, artistName: job.artistName });
  if (trackId === undefined) return false;
  let file: { path: string; suffix?: string | null };
  try {
    file = libraryServiceOf(ctx).playableFile(trackId);
  } catch {
    return false;
  }
  const ext = file.path.split('.').pop()?.toLowerCase() ?? null;
  const done = downloadsOf(ctx).transition(
    job.id,
    {
      status: 'done',
      phase: null,
      progress: 100,
      reusedTrackId: trackId,
      finalPath: file.path,
      streamFormat: ext,
      error: null,
      completedAt: ctx.clock.now(),
    },
    ['pending'],
  );
  if (done) ctx.log.info('download job linked to a track already in the library', { jobId: job.id, trackId });
  return done !== undefined;
}
