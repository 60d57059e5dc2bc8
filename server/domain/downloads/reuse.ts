import type { DownloadJobRow } from '../../db/downloads.js';
import { requests } from '../../db/requests.js';
import type { Kernel } from '../../kernel.js';
import type { LibraryService } from '../library/service.js';
import type { DownloadService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'log'> & { downloads: DownloadService; library: LibraryService };

/**
 * File reuse (`existingFileMode` `reuse`): a track the canonical library already holds (same
 * recording MBID, else the same normalised artist and title) is linked to the job instead of
 * downloaded again. Returns true when the job was completed that way.
 */
export function reuseOwnedTrack(ctx: Deps, job: DownloadJobRow): boolean {
  const trackId = requests.ownedTrackId(ctx.db, { mbid: job.recordingMbid, title: job.trackName, artistName: job.artistName });
  if (trackId === undefined) return false;
  let file: { path: string; suffix?: string | null };
  try {
    file = ctx.library.playableFile(trackId);
  } catch {
    return false;
  }
  const ext = file.path.split('.').pop()?.toLowerCase() ?? null;
  const done = ctx.downloads.transition(
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
