import type { Db } from './connection.js';
import { statement } from './statements.js';

/**
 * Flow library visibility (reference: flow-library-visibility, the flow's `showInLibrary`). A track
 * a flow downloaded and filed is part of that flow's playlist, not of the library: it is left out of
 * the library's lists, search, counts and /rest browsing until something wants it there. The rule,
 * evaluated per track by the derived refresh (libraryDerived.ts) into `library_tracks.flow_hidden`:
 *
 * hidden when the track has files, every one of them was filed by a job of a flow whose
 * `showInLibrary` is off (not linked by file reuse), and nothing else wants the track: no other job
 * points at one of its files or reused it (a normal request, a static or shared playlist's download,
 * a flow that shows its tracks), and no static or shared playlist holds it. A file that was in the
 * library before (a music folder, another request's download) is not a flow's, so a track a flow
 * reused stays visible.
 *
 * Albums and artists are hidden when they have tracks and all of them are hidden.
 */

/**
 * Jobs that do not make a track visible: those of flows that keep their tracks out of the library,
 * and of flows deleted since (their files are on their way out).
 */
const HIDING_JOB = `(j.playlist_type = 'flow' AND NOT EXISTS (SELECT 1 FROM flows f WHERE f.id = j.playlist_id AND f.show_in_library = 1))`;

/** 1 when the track `track` (an SQL expression of its id) is hidden from the library, else 0. */
export function trackHiddenSql(track: string): string {
  return `(CASE WHEN NOT EXISTS (
      SELECT 1 FROM library_media_files m CROSS JOIN download_jobs j ON j.final_path = m.path
      WHERE m.track_id = ${track} AND +j.playlist_type = 'flow' AND j.reused_track_id IS NULL) THEN 0
    ELSE (
      NOT EXISTS (SELECT 1 FROM library_media_files m WHERE m.track_id = ${track} AND NOT EXISTS (
        SELECT 1 FROM download_jobs j WHERE j.final_path = m.path AND j.reused_track_id IS NULL AND ${HIDING_JOB}))
      AND NOT EXISTS (SELECT 1 FROM library_media_files m CROSS JOIN download_jobs j ON j.final_path = m.path
        WHERE m.track_id = ${track} AND NOT ${HIDING_JOB})
      AND NOT EXISTS (SELECT 1 FROM download_jobs j WHERE j.reused_track_id = ${track} AND NOT ${HIDING_JOB})
      AND NOT EXISTS (SELECT 1 FROM static_playlist_tracks s WHERE s.track_id = ${track})
      AND NOT EXISTS (SELECT 1 FROM shared_playlist_tracks s WHERE s.track_id = ${track})
    ) END)`;
}

/**
 * Marks the tracks whose visibility may have changed as dirty (for the next derived refresh) and
 * returns the paths of their files (a scoped scan of them runs that refresh off the main thread).
 * Tracks are chosen by the flow whose jobs filed or reused them, by id, or by file path; only tracks
 * a flow touched (or hidden now) are marked, the others cannot change.
 */
export function markVisibilityDirty(db: Db, sel: { flowId?: string; trackIds?: number[]; paths?: string[] }): string[] {
  const ids = new Set<number>();
  if (sel.flowId !== undefined) {
    const rows = statement(
      db,
      `SELECT m.track_id AS id FROM download_jobs j JOIN library_media_files m ON m.path = j.final_path
       WHERE j.playlist_type = 'flow' AND j.playlist_id = ? AND j.final_path IS NOT NULL
       UNION SELECT reused_track_id FROM download_jobs WHERE playlist_type = 'flow' AND playlist_id = ? AND reused_track_id IS NOT NULL`,
    )
      .pluck()
      .all(sel.flowId, sel.flowId) as number[];
    for (const id of rows) ids.add(id);
  }
  if (sel.paths && sel.paths.length > 0) {
    const rows = statement(db, 'SELECT track_id FROM library_media_files WHERE path IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(sel.paths)) as number[];
    for (const id of rows) ids.add(id);
  }
  for (const id of sel.trackIds ?? []) ids.add(id);
  if (ids.size === 0) return [];
  // Only tracks a flow filed, or hidden now, can change.
  const relevant = statement(
    db,
    `SELECT t.id FROM library_tracks t WHERE t.id IN (SELECT value FROM json_each(?)) AND (t.flow_hidden = 1 OR EXISTS (
       SELECT 1 FROM library_media_files m CROSS JOIN download_jobs j ON j.final_path = m.path
       WHERE m.track_id = t.id AND +j.playlist_type = 'flow'))`,
  )
    .pluck()
    .all(JSON.stringify([...ids])) as number[];
  if (relevant.length === 0) return [];
  const mark = statement(db, 'INSERT OR IGNORE INTO library_dirty (kind, entity_id) VALUES (3, ?)');
  db.transaction(() => {
    for (const id of relevant) mark.run(id);
  })();
  return statement(db, 'SELECT path FROM library_media_files WHERE track_id IN (SELECT value FROM json_each(?))')
    .pluck()
    .all(JSON.stringify(relevant)) as string[];
}

/** Which of these tracks are hidden from the library now. */
export function hiddenTrackIds(db: Db, ids: number[]): number[] {
  if (ids.length === 0) return [];
  return statement(db, 'SELECT id FROM library_tracks WHERE flow_hidden = 1 AND id IN (SELECT value FROM json_each(?))')
    .pluck()
    .all(JSON.stringify(ids)) as number[];
}

/**
 * Tracks shown only because a static or shared playlist held them, which none holds now: visible
 * tracks a flow that hides its tracks filed, in no playlist. Some stay visible for another reason
 * (another job wants them); the derived refresh decides.
 */
export function releasedFlowTrackIds(db: Db): number[] {
  return statement(
    db,
    `SELECT DISTINCT m.track_id FROM download_jobs j JOIN library_media_files m ON m.path = j.final_path
     JOIN library_tracks t ON t.id = m.track_id
     WHERE j.playlist_type = 'flow' AND j.final_path IS NOT NULL AND j.reused_track_id IS NULL AND ${HIDING_JOB}
       AND t.flow_hidden = 0
       AND NOT EXISTS (SELECT 1 FROM static_playlist_tracks s WHERE s.track_id = t.id)
       AND NOT EXISTS (SELECT 1 FROM shared_playlist_tracks s WHERE s.track_id = t.id)`,
  )
    .pluck()
    .all() as number[];
}
