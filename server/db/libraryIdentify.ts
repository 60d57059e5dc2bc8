import type { Db } from './connection.js';
import { statement } from './statements.js';

/** library_identify_runs and library_identify_proposals (issue 26 §2, "Identify files without MusicBrainz ids"). */

export interface IdentifyRun {
  id: number;
  status: 'running' | 'done' | 'failed';
  total: number;
  processed: number;
  proposed: number;
  cursor: number;
  note: string | null;
  startedAt: number;
  finishedAt: number | null;
}

export interface UnidentifiedFile {
  trackId: number;
  path: string;
  title: string;
  artistName: string;
  albumId: number | null;
  albumTitle: string | null;
  durationMs: number;
}

export interface IdentifyProposal {
  id: number;
  path: string;
  trackId: number | null;
  albumId: number | null;
  albumTitle: string | null;
  currentTitle: string;
  currentArtist: string;
  recordingMbid: string;
  title: string;
  artistName: string | null;
  artistMbid: string | null;
  score: number;
  status: 'pending' | 'accepted' | 'rejected';
}

const RUN = `id, status, total, processed, proposed, cursor, note, started_at AS startedAt, finished_at AS finishedAt`;
const PROPOSAL = `id, path, track_id AS trackId, album_id AS albumId, album_title AS albumTitle, current_title AS currentTitle,
  current_artist AS currentArtist, recording_mbid AS recordingMbid, title, artist_name AS artistName, artist_mbid AS artistMbid, score, status`;
/** Available library tracks without a recording id, each with one available file. */
const UNIDENTIFIED = `FROM library_tracks t
  JOIN library_media_files f ON f.id = (SELECT id FROM library_media_files WHERE track_id = t.id AND available = 1 ORDER BY id LIMIT 1)
  LEFT JOIN library_albums a ON a.id = t.album_id
  WHERE t.available = 1 AND t.mbid IS NULL
    AND NOT EXISTS (SELECT 1 FROM library_identify_proposals p WHERE p.path = f.path AND p.status = 'rejected')`;

export const libraryIdentify = {
  latestRun(db: Db): IdentifyRun | undefined {
    return statement(db, `SELECT ${RUN} FROM library_identify_runs ORDER BY id DESC LIMIT 1`).get() as IdentifyRun | undefined;
  },
  run(db: Db, id: number): IdentifyRun | undefined {
    return statement(db, `SELECT ${RUN} FROM library_identify_runs WHERE id = ?`).get(id) as IdentifyRun | undefined;
  },
  startRun(db: Db, total: number, now: number): IdentifyRun {
    return statement(db, `INSERT INTO library_identify_runs (status, total, started_at) VALUES ('running', ?, ?) RETURNING ${RUN}`).get(total, now) as IdentifyRun;
  },
  /** Records one more file handled (and whether it got a proposal), and where the run is. */
  advance(db: Db, id: number, cursor: number, proposed: boolean): void {
    statement(db, `UPDATE library_identify_runs SET processed = processed + 1, proposed = proposed + ?, cursor = ? WHERE id = ?`).run(proposed ? 1 : 0, cursor, id);
  },
  finishRun(db: Db, id: number, status: 'done' | 'failed', note: string | null, now: number): void {
    statement(db, `UPDATE library_identify_runs SET status = ?, note = ?, finished_at = ? WHERE id = ? AND status = 'running'`).run(status, note, now, id);
  },
  countUnidentified(db: Db): number {
    return (statement(db, `SELECT count(*) AS n ${UNIDENTIFIED}`).get() as { n: number }).n;
  },
  /** The next files to identify after track `cursor`, by track id. */
  unidentifiedAfter(db: Db, cursor: number, limit: number): UnidentifiedFile[] {
    return statement(
      db,
      `SELECT t.id AS trackId, f.path, t.title, t.artist_name AS artistName, t.album_id AS albumId, a.title AS albumTitle,
         coalesce(nullif(f.duration_ms, 0), t.duration_ms) AS durationMs
       ${UNIDENTIFIED} AND t.id > ? ORDER BY t.id LIMIT ?`,
    ).all(cursor, limit) as UnidentifiedFile[];
  },
  /** Proposes (or proposes again) ids for a file; a decided proposal of the same file is replaced. */
  propose(db: Db, p: Omit<IdentifyProposal, 'id' | 'status'>, now: number): void {
    statement(
      db,
      `INSERT INTO library_identify_proposals (path, track_id, album_id, album_title, current_title, current_artist, recording_mbid, title,
         artist_name, artist_mbid, score, status, created_at)
       VALUES (@path, @trackId, @albumId, @albumTitle, @currentTitle, @currentArtist, @recordingMbid, @title, @artistName, @artistMbid, @score, 'pending', @now)
       ON CONFLICT (path) DO UPDATE SET track_id = excluded.track_id, album_id = excluded.album_id, album_title = excluded.album_title,
         current_title = excluded.current_title, current_artist = excluded.current_artist, recording_mbid = excluded.recording_mbid,
         title = excluded.title, artist_name = excluded.artist_name, artist_mbid = excluded.artist_mbid, score = excluded.score,
         status = 'pending', created_at = excluded.created_at, decided_at = NULL`,
    ).run({ ...p, now });
  },
  pending(db: Db, albumId?: number | null): IdentifyProposal[] {
    if (albumId === undefined)
      return statement(db, `SELECT ${PROPOSAL} FROM library_identify_proposals WHERE status = 'pending' ORDER BY album_title, path`).all() as IdentifyProposal[];
    return statement(db, `SELECT ${PROPOSAL} FROM library_identify_proposals WHERE status = 'pending' AND album_id IS ? ORDER BY path`).all(albumId) as IdentifyProposal[];
  },
  decide(db: Db, id: number, status: 'accepted' | 'rejected', now: number): boolean {
    return statement(db, `UPDATE library_identify_proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'`).run(status, now, id).changes === 1;
  },
};
