import type { Db } from './connection.js';
import { statement } from './statements.js';

/**
 * Reads and writes of the playlists area beyond its own tables' repositories: the retry-cycle
 * pauses, which download jobs were attached to a playlist, and the library tracks and files a
 * playlist names.
 */

// ---- retry cycle (playlist_retry_pauses) ------------------------------------------------------

export const retryPauses = {
  isPaused(db: Db, kind: string, id: string): boolean {
    return statement(db, 'SELECT 1 FROM playlist_retry_pauses WHERE playlist_type = ? AND playlist_id = ?').get(kind, id) !== undefined;
  },
  pausedIds(db: Db): string[] {
    return statement(db, 'SELECT playlist_id FROM playlist_retry_pauses').pluck().all() as string[];
  },
  pause(db: Db, kind: string, id: string, now: number): void {
    statement(db, 'INSERT OR IGNORE INTO playlist_retry_pauses (playlist_type, playlist_id, paused_at) VALUES (?, ?, ?)').run(kind, id, now);
  },
  resume(db: Db, kind: string, id: string): void {
    statement(db, 'DELETE FROM playlist_retry_pauses WHERE playlist_type = ? AND playlist_id = ?').run(kind, id);
  },
  /** Failed (non-upgrade) jobs of playlists of these kinds, last changed at or before `before`, whose playlist is not paused (500 at most). */
  failedJobsToRetry(db: Db, kinds: readonly string[], before: number): number[] {
    return statement(
      db,
      `SELECT j.id FROM download_jobs j WHERE j.status = 'failed' AND j.upgrade = 0 AND j.playlist_id IS NOT NULL
         AND j.playlist_type IN (${kinds.map(() => '?').join(', ')}) AND j.updated_at <= ?
         AND NOT EXISTS (SELECT 1 FROM playlist_retry_pauses p WHERE p.playlist_type = j.playlist_type AND p.playlist_id = j.playlist_id)
       ORDER BY j.id LIMIT 500`,
    )
      .pluck()
      .all(...kinds, before) as number[];
  },
};

// ---- attaching finished jobs (playlist_attached_jobs) -----------------------------------------

export const attachedJobs = {
  /** Whether a library track exists and is available. */
  availableTrack(db: Db, trackId: number): boolean {
    return statement(db, 'SELECT id FROM library_tracks WHERE id = ? AND available = 1').pluck().get(trackId) !== undefined;
  },
  /** The library track of an available downloaded (`aurral`) file at this path. */
  trackOfDownloadedFile(db: Db, filePath: string): number | undefined {
    return statement(db, `SELECT track_id FROM library_media_files WHERE source = 'aurral' AND path = ? AND available = 1 LIMIT 1`).pluck().get(filePath) as
      | number
      | undefined;
  },
  /** Claims a job for attaching; false when it was attached already. */
  claim(db: Db, jobId: number, trackId: number, now: number): boolean {
    return statement(db, 'INSERT OR IGNORE INTO playlist_attached_jobs (job_id, track_id, attached_at) VALUES (?, ?, ?)').run(jobId, trackId, now).changes > 0;
  },
  /** Done (non-upgrade) jobs of playlists of these types not attached yet. */
  unattachedDoneJobs(db: Db, types: string[]): number[] {
    return statement(
      db,
      `SELECT j.id FROM download_jobs j WHERE j.playlist_type IN (${types.map(() => '?').join(', ')}) AND j.status = 'done'
         AND j.upgrade = 0 AND j.playlist_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM playlist_attached_jobs a WHERE a.job_id = j.id) ORDER BY j.id`,
    )
      .pluck()
      .all(...types) as number[];
  },
};

// ---- library tracks a playlist names ----------------------------------------------------------

export const playlistTracks = {
  /** Duration and album title of a library track. */
  durationAndAlbum(db: Db, trackId: number): { duration_ms: number; album: string | null } | undefined {
    return db
      .prepare('SELECT t.duration_ms, a.title AS album FROM library_tracks t LEFT JOIN library_albums a ON a.id = t.album_id WHERE t.id = ?')
      .get(trackId) as { duration_ms: number; album: string | null } | undefined;
  },
  /** What an entry copies of a library track. */
  entryFields(db: Db, trackId: number): { title: string; artist_name: string; duration_ms: number; mbid: string | null; album: string | null } | undefined {
    return db
      .prepare('SELECT title, artist_name, duration_ms, mbid, (SELECT title FROM library_albums a WHERE a.id = t.album_id) AS album FROM library_tracks t WHERE id = ?')
      .get(trackId) as { title: string; artist_name: string; duration_ms: number; mbid: string | null; album: string | null } | undefined;
  },
  /** The file of a library track to name in an export: an available one, downloaded files first. */
  exportFileLookup(db: Db): (trackId: number) => { path: string; root: string | null } | undefined {
    const fileOf = db.prepare(`SELECT path, root FROM library_media_files WHERE track_id = ? AND available = 1 ORDER BY source = 'aurral' DESC, id LIMIT 1`);
    return (trackId) => fileOf.get(trackId) as { path: string; root: string | null } | undefined;
  },
};
