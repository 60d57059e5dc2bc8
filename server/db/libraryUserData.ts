import type { Db } from './connection.js';
import { statement } from './statements.js';

export type FavoriteKind = 'artist' | 'album' | 'track';

export interface FavoriteRow {
  entity_kind: FavoriteKind;
  entity_id: number;
  created_at: number;
}

/** Favorites (= Subsonic stars), per user. */
export const favorites = {
  list(db: Db, userId: number): FavoriteRow[] {
    return db
      .prepare('SELECT entity_kind, entity_id, created_at FROM library_favorites WHERE user_id = ? ORDER BY created_at DESC, entity_id')
      .all(userId) as FavoriteRow[];
  },
  /** Which of these ids the user has favorited. */
  idsAmong(db: Db, userId: number, kind: FavoriteKind, ids: number[]): Map<number, number> {
    if (ids.length === 0) return new Map();
    // One cached statement whatever the number of ids (a page, or 10,000 artists).
    const rows = statement(
      db,
      `SELECT entity_id, created_at FROM library_favorites WHERE user_id = ? AND entity_kind = ?
       AND entity_id IN (SELECT value FROM json_each(?))`,
    ).all(userId, kind, JSON.stringify(ids)) as { entity_id: number; created_at: number }[];
    return new Map(rows.map((r) => [r.entity_id, r.created_at]));
  },
  set(db: Db, userId: number, kind: FavoriteKind, id: number, favorite: boolean, now: number): boolean {
    return db.transaction(() => {
      const changed = favorite
        ? db.prepare('INSERT OR IGNORE INTO library_favorites (user_id, entity_kind, entity_id, created_at) VALUES (?, ?, ?, ?)').run(userId, kind, id, now).changes
        : db.prepare('DELETE FROM library_favorites WHERE user_id = ? AND entity_kind = ? AND entity_id = ?').run(userId, kind, id).changes;
      if (changed > 0) {
        db.prepare('INSERT INTO library_favorite_changes (user_id, changed_at) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET changed_at = excluded.changed_at').run(userId, now);
      }
      return changed > 0;
    }).immediate();
  },
  /** Last time the user's favorites changed (Subsonic getIndexes ifModifiedSince). */
  changedAt(db: Db, userId: number): number | null {
    return (db.prepare('SELECT changed_at FROM library_favorite_changes WHERE user_id = ?').pluck().get(userId) as number | undefined) ?? null;
  },
};

export interface PlayQueueState {
  currentIndex: number;
  positionMs: number;
  changedAt: number;
  changedBy: string | null;
  total: number;
}

/** The user's saved playback queue (= Subsonic play queue). */
export const playQueues = {
  state(db: Db, userId: number): PlayQueueState | null {
    const row = db
      .prepare(
        `SELECT current_index AS currentIndex, position_ms AS positionMs, changed_at AS changedAt, changed_by AS changedBy,
           (SELECT COUNT(*) FROM library_play_queue_entries e WHERE e.user_id = q.user_id) AS total
         FROM library_play_queues q WHERE user_id = ?`,
      )
      .get(userId) as PlayQueueState | undefined;
    return row ?? null;
  },
  /** Track ids at positions [offset, offset+limit). */
  page(db: Db, userId: number, offset: number, limit: number): { position: number; trackId: number }[] {
    return db
      .prepare('SELECT position, track_id AS trackId FROM library_play_queue_entries WHERE user_id = ? AND position >= ? ORDER BY position LIMIT ?')
      .all(userId, offset, limit) as { position: number; trackId: number }[];
  },
  save(db: Db, userId: number, trackIds: number[], currentIndex: number, positionMs: number, changedBy: string | null, now: number): void {
    db.transaction(() => {
      db.prepare('DELETE FROM library_play_queues WHERE user_id = ?').run(userId);
      if (trackIds.length === 0) return;
      db.prepare('INSERT INTO library_play_queues (user_id, current_index, position_ms, changed_at, changed_by) VALUES (?, ?, ?, ?, ?)')
        .run(userId, currentIndex, positionMs, now, changedBy);
      const ins = db.prepare('INSERT INTO library_play_queue_entries (user_id, position, track_id) VALUES (?, ?, ?)');
      trackIds.forEach((id, i) => ins.run(userId, i, id));
    }).immediate();
  },
};

export interface PlayEventInput {
  trackId: number | null;
  title: string;
  artist: string | null;
  album: string | null;
  artistMbid: string | null;
  albumMbid: string | null;
  trackMbid: string | null;
  durationMs: number | null;
  playedAt: number;
  source: string;
}

export interface PlayEventRow extends PlayEventInput {
  id: number;
  createdAt: number;
}

/** Local play history (= Subsonic scrobbles). */
export const playEvents = {
  record(db: Db, userId: number, e: PlayEventInput, now: number): number {
    return (
      db
        .prepare(
          `INSERT INTO play_events (user_id, track_id, title, artist, album, artist_mbid, album_mbid, track_mbid, duration_ms,
             played_at, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .get(userId, e.trackId, e.title, e.artist, e.album, e.artistMbid, e.albumMbid, e.trackMbid, e.durationMs, e.playedAt, e.source, now) as { id: number }
    ).id;
  },
  list(db: Db, userId: number | null, limit: number, offset: number): { rows: PlayEventRow[]; total: number } {
    const where = userId === null ? '' : 'WHERE user_id = ?';
    const args = userId === null ? [] : [userId];
    const rows = db
      .prepare(
        `SELECT id, track_id AS trackId, title, artist, album, artist_mbid AS artistMbid, album_mbid AS albumMbid,
           track_mbid AS trackMbid, duration_ms AS durationMs, played_at AS playedAt, source, created_at AS createdAt
         FROM play_events ${where} ORDER BY played_at DESC, id DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as PlayEventRow[];
    const total = db.prepare(`SELECT COUNT(*) FROM play_events ${where}`).pluck().get(...args) as number;
    return { rows, total };
  },
};
