import type { Db } from './connection.js';

/** One playlist on one playback destination (migration 063). */
export interface PublicationRow {
  destination: string;
  playlist_kind: 'static' | 'flow' | 'shared';
  playlist_id: string;
  account: string;
  remote_id: string | null;
  remote_name: string | null;
  want_seq: number;
  done_seq: number;
  deleted: number;
  track_count: number;
  matched_count: number;
  last_published_at: number | null;
  last_attempt_at: number | null;
  last_error: string | null;
  retry_at: number | null;
  /** Moving to another identity on the same destination: the remote playlist still to delete under the old one (067). */
  previous_account: string | null;
  previous_remote_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface DestinationRow {
  destination: string;
  last_scan_at: number | null;
  last_published_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
}

export interface PublicationKey {
  destination: string;
  kind: string;
  id: string;
}

/** Local library track as matching sees it: tags and its first available file. */
export interface LocalTrack {
  id: number;
  title: string;
  artist: string;
  album: string;
  durationMs: number;
  path: string | null;
  root: string | null;
  /** The MusicBrainz recording id from its tags, when known. */
  mbid: string | null;
}

export type MatchMethod = 'path' | 'mbid' | 'tags';

/** SQL of the playback destinations (server/domain/playback). */
export function playbackRepository(db: Db) {
  const get = db.prepare('SELECT * FROM playback_publications WHERE destination = ? AND playlist_kind = ? AND playlist_id = ?');
  const touch = db.prepare(
    `INSERT INTO playback_publications (destination, playlist_kind, playlist_id, want_seq, done_seq, deleted, created_at, updated_at)
     VALUES (@destination, @kind, @id, 1, 0, @deleted, @now, @now)
     ON CONFLICT (destination, playlist_kind, playlist_id) DO UPDATE SET
       want_seq = want_seq + 1, deleted = MAX(deleted, excluded.deleted), updated_at = excluded.updated_at`,
  );
  const bump = db.prepare(
    `UPDATE playback_publications SET want_seq = want_seq + 1, deleted = MAX(deleted, ?), updated_at = ?
     WHERE destination = ? AND playlist_kind = ? AND playlist_id = ?`,
  );
  const dirty = db.prepare('SELECT * FROM playback_publications WHERE destination = ? AND want_seq > done_seq');
  const dueRetries = db.prepare(
    'SELECT * FROM playback_publications WHERE destination = ? AND retry_at IS NOT NULL AND retry_at <= ? AND want_seq <= done_seq',
  );
  const all = db.prepare('SELECT * FROM playback_publications WHERE destination = ?');
  const setRemote = db.prepare(
    `UPDATE playback_publications SET account = @account, remote_id = @remoteId, remote_name = @remoteName, updated_at = @now
     WHERE destination = @destination AND playlist_kind = @kind AND playlist_id = @id`,
  );
  const done = db.prepare(
    `UPDATE playback_publications SET done_seq = MAX(done_seq, @seq), track_count = @trackCount, matched_count = @matchedCount,
       last_published_at = @now, last_attempt_at = @now, last_error = NULL, retry_at = @retryAt, updated_at = @now
     WHERE destination = @destination AND playlist_kind = @kind AND playlist_id = @id`,
  );
  const failed = db.prepare(
    `UPDATE playback_publications SET last_attempt_at = @now, last_error = @error, updated_at = @now
     WHERE destination = @destination AND playlist_kind = @kind AND playlist_id = @id`,
  );
  const moveTo = db.prepare(
    `UPDATE playback_publications SET previous_account = account, previous_remote_id = remote_id, account = @account, remote_id = NULL,
       remote_name = NULL, updated_at = @now
     WHERE destination = @destination AND playlist_kind = @kind AND playlist_id = @id AND previous_account IS NULL AND remote_id IS NOT NULL`,
  );
  const previousGone = db.prepare(
    `UPDATE playback_publications SET previous_account = NULL, previous_remote_id = NULL, updated_at = @now
     WHERE destination = @destination AND playlist_kind = @kind AND playlist_id = @id`,
  );
  const remove = db.prepare('DELETE FROM playback_publications WHERE destination = ? AND playlist_kind = ? AND playlist_id = ?');
  const pending = db.prepare('SELECT COUNT(*) FROM playback_publications WHERE destination = ? AND want_seq > done_seq').pluck();
  const published = db.prepare('SELECT COUNT(*) FROM playback_publications WHERE destination = ? AND remote_id IS NOT NULL').pluck();
  const destination = db.prepare('SELECT * FROM playback_destinations WHERE destination = ?');
  const ensureDestination = db.prepare('INSERT OR IGNORE INTO playback_destinations (destination) VALUES (?)');
  const scanned = db.prepare('UPDATE playback_destinations SET last_scan_at = ? WHERE destination = ?');
  const destinationOk = db.prepare('UPDATE playback_destinations SET last_published_at = ?, last_error = NULL, last_error_at = NULL WHERE destination = ?');
  const destinationFailed = db.prepare('UPDATE playback_destinations SET last_error = ?, last_error_at = ? WHERE destination = ?');
  const matches = db.prepare('SELECT track_id, remote_id FROM playback_track_matches WHERE destination = ? AND account = ?');
  const putMatch = db.prepare(
    `INSERT INTO playback_track_matches (destination, account, track_id, remote_id, method, matched_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (destination, account, track_id) DO UPDATE SET remote_id = excluded.remote_id, method = excluded.method, matched_at = excluded.matched_at`,
  );
  const dropMatch = db.prepare('DELETE FROM playback_track_matches WHERE destination = ? AND account = ? AND remote_id = ?');
  const dropOtherAccounts = db.prepare('DELETE FROM playback_track_matches WHERE destination = ? AND account <> ?');
  const track = db.prepare(
    `SELECT t.id, t.title, t.artist_name AS artist, COALESCE(a.title, '') AS album, t.duration_ms AS durationMs,
            f.path AS path, f.root AS root, t.mbid AS mbid
     FROM library_tracks t
     LEFT JOIN library_albums a ON a.id = t.album_id
     LEFT JOIN library_media_files f ON f.id = (
       SELECT id FROM library_media_files WHERE track_id = t.id ORDER BY available DESC, id LIMIT 1)
     WHERE t.id = ?`,
  );

  const key = (k: PublicationKey) => [k.destination, k.kind, k.id] as const;
  const named = (k: PublicationKey) => ({ destination: k.destination, kind: k.kind, id: k.id });

  return {
    get: (k: PublicationKey) => get.get(...key(k)) as PublicationRow | undefined,
    /** Records a change (or a deletion) to publish; returns the row. */
    touch: (k: PublicationKey, deleted: boolean, now: number) => {
      touch.run({ ...named(k), deleted: deleted ? 1 : 0, now });
      return get.get(...key(k)) as PublicationRow;
    },
    /** Records a change of a playlist already published (publishing is off: it goes when it is back on). */
    bump: (k: PublicationKey, deleted: boolean, now: number) => bump.run(deleted ? 1 : 0, now, ...key(k)).changes > 0,
    dirty: (destination: string) => dirty.all(destination) as PublicationRow[],
    dueRetries: (destination: string, now: number) => dueRetries.all(destination, now) as PublicationRow[],
    all: (destination: string) => all.all(destination) as PublicationRow[],
    setRemote: (k: PublicationKey, account: string, remoteId: string | null, remoteName: string | null, now: number) =>
      void setRemote.run({ ...named(k), account, remoteId, remoteName, now }),
    done: (k: PublicationKey, r: { seq: number; trackCount: number; matchedCount: number; retryAt: number | null }, now: number) =>
      void done.run({ ...named(k), ...r, now }),
    failed: (k: PublicationKey, error: string, now: number) => void failed.run({ ...named(k), error, now }),
    /**
     * Points the publication at another identity, remembering the remote playlist published under
     * the old one (to delete there before the new one is made). Nothing to move, or a move already
     * pending, leaves the row as it is (false).
     */
    moveTo: (k: PublicationKey, account: string, now: number) => moveTo.run({ ...named(k), account, now }).changes > 0,
    /** The old identity's playlist is gone there. */
    previousGone: (k: PublicationKey, now: number) => void previousGone.run({ ...named(k), now }),
    remove: (k: PublicationKey) => void remove.run(...key(k)),
    pendingCount: (destination: string) => pending.get(destination) as number,
    publishedCount: (destination: string) => published.get(destination) as number,
    destination: (name: string): DestinationRow => {
      ensureDestination.run(name);
      return destination.get(name) as DestinationRow;
    },
    scanned: (name: string, now: number) => {
      ensureDestination.run(name);
      scanned.run(now, name);
    },
    destinationOk: (name: string, now: number) => {
      ensureDestination.run(name);
      destinationOk.run(now, name);
    },
    destinationFailed: (name: string, error: string, now: number) => {
      ensureDestination.run(name);
      destinationFailed.run(error, now, name);
    },
    /** Cached matches of a destination account, track id → remote song id. */
    matches: (destination: string, account: string) =>
      new Map((matches.all(destination, account) as Array<{ track_id: number; remote_id: string }>).map((r) => [r.track_id, r.remote_id])),
    putMatches: db.transaction((destination: string, account: string, found: Array<{ trackId: number; remoteId: string; method: MatchMethod }>, now: number) => {
      for (const m of found) putMatch.run(destination, account, m.trackId, m.remoteId, m.method, now);
    }),
    dropMatches: db.transaction((destination: string, account: string, remoteIds: string[]) => {
      for (const id of remoteIds) dropMatch.run(destination, account, id);
    }),
    /** Matches made on another address or user are of no use any more. */
    dropOtherAccounts: (destination: string, account: string) => void dropOtherAccounts.run(destination, account),
    tracks: (ids: number[]): LocalTrack[] => ids.map((id) => track.get(id) as LocalTrack | undefined).filter((t): t is LocalTrack => !!t),
  };
}
export type PlaybackRepository = ReturnType<typeof playbackRepository>;

/** Publications at a destination that missed some tracks and wait for a retry: due now. */
export function retryUnmatchedPublicationsNow(db: Db, destination: string, now: number): void {
  db.prepare('UPDATE playback_publications SET retry_at = ? WHERE destination = ? AND retry_at IS NOT NULL AND matched_count < track_count').run(now, destination);
}
