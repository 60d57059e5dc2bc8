import type { Db } from './connection.js';
import { statement } from './statements.js';

/**
 * Self-managed album requests (decisions §5): one row per requested release group, whose tracks are
 * download jobs (download_jobs.album_id). Monitored albums are searched again when a source appears.
 */
export interface DownloadAlbumRow {
  id: number;
  albumMbid: string;
  releaseMbid: string | null;
  artistMbid: string | null;
  artistName: string;
  albumName: string;
  userId: number | null;
  monitored: number;
  waitingForSource: number;
  createdAt: number;
  updatedAt: number;
}

const ALBUM_COLUMNS = `id, album_mbid AS albumMbid, release_mbid AS releaseMbid, artist_mbid AS artistMbid,
  artist_name AS artistName, album_name AS albumName, user_id AS userId, monitored,
  waiting_for_source AS waitingForSource, created_at AS createdAt, updated_at AS updatedAt`;

export const downloadAlbums = {
  upsert(
    db: Db,
    a: { albumMbid: string; releaseMbid: string | null; artistMbid: string | null; artistName: string; albumName: string; userId: number | null; waitingForSource: boolean },
    now: number,
  ): DownloadAlbumRow {
    return statement(
        db,
        `INSERT INTO download_albums (album_mbid, release_mbid, artist_mbid, artist_name, album_name, user_id, monitored,
           waiting_for_source, created_at, updated_at)
         VALUES (@albumMbid, @releaseMbid, @artistMbid, @artistName, @albumName, @userId, 1, @waiting, @now, @now)
         ON CONFLICT (album_mbid) DO UPDATE SET release_mbid = COALESCE(excluded.release_mbid, release_mbid),
           artist_mbid = COALESCE(excluded.artist_mbid, artist_mbid), monitored = 1,
           waiting_for_source = excluded.waiting_for_source, updated_at = excluded.updated_at
         RETURNING ${ALBUM_COLUMNS}`,
      )
      .get({ ...a, waiting: a.waitingForSource ? 1 : 0, now }) as DownloadAlbumRow;
  },

  get(db: Db, id: number): DownloadAlbumRow | undefined {
    return statement(db, `SELECT ${ALBUM_COLUMNS} FROM download_albums WHERE id = ?`).get(id) as DownloadAlbumRow | undefined;
  },

  byMbid(db: Db, albumMbid: string): DownloadAlbumRow | undefined {
    return statement(db, `SELECT ${ALBUM_COLUMNS} FROM download_albums WHERE album_mbid = ?`).get(albumMbid) as DownloadAlbumRow | undefined;
  },

  all(db: Db): DownloadAlbumRow[] {
    return statement(db, `SELECT ${ALBUM_COLUMNS} FROM download_albums ORDER BY id DESC`).all() as DownloadAlbumRow[];
  },

  waitingForSource(db: Db): DownloadAlbumRow[] {
    return statement(db, `SELECT ${ALBUM_COLUMNS} FROM download_albums WHERE waiting_for_source = 1 AND monitored = 1 ORDER BY id`)
      .all() as DownloadAlbumRow[];
  },

  update(db: Db, id: number, patch: { monitored?: boolean; waitingForSource?: boolean }, now: number): void {
    const sets: string[] = ['updated_at = @now'];
    if (patch.monitored !== undefined) sets.push('monitored = @monitored');
    if (patch.waitingForSource !== undefined) sets.push('waiting_for_source = @waiting');
    statement(db, `UPDATE download_albums SET ${sets.join(', ')} WHERE id = @id`).run({
      id,
      now,
      monitored: patch.monitored ? 1 : 0,
      waiting: patch.waitingForSource ? 1 : 0,
    });
  },

  delete(db: Db, id: number): number {
    return statement(db, 'DELETE FROM download_albums WHERE id = ?').run(id).changes;
  },
};
