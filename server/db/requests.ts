import type { Db } from './connection.js';
import { sortName } from './libraryText.js';
import { OwnedTrackLookup } from './ownedTracks.js';

export type RequestKind = 'album' | 'artist' | 'track';
export type RequestStatus = 'processing' | 'available' | 'failed';

export interface RequestRow {
  id: number;
  kind: RequestKind;
  requestKey: string;
  artistMbid: string | null;
  albumMbid: string | null;
  artistName: string;
  title: string;
  trackName: string | null;
  lidarrArtistId: number | null;
  lidarrAlbumId: number | null;
  userId: number | null;
  status: RequestStatus;
  createdAt: number;
  updatedAt: number;
}

export interface NewRequest {
  kind: RequestKind;
  requestKey: string;
  artistMbid?: string | null;
  albumMbid?: string | null;
  artistName: string;
  title: string;
  trackName?: string | null;
  lidarrArtistId?: number | null;
  lidarrAlbumId?: number | null;
  userId?: number | null;
  status: RequestStatus;
}

const COLUMNS = `id, kind, request_key AS requestKey, artist_mbid AS artistMbid, album_mbid AS albumMbid,
  artist_name AS artistName, title, track_name AS trackName, lidarr_artist_id AS lidarrArtistId,
  lidarr_album_id AS lidarrAlbumId, user_id AS userId, status, created_at AS createdAt, updated_at AS updatedAt`;

/** lidarr_requests: what users asked Lidarr for, and whether it arrived. */
export const requests = {
  /** Creates the request, or renews an existing one for the same thing (a failed request is retried). */
  upsert(db: Db, r: NewRequest, now: number): RequestRow {
    return db
      .prepare(
        `INSERT INTO lidarr_requests (kind, request_key, artist_mbid, album_mbid, artist_name, title, track_name,
           lidarr_artist_id, lidarr_album_id, user_id, status, created_at, updated_at)
         VALUES (@kind, @requestKey, @artistMbid, @albumMbid, @artistName, @title, @trackName, @lidarrArtistId,
           @lidarrAlbumId, @userId, @status, @now, @now)
         ON CONFLICT (kind, request_key) DO UPDATE SET artist_mbid = COALESCE(excluded.artist_mbid, artist_mbid),
           album_mbid = COALESCE(excluded.album_mbid, album_mbid), artist_name = excluded.artist_name,
           title = excluded.title, track_name = COALESCE(excluded.track_name, track_name),
           lidarr_artist_id = COALESCE(excluded.lidarr_artist_id, lidarr_artist_id),
           lidarr_album_id = COALESCE(excluded.lidarr_album_id, lidarr_album_id),
           status = excluded.status, updated_at = excluded.updated_at
         RETURNING ${COLUMNS}`,
      )
      .get({
        kind: r.kind,
        requestKey: r.requestKey,
        artistMbid: r.artistMbid ?? null,
        albumMbid: r.albumMbid ?? null,
        artistName: r.artistName,
        title: r.title,
        trackName: r.trackName ?? null,
        lidarrArtistId: r.lidarrArtistId ?? null,
        lidarrAlbumId: r.lidarrAlbumId ?? null,
        userId: r.userId ?? null,
        status: r.status,
        now,
      }) as RequestRow;
  },

  find(db: Db, kind: RequestKind, requestKey: string): RequestRow | undefined {
    return db.prepare(`SELECT ${COLUMNS} FROM lidarr_requests WHERE kind = ? AND request_key = ?`).get(kind, requestKey) as
      | RequestRow
      | undefined;
  },

  /** Newest first, bounded. */
  list(db: Db, limit = 500): RequestRow[] {
    return db.prepare(`SELECT ${COLUMNS} FROM lidarr_requests ORDER BY created_at DESC, id DESC LIMIT ?`).all(limit) as RequestRow[];
  },

  processing(db: Db): RequestRow[] {
    return db.prepare(`SELECT ${COLUMNS} FROM lidarr_requests WHERE status = 'processing' ORDER BY id`).all() as RequestRow[];
  },

  /** The pending request (album or track) for a Lidarr album, if any. */
  processingForAlbum(db: Db, lidarrAlbumId: number): RequestRow | undefined {
    return db
      .prepare(`SELECT ${COLUMNS} FROM lidarr_requests WHERE lidarr_album_id = ? AND status = 'processing' ORDER BY id LIMIT 1`)
      .get(lidarrAlbumId) as RequestRow | undefined;
  },

  setStatus(db: Db, ids: number[], status: RequestStatus, now: number): void {
    const stmt = db.prepare('UPDATE lidarr_requests SET status = ?, updated_at = ? WHERE id = ? AND status != ?');
    for (const id of ids) stmt.run(status, now, id, status);
  },

  /** Marks album and track requests of an album available; returns how many changed. */
  markAlbumAvailable(db: Db, where: { albumMbid?: string | null; lidarrAlbumId?: number | null }, now: number): number {
    return db
      .prepare(
        `UPDATE lidarr_requests SET status = 'available', updated_at = ?
         WHERE kind IN ('album', 'track') AND status != 'available'
           AND ((? IS NOT NULL AND album_mbid = ?) OR (? IS NOT NULL AND lidarr_album_id = ?))`,
      )
      .run(now, where.albumMbid ?? null, where.albumMbid ?? null, where.lidarrAlbumId ?? null, where.lidarrAlbumId ?? null)
      .changes;
  },

  /** Removes the artist request for an MBID (and nothing else); returns how many rows went. */
  deleteArtist(db: Db, artistMbid: string): number {
    return db.prepare("DELETE FROM lidarr_requests WHERE kind = 'artist' AND request_key = ?").run(artistMbid).changes;
  },

  /** Removes album and track requests of an album, by Lidarr album id or release-group MBID. */
  deleteAlbum(db: Db, key: { lidarrAlbumId?: number; albumMbid?: string }): number {
    return db
      .prepare(
        `DELETE FROM lidarr_requests WHERE kind IN ('album', 'track')
           AND ((? IS NOT NULL AND lidarr_album_id = ?) OR (? IS NOT NULL AND album_mbid = ?))`,
      )
      .run(key.lidarrAlbumId ?? null, key.lidarrAlbumId ?? null, key.albumMbid ?? null, key.albumMbid ?? null).changes;
  },

  /** An available track of the canonical library by recording MBID, else by title and artist name. */
  ownedTrackId(db: Db, track: { mbid?: string | null; title: string; artistName: string }): number | undefined {
    const owned = new OwnedTrackLookup(db);
    return (track.mbid ? owned.byMbid(track.mbid) : undefined) ?? owned.byNames(sortName(track.title), sortName(track.artistName));
  },
};
