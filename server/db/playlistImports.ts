import type { Db } from './connection.js';

/** Spotify account links, pending OAuth requests, playlist imports and their tracks (migration 061). */

export type SpotifyMethod = 'broker' | 'pkce';
export interface SpotifyLinkRow {
  userId: number;
  method: SpotifyMethod;
  clientId: string | null;
  spotifyUserId: string | null;
  displayName: string | null;
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  expiresAt: number;
  linkedAt: number;
  updatedAt: number;
}

const LINK_COLUMNS = `user_id AS userId, method, client_id AS clientId, spotify_user_id AS spotifyUserId, display_name AS displayName,
  access_token_enc AS accessTokenEnc, refresh_token_enc AS refreshTokenEnc, expires_at AS expiresAt, linked_at AS linkedAt, updated_at AS updatedAt`;

export const spotifyLinks = {
  get: (db: Db, userId: number) => db.prepare(`SELECT ${LINK_COLUMNS} FROM spotify_links WHERE user_id = ?`).get(userId) as SpotifyLinkRow | undefined,
  upsert(db: Db, r: Omit<SpotifyLinkRow, 'linkedAt' | 'updatedAt'>, now: number): void {
    db.prepare(
      `INSERT INTO spotify_links (user_id, method, client_id, spotify_user_id, display_name, access_token_enc, refresh_token_enc, expires_at, linked_at, updated_at)
       VALUES (@userId, @method, @clientId, @spotifyUserId, @displayName, @accessTokenEnc, @refreshTokenEnc, @expiresAt, @now, @now)
       ON CONFLICT (user_id) DO UPDATE SET method = excluded.method, client_id = excluded.client_id, spotify_user_id = excluded.spotify_user_id,
         display_name = excluded.display_name, access_token_enc = excluded.access_token_enc, refresh_token_enc = excluded.refresh_token_enc,
         expires_at = excluded.expires_at, linked_at = excluded.linked_at, updated_at = excluded.updated_at`,
    ).run({ ...r, now });
  },
  /** After a renewal; the refresh token stays when the service sent none. */
  setTokens(db: Db, userId: number, t: { accessTokenEnc: string; refreshTokenEnc: string | null; expiresAt: number }, now: number): void {
    db.prepare(
      'UPDATE spotify_links SET access_token_enc = ?, refresh_token_enc = COALESCE(?, refresh_token_enc), expires_at = ?, updated_at = ? WHERE user_id = ?',
    ).run(t.accessTokenEnc, t.refreshTokenEnc, t.expiresAt, now, userId);
  },
  setProfile(db: Db, userId: number, spotifyUserId: string, displayName: string | null): void {
    db.prepare('UPDATE spotify_links SET spotify_user_id = ?, display_name = ? WHERE user_id = ?').run(spotifyUserId, displayName, userId);
  },
  delete: (db: Db, userId: number) => db.prepare('DELETE FROM spotify_links WHERE user_id = ?').run(userId).changes > 0,
};

export interface OAuthStateRow {
  state: string;
  userId: number;
  method: SpotifyMethod;
  codeVerifierEnc: string | null;
  redirectUri: string;
  expiresAt: number;
}

export const spotifyOAuthStates = {
  insert(db: Db, r: OAuthStateRow, now: number): void {
    db.prepare('DELETE FROM spotify_oauth_states WHERE expires_at < ?').run(now);
    db.prepare(
      'INSERT INTO spotify_oauth_states (state, user_id, method, code_verifier_enc, redirect_uri, expires_at) VALUES (@state, @userId, @method, @codeVerifierEnc, @redirectUri, @expiresAt)',
    ).run(r);
  },
  /** Removes and answers the request: a state is used once. */
  take(db: Db, state: string): OAuthStateRow | undefined {
    return db
      .prepare(
        'DELETE FROM spotify_oauth_states WHERE state = ? RETURNING state, user_id AS userId, method, code_verifier_enc AS codeVerifierEnc, redirect_uri AS redirectUri, expires_at AS expiresAt',
      )
      .get(state) as OAuthStateRow | undefined;
  },
};

export type ImportSource = 'spotify' | 'listenbrainz' | 'lastfm';
export type ImportStatus = 'matching' | 'downloading' | 'done' | 'failed';
export type ItemState = 'owned' | 'pending' | 'queued' | 'added' | 'unmatched' | 'failed';

export interface ImportRow {
  id: number;
  userId: number | null;
  source: ImportSource;
  sourceRef: string;
  name: string;
  targetType: string;
  targetId: string;
  status: ImportStatus;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ImportItemRow {
  importId: number;
  position: number;
  artist: string;
  title: string;
  album: string | null;
  durationMs: number | null;
  isrc: string | null;
  recordingMbid: string | null;
  state: ItemState;
  trackId: number | null;
  jobId: number | null;
}

const IMPORT_COLUMNS = `id, user_id AS userId, source, source_ref AS sourceRef, name, target_type AS targetType, target_id AS targetId,
  status, error, created_at AS createdAt, updated_at AS updatedAt`;
const ITEM_COLUMNS = `import_id AS importId, position, artist, title, album, duration_ms AS durationMs, isrc, recording_mbid AS recordingMbid,
  state, track_id AS trackId, job_id AS jobId`;

export type ImportCounts = Record<ItemState, number>;

export const playlistImports = {
  create(db: Db, r: { userId: number; source: ImportSource; sourceRef: string; name: string; targetType: string; targetId: string; status: ImportStatus }, now: number): ImportRow {
    return db
      .prepare(
        `INSERT INTO playlist_imports (user_id, source, source_ref, name, target_type, target_id, status, created_at, updated_at)
         VALUES (@userId, @source, @sourceRef, @name, @targetType, @targetId, @status, @now, @now) RETURNING ${IMPORT_COLUMNS}`,
      )
      .get({ ...r, now }) as ImportRow;
  },
  get: (db: Db, id: number) => db.prepare(`SELECT ${IMPORT_COLUMNS} FROM playlist_imports WHERE id = ?`).get(id) as ImportRow | undefined,
  recent: (db: Db, limit: number) => db.prepare(`SELECT ${IMPORT_COLUMNS} FROM playlist_imports ORDER BY id DESC LIMIT ?`).all(limit) as ImportRow[],
  setStatus(db: Db, id: number, status: ImportStatus, error: string | null, now: number): void {
    db.prepare('UPDATE playlist_imports SET status = ?, error = ?, updated_at = ? WHERE id = ?').run(status, error, now, id);
  },
  unfinished: (db: Db) => db.prepare(`SELECT ${IMPORT_COLUMNS} FROM playlist_imports WHERE status IN ('matching', 'downloading') ORDER BY id`).all() as ImportRow[],

  /** Inserts items in one statement run per row (call inside a transaction). */
  itemInserter(db: Db) {
    const stmt = db.prepare(
      `INSERT INTO playlist_import_items (import_id, position, artist, title, album, duration_ms, isrc, recording_mbid, state, track_id, job_id)
       VALUES (@importId, @position, @artist, @title, @album, @durationMs, @isrc, @recordingMbid, @state, @trackId, @jobId)`,
    );
    return (item: ImportItemRow) => stmt.run(item);
  },
  pendingItems: (db: Db, importId: number, limit: number) =>
    db.prepare(`SELECT ${ITEM_COLUMNS} FROM playlist_import_items WHERE import_id = ? AND state = 'pending' ORDER BY position LIMIT ?`).all(importId, limit) as ImportItemRow[],
  setItem(db: Db, importId: number, position: number, patch: { state: ItemState; trackId?: number | null; jobId?: number | null; recordingMbid?: string | null }): void {
    db.prepare(
      `UPDATE playlist_import_items SET state = @state, track_id = COALESCE(@trackId, track_id), job_id = COALESCE(@jobId, job_id),
         recording_mbid = COALESCE(@recordingMbid, recording_mbid) WHERE import_id = @importId AND position = @position`,
    ).run({ importId, position, state: patch.state, trackId: patch.trackId ?? null, jobId: patch.jobId ?? null, recordingMbid: patch.recordingMbid ?? null });
  },
  queuedItems: (db: Db, importId: number) =>
    db.prepare(`SELECT ${ITEM_COLUMNS} FROM playlist_import_items WHERE import_id = ? AND state = 'queued' ORDER BY position`).all(importId) as ImportItemRow[],
  itemByJob: (db: Db, jobId: number) => db.prepare(`SELECT ${ITEM_COLUMNS} FROM playlist_import_items WHERE job_id = ?`).get(jobId) as ImportItemRow | undefined,
  /** Queued items whose download is done (the library track may not be indexed yet). */
  queuedDone: (db: Db) =>
    db
      .prepare(
        `SELECT i.import_id AS importId, i.position, i.job_id AS jobId, j.reused_track_id AS reusedTrackId, j.final_path AS finalPath
         FROM playlist_import_items i JOIN download_jobs j ON j.id = i.job_id
         WHERE i.state = 'queued' AND j.status = 'done'`,
      )
      .all() as { importId: number; position: number; jobId: number; reusedTrackId: number | null; finalPath: string | null }[],
  counts(db: Db, importId: number): ImportCounts {
    const counts: ImportCounts = { owned: 0, pending: 0, queued: 0, added: 0, unmatched: 0, failed: 0 };
    for (const r of db.prepare('SELECT state, COUNT(*) AS n FROM playlist_import_items WHERE import_id = ? GROUP BY state').all(importId) as { state: ItemState; n: number }[])
      counts[r.state] = r.n;
    return counts;
  },
  /** How many items before `position` have a track that is in the playlist now (where a joining track goes). */
  placedBefore(db: Db, importId: number, position: number, playlistId: number): number {
    return db
      .prepare(
        `SELECT COUNT(*) FROM playlist_import_items i WHERE i.import_id = ? AND i.position < ? AND i.track_id IS NOT NULL
           AND i.state IN ('owned', 'added') AND EXISTS (SELECT 1 FROM static_playlist_tracks e WHERE e.playlist_id = ? AND e.track_id = i.track_id)`,
      )
      .pluck()
      .get(importId, position, playlistId) as number;
  },
};
