import type { Db } from './connection.js';
import { favorites, playEvents, playQueues } from './libraryUserData.js';

export type AnnotatedKind = 'artist' | 'album' | 'track';

export interface Annotation {
  starredAt?: number;
  rating?: number;
  playCount?: number;
  playedAt?: number;
}

export interface BookmarkRow {
  track_id: number;
  position_ms: number;
  comment: string | null;
  created_at: number;
  changed_at: number;
}

export interface PlayQueueRow {
  current_index: number;
  position_ms: number;
  changed_at: number;
  changed_by: string | null;
}

/**
 * Per-user data /rest reads and writes: stars (the library favorites store, shared with
 * /api/library/favorites), ratings, play counts, bookmarks, the play queue and play events.
 */
export class SubsonicUserData {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      stars: db.prepare(
        `SELECT entity_id AS id, created_at AS at FROM library_favorites
         WHERE user_id = ? AND entity_kind = ? AND entity_id IN (SELECT value FROM json_each(?))`,
      ),
      ratings: db.prepare(
        `SELECT entity_id AS id, rating FROM subsonic_ratings
         WHERE user_id = ? AND entity_kind = ? AND entity_id IN (SELECT value FROM json_each(?))`,
      ),
      plays: db.prepare(
        `SELECT entity_id AS id, play_count AS n, last_played_at AS at FROM subsonic_play_stats
         WHERE user_id = ? AND entity_kind = ? AND entity_id IN (SELECT value FROM json_each(?))`,
      ),
      starredIds: db.prepare(
        `SELECT f.entity_id FROM library_favorites f WHERE f.user_id = ? AND f.entity_kind = ?
         ORDER BY f.created_at DESC, f.entity_id DESC`,
      ).pluck(),
      setRating: db.prepare(
        `INSERT INTO subsonic_ratings (user_id, entity_kind, entity_id, rating) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, entity_kind, entity_id) DO UPDATE SET rating = excluded.rating`,
      ),
      clearRating: db.prepare('DELETE FROM subsonic_ratings WHERE user_id = ? AND entity_kind = ? AND entity_id = ?'),
      addPlay: db.prepare(
        `INSERT INTO subsonic_play_stats (user_id, entity_kind, entity_id, play_count, last_played_at) VALUES (?, ?, ?, 1, ?)
         ON CONFLICT (user_id, entity_kind, entity_id) DO UPDATE SET play_count = play_count + 1,
           last_played_at = MAX(last_played_at, excluded.last_played_at)`,
      ),
      bookmarks: db.prepare('SELECT * FROM subsonic_bookmarks WHERE user_id = ? ORDER BY changed_at DESC, track_id'),
      bookmarkPositions: db.prepare(
        `SELECT track_id AS id, position_ms AS pos FROM subsonic_bookmarks
         WHERE user_id = ? AND track_id IN (SELECT value FROM json_each(?))`,
      ),
      putBookmark: db.prepare(
        `INSERT INTO subsonic_bookmarks (user_id, track_id, position_ms, comment, created_at, changed_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, track_id) DO UPDATE SET position_ms = excluded.position_ms, comment = excluded.comment,
           changed_at = excluded.changed_at`,
      ),
      deleteBookmark: db.prepare('DELETE FROM subsonic_bookmarks WHERE user_id = ? AND track_id = ?'),
    };
  }

  /** Stars, ratings and play counts of these entities for one user. */
  annotations(userId: number, kind: AnnotatedKind, ids: number[]): Map<number, Annotation> {
    const out = new Map<number, Annotation>();
    if (ids.length === 0) return out;
    const json = JSON.stringify(ids);
    const get = (id: number) => {
      let a = out.get(id);
      if (!a) out.set(id, (a = {}));
      return a;
    };
    for (const r of this.s.stars.all(userId, kind, json) as { id: number; at: number }[]) get(r.id).starredAt = r.at;
    for (const r of this.s.ratings.all(userId, kind, json) as { id: number; rating: number }[]) get(r.id).rating = r.rating;
    if (kind !== 'artist') {
      for (const r of this.s.plays.all(userId, kind, json) as { id: number; n: number; at: number }[]) {
        const a = get(r.id);
        a.playCount = r.n;
        a.playedAt = r.at;
      }
    }
    return out;
  }

  starsChangedAt(userId: number): number | null {
    return favorites.changedAt(this.db, userId);
  }

  starredIds(userId: number, kind: AnnotatedKind): number[] {
    return this.s.starredIds.all(userId, kind) as number[];
  }

  setRating(userId: number, kind: AnnotatedKind, id: number, rating: number): void {
    if (rating === 0) this.s.clearRating.run(userId, kind, id);
    else this.s.setRating.run(userId, kind, id, rating);
  }

  recordPlay(
    userId: number,
    play: {
      trackId: number;
      albumId: number | null;
      title: string;
      artist: string | null;
      album: string | null;
      trackMbid: string | null;
      durationMs: number | null;
      playedAt: number;
    },
    now: number,
  ): number {
    return this.db
      .transaction(() => {
        const id = playEvents.record(
          this.db,
          userId,
          {
            trackId: play.trackId, title: play.title, artist: play.artist, album: play.album, artistMbid: null, albumMbid: null,
            trackMbid: play.trackMbid, durationMs: play.durationMs, playedAt: play.playedAt, source: 'subsonic',
          },
          now,
        );
        this.s.addPlay.run(userId, 'track', play.trackId, play.playedAt);
        if (play.albumId !== null) this.s.addPlay.run(userId, 'album', play.albumId, play.playedAt);
        return id;
      })
      .immediate();
  }

  bookmarks(userId: number): BookmarkRow[] {
    return this.s.bookmarks.all(userId) as BookmarkRow[];
  }

  bookmarkPositions(userId: number, trackIds: number[]): Map<number, number> {
    if (trackIds.length === 0) return new Map();
    const rows = this.s.bookmarkPositions.all(userId, JSON.stringify(trackIds)) as { id: number; pos: number }[];
    return new Map(rows.map((r) => [r.id, r.pos]));
  }

  saveBookmark(userId: number, trackId: number, positionMs: number, comment: string | null, now: number): void {
    this.s.putBookmark.run(userId, trackId, positionMs, comment, now, now);
  }

  deleteBookmark(userId: number, trackId: number): boolean {
    return this.s.deleteBookmark.run(userId, trackId).changes > 0;
  }

  playQueue(userId: number): { state: PlayQueueRow; trackIds: number[] } | null {
    const state = playQueues.state(this.db, userId);
    if (!state) return null;
    return {
      state: { current_index: state.currentIndex, position_ms: state.positionMs, changed_at: state.changedAt, changed_by: state.changedBy },
      trackIds: playQueues.page(this.db, userId, 0, state.total).map((e) => e.trackId),
    };
  }
}
