import type { Db } from './connection.js';
import { inTransaction } from './connection.js';
import { statement } from './statements.js';
import type { ReplayGain } from './libraryModel.js';

/** Album values from its tracks' values (library/replayGain.ts albumReplayGain): the rule stays out of db/. */
export type AlbumGainOf = (tracks: { trackGain: number; trackPeak: number | null; durationMs: number }[]) => { albumGain: number; albumPeak: number | null } | null;

/** The ReplayGain store: which files still need measuring, their measured values, album values. */

export interface PendingFile {
  id: number;
  path: string;
  fingerprint: string | null;
  albumId: number | null;
}

const PENDING = `rg_source IS NULL AND rg_error IS NULL AND available = 1 AND source = 'aurral'`;

export const replayGainStore = {
  /** Files without ReplayGain values, oldest first (the partial index holds exactly these). */
  pending(db: Db, limit: number, afterId = 0): PendingFile[] {
    return statement(
      db,
      `SELECT id, path, fingerprint, album_id AS albumId FROM library_media_files INDEXED BY library_media_files_rg_pending
       WHERE ${PENDING} AND id > ? ORDER BY id LIMIT ?`,
    ).all(afterId, limit) as PendingFile[];
  },

  pendingCount(db: Db): number {
    return statement(db, `SELECT COUNT(*) FROM library_media_files INDEXED BY library_media_files_rg_pending WHERE ${PENDING}`)
      .pluck()
      .get() as number;
  },

  /**
   * Stores a file's measured track values; nothing when the file changed meanwhile (its fingerprint)
   * or got values from its tags in a rescan. Returns whether it was stored.
   */
  recordMeasured(db: Db, file: PendingFile, values: { trackGain: number; trackPeak: number } | { error: string }): boolean {
    const sql =
      'error' in values
        ? `UPDATE library_media_files SET rg_error = @error
           WHERE id = @id AND fingerprint IS @fingerprint AND rg_source IS NULL`
        : `UPDATE library_media_files SET rg_track_gain = @trackGain, rg_track_peak = @trackPeak, rg_source = 'analysis',
             rg_error = NULL
           WHERE id = @id AND fingerprint IS @fingerprint AND rg_source IS NULL`;
    return statement(db, sql).run({ ...values, id: file.id, fingerprint: file.fingerprint }).changes > 0;
  },

  /** Albums with a track that has its gain but no album gain. */
  albumsPending(db: Db, limit: number): number[] {
    return statement(
      db,
      `SELECT DISTINCT album_id FROM library_media_files INDEXED BY library_media_files_rg_album_pending
       WHERE rg_album_source IS NULL AND rg_track_gain IS NOT NULL AND available = 1 AND album_id IS NOT NULL LIMIT ?`,
    )
      .pluck()
      .all(limit) as number[];
  },

  /**
   * Computes an album's gain and peak over its available files once every one of them has a track
   * gain (or could not be measured), and stores it on the files without album values from their
   * tags. Returns 'waiting' while a file is still to be measured.
   */
  refreshAlbum(db: Db, albumId: number, albumReplayGain: AlbumGainOf): 'stored' | 'waiting' | 'none' {
    return inTransaction(db, () => {
      const files = statement(
        db,
        `SELECT rg_track_gain AS trackGain, rg_track_peak AS trackPeak, duration_ms AS durationMs, rg_source AS source,
           rg_error AS error FROM library_media_files WHERE album_id = ? AND available = 1`,
      ).all(albumId) as { trackGain: number | null; trackPeak: number | null; durationMs: number; source: string | null; error: string | null }[];
      if (files.some((f) => f.trackGain === null && f.error === null)) return 'waiting';
      const album = albumReplayGain(files.filter((f) => f.trackGain !== null) as { trackGain: number; trackPeak: number | null; durationMs: number }[]);
      if (!album) return 'none';
      statement(
        db,
        `UPDATE library_media_files SET rg_album_gain = @albumGain, rg_album_peak = @albumPeak, rg_album_source = 'analysis'
         WHERE album_id = @albumId AND (rg_album_source IS NULL OR rg_album_source = 'analysis')`,
      ).run({ ...album, albumId });
      return 'stored';
    });
  },

  /** Files whose measured values (and album values, when they have an album) are settled, to write into their tags. */
  toWrite(db: Db, limit: number, afterId = 0): (PendingFile & ReplayGain)[] {
    return statement(
      db,
      `SELECT id, path, fingerprint, album_id AS albumId, rg_track_gain AS trackGain, rg_track_peak AS trackPeak,
         rg_album_gain AS albumGain, rg_album_peak AS albumPeak
       FROM library_media_files INDEXED BY library_media_files_rg_measured
       WHERE rg_source = 'analysis' AND id > ? AND available = 1 AND source = 'aurral'
         AND (album_id IS NULL OR rg_album_source IS NOT NULL)
       ORDER BY id LIMIT ?`,
    ).all(afterId, limit) as (PendingFile & ReplayGain)[];
  },

  /** The file's tags now hold its values (the rescan that follows reads them from there). */
  markWritten(db: Db, file: PendingFile): void {
    statement(
      db,
      `UPDATE library_media_files SET rg_source = 'tags',
         rg_album_source = CASE WHEN rg_album_gain IS NOT NULL THEN 'tags' ELSE rg_album_source END
       WHERE id = ? AND fingerprint IS ?`,
    ).run(file.id, file.fingerprint);
  },

  /** The stored values of one file (tests, the tag writer). */
  valuesOf(db: Db, mediaFileId: number): (ReplayGain & { source: string | null; albumSource: string | null; error: string | null }) | undefined {
    return statement(
      db,
      `SELECT rg_track_gain AS trackGain, rg_track_peak AS trackPeak, rg_album_gain AS albumGain, rg_album_peak AS albumPeak,
         rg_source AS source, rg_album_source AS albumSource, rg_error AS error FROM library_media_files WHERE id = ?`,
    ).get(mediaFileId) as (ReplayGain & { source: string | null; albumSource: string | null; error: string | null }) | undefined;
  },
};
