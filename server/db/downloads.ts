import type { Db } from './connection.js';
import { statement } from './statements.js';

/** decisions §5: the status of a download job. */
export const downloadStatuses = ['pending', 'downloading', 'blocked', 'done', 'failed', 'cancelled'] as const;
export type DownloadStatus = (typeof downloadStatuses)[number];
export type DownloadPhase = 'search' | 'download' | 'verify' | 'file';

export interface DownloadJobRow {
  id: number;
  userId: number | null;
  playlistType: string;
  playlistId: string | null;
  albumId: number | null;
  status: DownloadStatus;
  phase: DownloadPhase | null;
  artistName: string;
  trackName: string;
  albumName: string | null;
  artistMbid: string | null;
  albumMbid: string | null;
  releaseMbid: string | null;
  recordingMbid: string | null;
  trackNumber: number | null;
  discNumber: number | null;
  durationMs: number | null;
  /** Where `durationMs` came from: `request`, `musicbrainz:recording`, `musicbrainz:release`, `musicbrainz:search`; `none` when nothing knew it. */
  durationSource: string | null;
  /** The real length of the file that arrived. */
  fileDurationMs: number | null;
  /** What the acoustic fingerprint says: verified, different, unknown, skipped (null before the check). */
  identity: string | null;
  /** The check's outcome in words (why it was skipped, what the file sounds like). */
  identityNote: string | null;
  /** The recording the fingerprint named. */
  identityRecordingMbid: string | null;
  year: number | null;
  downloadSource: string | null;
  /** JSON owned by the pipeline (chosen candidate, transfer handle, sources tried). */
  sourceState: string | null;
  progress: number;
  stagingPath: string | null;
  finalPath: string | null;
  streamFormat: string | null;
  format: string | null;
  bitrate: number | null;
  sampleRate: number | null;
  bitDepth: number | null;
  qualityTier: string | null;
  upgrade: number;
  error: string | null;
  blockReason: string | null;
  reusedTrackId: number | null;
  queueJobId: number | null;
  blockedAt: number | null;
  completedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What a new job knows about its track. */
export interface NewDownloadJob {
  userId: number | null;
  playlistType?: string;
  playlistId?: string | null;
  albumId?: number | null;
  artistName: string;
  trackName: string;
  albumName?: string | null;
  artistMbid?: string | null;
  albumMbid?: string | null;
  releaseMbid?: string | null;
  recordingMbid?: string | null;
  trackNumber?: number | null;
  discNumber?: number | null;
  durationMs?: number | null;
  /** Where durationMs came from; default `request` when one is given. */
  durationSource?: string | null;
  year?: number | null;
  upgrade?: boolean;
}

/** Columns a transition may set, besides status. */
export type DownloadJobPatch = Partial<
  Pick<
    DownloadJobRow,
    | 'phase'
    | 'durationMs'
    | 'durationSource'
    | 'fileDurationMs'
    | 'identity'
    | 'identityNote'
    | 'identityRecordingMbid'
    | 'downloadSource'
    | 'sourceState'
    | 'progress'
    | 'stagingPath'
    | 'finalPath'
    | 'streamFormat'
    | 'format'
    | 'bitrate'
    | 'sampleRate'
    | 'bitDepth'
    | 'qualityTier'
    | 'error'
    | 'blockReason'
    | 'reusedTrackId'
    | 'queueJobId'
    | 'blockedAt'
    | 'completedAt'
    | 'status'
  >
>;

export interface JobListQuery {
  /** Only this user's jobs; undefined: everyone's. */
  userId?: number;
  status?: DownloadStatus | DownloadStatus[];
  playlistType?: string;
  playlistId?: string;
  albumId?: number;
  limit: number;
  offset: number;
}

const JOB_COLUMNS = `id, user_id AS userId, playlist_type AS playlistType, playlist_id AS playlistId, album_id AS albumId,
  status, phase, artist_name AS artistName, track_name AS trackName, album_name AS albumName, artist_mbid AS artistMbid,
  album_mbid AS albumMbid, release_mbid AS releaseMbid, recording_mbid AS recordingMbid, track_number AS trackNumber,
  disc_number AS discNumber, duration_ms AS durationMs, duration_source AS durationSource,
  file_duration_ms AS fileDurationMs, identity, identity_note AS identityNote, identity_recording_mbid AS identityRecordingMbid, year, download_source AS downloadSource,
  source_state AS sourceState, progress, staging_path AS stagingPath, final_path AS finalPath,
  stream_format AS streamFormat, format, bitrate, sample_rate AS sampleRate, bit_depth AS bitDepth,
  quality_tier AS qualityTier, upgrade, error, block_reason AS blockReason, reused_track_id AS reusedTrackId,
  queue_job_id AS queueJobId, blocked_at AS blockedAt, completed_at AS completedAt, created_at AS createdAt,
  updated_at AS updatedAt`;

const PATCH_COLUMN: Record<keyof DownloadJobPatch, string> = {
  phase: 'phase',
  durationMs: 'duration_ms',
  durationSource: 'duration_source',
  fileDurationMs: 'file_duration_ms',
  identity: 'identity',
  identityNote: 'identity_note',
  identityRecordingMbid: 'identity_recording_mbid',
  downloadSource: 'download_source',
  sourceState: 'source_state',
  progress: 'progress',
  stagingPath: 'staging_path',
  finalPath: 'final_path',
  streamFormat: 'stream_format',
  format: 'format',
  bitrate: 'bitrate',
  sampleRate: 'sample_rate',
  bitDepth: 'bit_depth',
  qualityTier: 'quality_tier',
  error: 'error',
  blockReason: 'block_reason',
  reusedTrackId: 'reused_track_id',
  queueJobId: 'queue_job_id',
  blockedAt: 'blocked_at',
  completedAt: 'completed_at',
  status: 'status',
};

function where(q: Omit<JobListQuery, 'limit' | 'offset'>): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (q.userId !== undefined) {
    parts.push('user_id = ?');
    params.push(q.userId);
  }
  if (q.status !== undefined) {
    const list = Array.isArray(q.status) ? q.status : [q.status];
    parts.push(`status IN (${list.map(() => '?').join(', ')})`);
    params.push(...list);
  }
  if (q.playlistType !== undefined) {
    parts.push('playlist_type = ?');
    params.push(q.playlistType);
  }
  if (q.playlistId !== undefined) {
    parts.push('playlist_id = ?');
    params.push(q.playlistId);
  }
  if (q.albumId !== undefined) {
    parts.push('album_id = ?');
    params.push(q.albumId);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** download_jobs, download_albums and download_denied_sources. */
export const downloads = {
  insert(db: Db, j: NewDownloadJob, now: number): DownloadJobRow {
    return statement(db, 
        `INSERT INTO download_jobs (user_id, playlist_type, playlist_id, album_id, status, artist_name, track_name,
           album_name, artist_mbid, album_mbid, release_mbid, recording_mbid, track_number, disc_number, duration_ms,
           duration_source, year, upgrade, created_at, updated_at)
         VALUES (@userId, @playlistType, @playlistId, @albumId, 'pending', @artistName, @trackName, @albumName,
           @artistMbid, @albumMbid, @releaseMbid, @recordingMbid, @trackNumber, @discNumber, @durationMs,
           @durationSource, @year,
           @upgrade, @now, @now)
         RETURNING ${JOB_COLUMNS}`,
      )
      .get({
        userId: j.userId,
        playlistType: j.playlistType ?? 'library',
        playlistId: j.playlistId ?? null,
        albumId: j.albumId ?? null,
        artistName: j.artistName,
        trackName: j.trackName,
        albumName: j.albumName ?? null,
        artistMbid: j.artistMbid ?? null,
        albumMbid: j.albumMbid ?? null,
        releaseMbid: j.releaseMbid ?? null,
        recordingMbid: j.recordingMbid ?? null,
        trackNumber: j.trackNumber ?? null,
        discNumber: j.discNumber ?? null,
        durationMs: j.durationMs ?? null,
        durationSource: j.durationMs ? (j.durationSource ?? 'request') : null,
        year: j.year ?? null,
        upgrade: j.upgrade ? 1 : 0,
        now,
      }) as DownloadJobRow;
  },

  get(db: Db, id: number): DownloadJobRow | undefined {
    return statement(db, `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE id = ?`).get(id) as DownloadJobRow | undefined;
  },

  /** Newest first. */
  list(db: Db, q: JobListQuery): DownloadJobRow[] {
    const w = where(q);
    return statement(db, `SELECT ${JOB_COLUMNS} FROM download_jobs ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(...w.params, q.limit, q.offset) as DownloadJobRow[];
  },

  count(db: Db, q: Omit<JobListQuery, 'limit' | 'offset'>): number {
    const w = where(q);
    return (statement(db, `SELECT count(*) AS n FROM download_jobs ${w.sql}`).get(...w.params) as { n: number }).n;
  },

  countsByStatus(db: Db, q: Omit<JobListQuery, 'limit' | 'offset' | 'status'>): Record<DownloadStatus, number> {
    const w = where(q);
    const rows = statement(db, `SELECT status, count(*) AS n FROM download_jobs ${w.sql} GROUP BY status`).all(...w.params) as {
      status: DownloadStatus;
      n: number;
    }[];
    const out = Object.fromEntries(downloadStatuses.map((s) => [s, 0])) as Record<DownloadStatus, number>;
    for (const r of rows) out[r.status] = r.n;
    return out;
  },

  /**
   * Sets columns; when `from` is given the update happens only if the job is still in one of those
   * statuses (a compare-and-set between the worker and the review routes). Returns the row after, or
   * undefined when the job is gone or its status did not match.
   */
  update(db: Db, id: number, patch: DownloadJobPatch, now: number, from?: DownloadStatus[]): DownloadJobRow | undefined {
    const keys = Object.keys(patch) as (keyof DownloadJobPatch)[];
    const sets = [...keys.map((k) => `${PATCH_COLUMN[k]} = @${k}`), 'updated_at = @now'];
    const guard = from ? ` AND status IN (${from.map((s) => `'${s}'`).join(', ')})` : '';
    return statement(db, `UPDATE download_jobs SET ${sets.join(', ')} WHERE id = @id${guard} RETURNING ${JOB_COLUMNS}`)
      .get({ ...patch, id, now }) as DownloadJobRow | undefined;
  },

  /** An open job (pending, downloading or blocked) for the same recording or the same names. */
  findOpen(
    db: Db,
    t: { recordingMbid?: string | null; artistName: string; trackName: string; playlistType?: string; playlistId?: string | null },
  ): DownloadJobRow | undefined {
    const open = `status IN ('pending', 'downloading', 'blocked') AND playlist_type = @playlistType
      AND playlist_id IS @playlistId AND upgrade = 0`;
    const params = { playlistType: t.playlistType ?? 'library', playlistId: t.playlistId ?? null };
    if (t.recordingMbid) {
      const byId = statement(db, `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE recording_mbid = @mbid AND ${open} ORDER BY id DESC LIMIT 1`)
        .get({ ...params, mbid: t.recordingMbid }) as DownloadJobRow | undefined;
      if (byId) return byId;
    }
    return statement(db, 
        `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE lower(artist_name) = lower(@artist) AND lower(track_name) = lower(@track)
           AND ${open} ORDER BY id DESC LIMIT 1`,
      )
      .get({ ...params, artist: t.artistName, track: t.trackName }) as DownloadJobRow | undefined;
  },

  /** Single-track requests: `library` jobs of no album and not upgrades, newest first. */
  singleTrackJobs(db: Db, limit: number): DownloadJobRow[] {
    return statement(db, 
        `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE album_id IS NULL AND playlist_type = 'library' AND playlist_id IS NULL
           AND upgrade = 0 ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as DownloadJobRow[];
  },

  /**
   * Deletes finished jobs (done, failed, cancelled), or with `all` every job that is not running:
   * downloading ones stay, and so do pending ones whose queue run has already started. Files stay.
   * Returns what was deleted, so the caller can drop the queue runs of deleted pending jobs.
   */
  deleteFinished(db: Db, q: { userId?: number; all: boolean }): { id: number; status: DownloadStatus; queueJobId: number | null }[] {
    const statuses = q.all ? `('done', 'failed', 'cancelled', 'blocked', 'pending')` : `('done', 'failed', 'cancelled')`;
    const user = q.userId !== undefined ? ' AND user_id = @userId' : '';
    return statement(db, 
        `DELETE FROM download_jobs WHERE status IN ${statuses}${user}
           AND NOT (status = 'pending' AND EXISTS (SELECT 1 FROM jobs r WHERE r.id = download_jobs.queue_job_id AND r.status = 'running'))
         RETURNING id, status, queue_job_id AS queueJobId`,
      )
      .all({ userId: q.userId }) as { id: number; status: DownloadStatus; queueJobId: number | null }[];
  },

  /** Done jobs (not upgrades themselves) whose quality tier is one of `tiers`, oldest first. */
  doneWithTier(db: Db, q: { userId?: number; playlist?: string; jobId?: number }, tiers: readonly string[]): DownloadJobRow[] {
    if (tiers.length === 0) return [];
    const parts = [`status = 'done'`, 'upgrade = 0', `quality_tier IN (${tiers.map(() => '?').join(', ')})`];
    const params: unknown[] = [...tiers];
    if (q.userId !== undefined) {
      parts.push('user_id = ?');
      params.push(q.userId);
    }
    if (q.playlist !== undefined) {
      // A flow or playlist by its id; single tracks and albums by their type (`library`).
      parts.push('(playlist_id = ? OR (playlist_id IS NULL AND playlist_type = ?))');
      params.push(q.playlist, q.playlist);
    }
    if (q.jobId !== undefined) {
      parts.push('id = ?');
      params.push(q.jobId);
    }
    return statement(db, `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE ${parts.join(' AND ')} ORDER BY id`).all(...params) as DownloadJobRow[];
  },

  /**
   * Upgrade jobs for the same track as `job` (same playlist, and the same recording or the same
   * artist and title), newest first.
   */
  upgradesOf(db: Db, job: Pick<DownloadJobRow, 'playlistType' | 'playlistId' | 'recordingMbid' | 'artistName' | 'trackName'>): DownloadJobRow[] {
    return statement(db, 
        `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE upgrade = 1 AND playlist_type = @playlistType AND playlist_id IS @playlistId
           AND (recording_mbid = @recordingMbid OR (lower(artist_name) = lower(@artistName) AND lower(track_name) = lower(@trackName)))
         ORDER BY id DESC`,
      )
      .all({
        playlistType: job.playlistType,
        playlistId: job.playlistId,
        recordingMbid: job.recordingMbid,
        artistName: job.artistName,
        trackName: job.trackName,
      }) as DownloadJobRow[];
  },

  /** The done track job an upgrade job is for: the same track as `upgradesOf` matches, newest first. */
  upgradeTarget(db: Db, upgrade: Pick<DownloadJobRow, 'playlistType' | 'playlistId' | 'recordingMbid' | 'artistName' | 'trackName'>): DownloadJobRow | undefined {
    return statement(db, 
        `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE upgrade = 0 AND status = 'done' AND playlist_type = @playlistType
           AND playlist_id IS @playlistId
           AND (recording_mbid = @recordingMbid OR (lower(artist_name) = lower(@artistName) AND lower(track_name) = lower(@trackName)))
         ORDER BY id DESC LIMIT 1`,
      )
      .get({
        playlistType: upgrade.playlistType,
        playlistId: upgrade.playlistId,
        recordingMbid: upgrade.recordingMbid,
        artistName: upgrade.artistName,
        trackName: upgrade.trackName,
      }) as DownloadJobRow | undefined;
  },

  /** Failed and cancelled track jobs (not upgrades) that research may start again, oldest first. */
  missing(db: Db, q: { userId?: number }): DownloadJobRow[] {
    const user = q.userId !== undefined ? ' AND user_id = ?' : '';
    return statement(db, `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE status IN ('failed', 'cancelled') AND upgrade = 0${user} ORDER BY id`)
      .all(...(q.userId !== undefined ? [q.userId] : [])) as DownloadJobRow[];
  },

  deny(db: Db, jobId: number, source: string, ref: string, now: number): void {
    statement(db, 'INSERT OR IGNORE INTO download_denied_sources (job_id, source, ref, created_at) VALUES (?, ?, ?, ?)').run(
      jobId,
      source,
      ref,
      now,
    );
  },

  /** Refs denied for a job, as `source\u0000ref`. */
  denied(db: Db, jobId: number): Set<string> {
    const rows = statement(db, 'SELECT source, ref FROM download_denied_sources WHERE job_id = ?').all(jobId) as { source: string; ref: string }[];
    return new Set(rows.map((r) => `${r.source}\u0000${r.ref}`));
  },

  /** Jobs the worker must (re)start: pending ones and downloading ones whose queue job is gone. */
  orphaned(db: Db): DownloadJobRow[] {
    return statement(db, 
        `SELECT ${JOB_COLUMNS} FROM download_jobs d WHERE d.status IN ('pending', 'downloading')
           AND NOT EXISTS (SELECT 1 FROM jobs q WHERE q.id = d.queue_job_id AND q.status IN ('pending', 'running'))
         ORDER BY d.id`,
      )
      .all() as DownloadJobRow[];
  },

  /** Blocked jobs held since before `before`. */
  blockedSince(db: Db, before: number): DownloadJobRow[] {
    return statement(db, `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE status = 'blocked' AND blocked_at < ? ORDER BY id`)
      .all(before) as DownloadJobRow[];
  },

  /** Every staging or final path a job other than `exceptJobId` still points at (removal safety). */
  pathInUse(db: Db, file: string, exceptJobId: number): boolean {
    return (
      statement(db, 
          `SELECT 1 FROM download_jobs WHERE id != ? AND (final_path = ? OR (staging_path = ? AND status IN ('pending', 'downloading', 'blocked'))) LIMIT 1`,
        )
        .get(exceptJobId, file, file) !== undefined
    );
  },
};
