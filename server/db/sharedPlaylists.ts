import type { Db } from './connection.js';

export interface SharedPlaylistRow {
  seq: number;
  id: string;
  owner_user_id: number | null;
  owner: string | null;
  name: string;
  description: string;
  source_url: string | null;
  source_format: string | null;
  sync_enabled: number;
  sync_interval_hours: number;
  keep_removed_tracks: number;
  last_synced_at: number | null;
  last_sync_error: string | null;
  created_at: number;
  updated_at: number;
  /** Entries that are library tracks (available). */
  song_count: number;
  duration_ms: number;
  first_track_id: number | null;
  track_count: number;
}

export interface SharedEntryRow {
  id: number;
  playlist_seq: number;
  position: number;
  artist_name: string;
  track_name: string;
  album_name: string | null;
  duration_ms: number | null;
  recording_mbid: string | null;
  track_id: number | null;
  job_id: number | null;
  from_source: number;
  removed_from_source: number;
  added_at: number;
  /** The job's status, when the entry has a job. */
  job_status: string | null;
  job_error: string | null;
  /** 1 when track_id names an available library track. */
  available: number;
}

export interface NewSharedEntry {
  artistName: string;
  trackName: string;
  albumName: string | null;
  durationMs: number | null;
  recordingMbid: string | null;
  trackId: number | null;
  jobId: number | null;
  fromSource: boolean;
}

const SELECT = `SELECT p.*, u.username AS owner,
  (SELECT COUNT(*) FROM shared_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id
    WHERE e.playlist_seq = p.seq AND t.available = 1) AS song_count,
  (SELECT COALESCE(SUM(t.duration_ms), 0) FROM shared_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id
    WHERE e.playlist_seq = p.seq AND t.available = 1) AS duration_ms,
  (SELECT e.track_id FROM shared_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id
    WHERE e.playlist_seq = p.seq AND t.available = 1 ORDER BY e.position LIMIT 1) AS first_track_id,
  (SELECT COUNT(*) FROM shared_playlist_tracks e WHERE e.playlist_seq = p.seq) AS track_count
FROM shared_playlists p LEFT JOIN users u ON u.id = p.owner_user_id`;

const ENTRY = `SELECT e.*, j.status AS job_status, j.error AS job_error,
  CASE WHEN e.track_id IS NOT NULL AND EXISTS (SELECT 1 FROM library_tracks t WHERE t.id = e.track_id AND t.available = 1) THEN 1 ELSE 0 END AS available
FROM shared_playlist_tracks e LEFT JOIN download_jobs j ON j.id = e.job_id`;

/** shared_playlists and shared_playlist_tracks. */
export function sharedPlaylistsRepository(db: Db) {
  const s = {
    all: db.prepare(`${SELECT} ORDER BY p.name COLLATE NOCASE, p.seq`),
    byId: db.prepare(`${SELECT} WHERE p.id = ?`),
    bySeq: db.prepare(`${SELECT} WHERE p.seq = ?`),
    byName: db.prepare('SELECT id FROM shared_playlists WHERE lower(name) = lower(?)').pluck(),
    entries: db.prepare(`${ENTRY} WHERE e.playlist_seq = ? ORDER BY e.position, e.id`),
    entry: db.prepare(`${ENTRY} WHERE e.playlist_seq = ? AND e.job_id = ?`),
    jobless: db.prepare(`${ENTRY} WHERE e.playlist_seq = ? AND e.id = ? AND e.job_id IS NULL`),
    trackIds: db.prepare(
      `SELECT e.track_id FROM shared_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id
       WHERE e.playlist_seq = ? AND t.available = 1 ORDER BY e.position, e.id`,
    ).pluck(),
    insert: db.prepare(
      `INSERT INTO shared_playlists (id, owner_user_id, name, description, source_url, source_format, sync_enabled,
         sync_interval_hours, keep_removed_tracks, created_at, updated_at)
       VALUES (@id, @ownerUserId, @name, @description, @sourceUrl, @sourceFormat, @syncEnabled, @syncIntervalHours,
         @keepRemovedTracks, @now, @now) RETURNING seq`,
    ).pluck(),
    nextPosition: db.prepare('SELECT COALESCE(MAX(position) + 1, 0) FROM shared_playlist_tracks WHERE playlist_seq = ?').pluck(),
    addEntry: db.prepare(
      `INSERT INTO shared_playlist_tracks (playlist_seq, position, artist_name, track_name, album_name, duration_ms,
         recording_mbid, track_id, job_id, from_source, added_at)
       VALUES (@seq, @position, @artistName, @trackName, @albumName, @durationMs, @recordingMbid, @trackId, @jobId, @fromSource, @now)
       RETURNING id`,
    ).pluck(),
    removeEntry: db.prepare('DELETE FROM shared_playlist_tracks WHERE id = ?'),
    setPosition: db.prepare('UPDATE shared_playlist_tracks SET position = ? WHERE id = ?'),
    markRemoved: db.prepare('UPDATE shared_playlist_tracks SET removed_from_source = ? WHERE id = ?'),
    setTrack: db.prepare('UPDATE shared_playlist_tracks SET track_id = ? WHERE id = ?'),
    setJob: db.prepare('UPDATE shared_playlist_tracks SET job_id = ? WHERE id = ?'),
    entriesOfJob: db.prepare('SELECT id, playlist_seq FROM shared_playlist_tracks WHERE job_id = ?'),
    touch: db.prepare('UPDATE shared_playlists SET updated_at = ? WHERE seq = ?'),
    remove: db.prepare('DELETE FROM shared_playlists WHERE seq = ?'),
    dueForSync: db.prepare(
      `SELECT id FROM shared_playlists WHERE sync_enabled = 1 AND source_url IS NOT NULL
         AND (last_synced_at IS NULL OR last_synced_at + sync_interval_hours * 3600000 <= ?) ORDER BY seq`,
    ).pluck(),
  };
  return {
    all: () => s.all.all() as SharedPlaylistRow[],
    byId: (id: string) => s.byId.get(id) as SharedPlaylistRow | undefined,
    bySeq: (seq: number) => s.bySeq.get(seq) as SharedPlaylistRow | undefined,
    idOfName: (name: string) => s.byName.get(name) as string | undefined,
    entries: (seq: number) => s.entries.all(seq) as SharedEntryRow[],
    entryOfJob: (seq: number, jobId: number) => s.entry.get(seq, jobId) as SharedEntryRow | undefined,
    /** An entry whose job was cleared from the job list, by its entry id. */
    joblessEntry: (seq: number, entryId: number) => s.jobless.get(seq, entryId) as SharedEntryRow | undefined,
    entriesOfJob: (jobId: number) => s.entriesOfJob.all(jobId) as { id: number; playlist_seq: number }[],
    trackIds: (seq: number) => s.trackIds.all(seq) as number[],
    insert(p: {
      id: string;
      ownerUserId: number | null;
      name: string;
      description: string;
      sourceUrl: string | null;
      sourceFormat: string | null;
      syncEnabled: boolean;
      syncIntervalHours: number;
      keepRemovedTracks: boolean;
      now: number;
    }): number {
      return s.insert.get({ ...p, syncEnabled: p.syncEnabled ? 1 : 0, keepRemovedTracks: p.keepRemovedTracks ? 1 : 0 }) as number;
    },
    update(seq: number, changes: Record<string, string | number | null>, now: number): void {
      const cols = Object.keys(changes);
      const sets = [...cols.map((c) => `${c} = @${c}`), 'updated_at = @now'];
      db.prepare(`UPDATE shared_playlists SET ${sets.join(', ')} WHERE seq = @seq`).run({ ...changes, now, seq });
    },
    addEntry(seq: number, e: NewSharedEntry, now: number, position?: number): number {
      return s.addEntry.get({
        seq,
        position: position ?? (s.nextPosition.get(seq) as number),
        artistName: e.artistName,
        trackName: e.trackName,
        albumName: e.albumName,
        durationMs: e.durationMs,
        recordingMbid: e.recordingMbid,
        trackId: e.trackId,
        jobId: e.jobId,
        fromSource: e.fromSource ? 1 : 0,
        now,
      }) as number;
    },
    removeEntry: (id: number) => s.removeEntry.run(id).changes > 0,
    setPosition: (id: number, position: number) => s.setPosition.run(position, id),
    markRemoved: (id: number, removed: boolean) => s.markRemoved.run(removed ? 1 : 0, id),
    setTrack: (id: number, trackId: number) => s.setTrack.run(trackId, id),
    setJob: (id: number, jobId: number) => s.setJob.run(jobId, id),
    touch: (seq: number, now: number) => s.touch.run(now, seq),
    remove: (seq: number) => s.remove.run(seq).changes > 0,
    dueForSync: (now: number) => s.dueForSync.all(now) as string[],
  };
}
export type SharedPlaylistsRepository = ReturnType<typeof sharedPlaylistsRepository>;
