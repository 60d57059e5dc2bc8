import type { Db } from './connection.js';

export interface PlaylistRow {
  id: number;
  user_id: number;
  owner: string;
  name: string;
  comment: string;
  public: number;
  created_at: number;
  updated_at: number;
  song_count: number;
  duration_ms: number;
  first_track_id: number | null;
}

const SELECT = `SELECT p.id, p.user_id, u.username AS owner, p.name, p.comment, p.public, p.created_at, p.updated_at,
  (SELECT COUNT(*) FROM static_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id
    WHERE e.playlist_id = p.id AND t.available = 1) AS song_count,
  (SELECT COALESCE(SUM(t.duration_ms), 0) FROM static_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id
    WHERE e.playlist_id = p.id AND t.available = 1) AS duration_ms,
  (SELECT e.track_id FROM static_playlist_tracks e WHERE e.playlist_id = p.id ORDER BY e.position LIMIT 1) AS first_track_id
FROM static_playlists p JOIN users u ON u.id = p.user_id`;

/** Static playlists: a name and an ordered list of library tracks, owned by one user. */
export function playlistsRepository(db: Db) {
  const s = {
    visible: db.prepare(`${SELECT} WHERE p.user_id = ? OR p.public = 1 ORDER BY p.name COLLATE NOCASE, p.id`),
    ofUser: db.prepare(`${SELECT} WHERE p.user_id = ? ORDER BY p.name COLLATE NOCASE, p.id`),
    byId: db.prepare(`${SELECT} WHERE p.id = ?`),
    insert: db.prepare(
      'INSERT INTO static_playlists (user_id, name, comment, public, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    ).pluck(),
    update: db.prepare(
      'UPDATE static_playlists SET name = COALESCE(?, name), comment = COALESCE(?, comment), public = COALESCE(?, public), updated_at = ? WHERE id = ?',
    ),
    remove: db.prepare('DELETE FROM static_playlists WHERE id = ?'),
    tracks: db.prepare('SELECT track_id FROM static_playlist_tracks WHERE playlist_id = ? ORDER BY position').pluck(),
    clear: db.prepare('DELETE FROM static_playlist_tracks WHERE playlist_id = ?'),
    add: db.prepare('INSERT INTO static_playlist_tracks (playlist_id, position, track_id) VALUES (?, ?, ?)'),
    length: db.prepare('SELECT COUNT(*) FROM static_playlist_tracks WHERE playlist_id = ?').pluck(),
    // Two steps through negative positions: (playlist_id, position) stays unique at every row.
    shiftOut: db.prepare('UPDATE static_playlist_tracks SET position = -position - 2 WHERE playlist_id = ? AND position >= ?'),
    shiftIn: db.prepare('UPDATE static_playlist_tracks SET position = -position - 1 WHERE playlist_id = ? AND position < 0'),
    touch: db.prepare('UPDATE static_playlists SET updated_at = ? WHERE id = ?'),
  };
  return {
    /** The user's own playlists and everyone's public ones. */
    visibleTo: (userId: number) => s.visible.all(userId) as PlaylistRow[],
    ofUser: (userId: number) => s.ofUser.all(userId) as PlaylistRow[],
    byId: (id: number) => s.byId.get(id) as PlaylistRow | undefined,
    trackIds: (id: number) => s.tracks.all(id) as number[],
    create(userId: number, name: string, comment: string, isPublic: boolean, trackIds: number[], now: number): number {
      return db.transaction(() => {
        const id = s.insert.get(userId, name, comment, isPublic ? 1 : 0, now, now) as number;
        trackIds.forEach((t, i) => s.add.run(id, i, t));
        return id;
      })();
    },
    update(id: number, changes: { name?: string; comment?: string; public?: boolean; trackIds?: number[] }, now: number): void {
      db.transaction(() => {
        s.update.run(changes.name ?? null, changes.comment ?? null, changes.public === undefined ? null : changes.public ? 1 : 0, now, id);
        if (changes.trackIds) {
          s.clear.run(id);
          changes.trackIds.forEach((t, i) => s.add.run(id, i, t));
        }
      })();
    },
    remove: (id: number) => s.remove.run(id).changes > 0,
    /** Inserts one track at `position` (clamped to the end), moving the later ones down by one. */
    insertTrack(id: number, position: number, trackId: number, now: number): void {
      db.transaction(() => {
        const at = Math.max(0, Math.min(position, s.length.get(id) as number));
        s.shiftOut.run(id, at);
        s.shiftIn.run(id);
        s.add.run(id, at, trackId);
        s.touch.run(now, id);
      })();
    },
  };
}
export type PlaylistsRepository = ReturnType<typeof playlistsRepository>;
