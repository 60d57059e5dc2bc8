import type { SharedEntryRow } from '../../db/sharedPlaylists.js';

/**
 * How a shared-playlist entry appears on the API: its state (in the library, or its download's
 * state) and the track object of playlist details and of `addTrack` answers.
 */

/** An entry's state as clients show it: in the library, or the state of its download. */
function entryStatus(e: SharedEntryRow): string {
  if (e.available === 1) return 'available';
  if (e.job_status === 'done') return 'processing';
  return e.job_status ?? 'missing';
}

export function presentEntry(e: SharedEntryRow) {
  return {
    entryId: e.id,
    jobId: e.job_id !== null ? String(e.job_id) : null,
    position: e.position,
    artistName: e.artist_name,
    trackName: e.track_name,
    albumName: e.album_name,
    durationMs: e.duration_ms,
    recordingMbid: e.recording_mbid,
    trackId: e.track_id !== null && e.available === 1 ? String(e.track_id) : null,
    status: entryStatus(e),
    error: e.available === 1 ? null : e.job_error,
    fromSource: e.from_source === 1,
    removedFromSource: e.removed_from_source === 1,
  };
}
