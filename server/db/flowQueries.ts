import type { Db } from './connection.js';
import type { DownloadStatus } from './downloads.js';
import type { FlowRunRow } from './flows.js';
import { statement } from './statements.js';

/**
 * Reads and writes of the flows area that reach beyond flows, flow_runs and flow_tracks (db/flows.ts):
 * play history, library, metadata cache, download jobs and the job queue, as flow planning, the
 * feed, rotation and the status push need them.
 */

export type GroupedCount = { type: string | null; id: string | null; status: DownloadStatus; n: number; mine?: number };
export type GroupedByOwner = { type: string | null; id: string | null; status: DownloadStatus; userId: number | null; n: number };
export type QueuedFlowJob = { id: number; queue: string; status: string; payload: string; runAt: number };

// ---- planning ---------------------------------------------------------------------------------

/** The user's 50 most played artists (name as first played, an MBID when known). */
export function mostPlayedArtistNames(db: Db, userId: number): { name: string; mbid: string | null }[] {
  return db
    .prepare(
      `SELECT MIN(artist) AS name, MAX(artist_mbid) AS mbid, COUNT(*) AS n FROM play_events WHERE user_id = ? AND artist IS NOT NULL AND artist <> ''
       GROUP BY lower(artist) ORDER BY n DESC LIMIT 50`,
    )
    .all(userId) as { name: string; mbid: string | null }[];
}

/** Library artists with tracks, the user's most played first, then the largest (300 at most). */
export function libraryArtistsByPlays(db: Db, userId: number): { name: string; mbid: string | null }[] {
  return db
    .prepare(
      `SELECT a.name, a.mbid FROM library_artists a
       LEFT JOIN (SELECT t.artist_id, COUNT(*) AS plays FROM play_events e JOIN library_tracks t ON t.id = e.track_id WHERE e.user_id = ? GROUP BY t.artist_id) p ON p.artist_id = a.id
       WHERE a.track_count > 0 ORDER BY COALESCE(p.plays, 0) DESC, a.track_count DESC, a.id LIMIT 300`,
    )
    .all(userId) as { name: string; mbid: string | null }[];
}

/** Artist and title of the user's plays since `since`. */
export function playsSince(db: Db, userId: number, since: number): { artist: string; title: string }[] {
  return db.prepare('SELECT artist, title FROM play_events WHERE user_id = ? AND played_at >= ? AND artist IS NOT NULL').all(userId, since) as {
    artist: string;
    title: string;
  }[];
}

/** Year lookups of a planned album: the metadata cache's release groups, then the library's albums. */
export function albumYearLookups(db: Db): { groupYear(artistMbid: string, album: string): string | null; libraryYear(album: string, artist: string): number | null } {
  const groupYear = db.prepare(
    `SELECT MIN(substr(first_release_date, 1, 4)) AS y FROM metadata_release_groups WHERE artist_mbid = ? AND lower(title) = lower(?) AND first_release_date IS NOT NULL AND first_release_date <> ''`,
  );
  const libraryYear = db.prepare(`SELECT MIN(year) AS y FROM library_albums WHERE lower(title) = lower(?) AND lower(album_artist) = lower(?) AND year > 0`);
  return {
    groupYear: (artistMbid, album) => (groupYear.get(artistMbid, album) as { y: string | null }).y,
    libraryYear: (album, artist) => (libraryYear.get(album, artist) as { y: number | null }).y ?? null,
  };
}

/** Library artists with an MBID and tracks, the largest first. */
export function largestLibraryArtistsWithMbid(db: Db, limit: number): { name: string; mbid: string }[] {
  return db.prepare('SELECT name, mbid FROM library_artists WHERE mbid IS NOT NULL AND track_count > 0 ORDER BY track_count DESC, id LIMIT ?').all(limit) as {
    name: string;
    mbid: string;
  }[];
}

/** Albums and EPs of these artists first released in [from, to] (YYYY-MM-DD) that the library does not hold by MBID, newest first. */
export function recentReleaseGroups(db: Db, artistMbids: string[], from: string, to: string): { artistMbid: string; mbid: string; title: string; date: string }[] {
  return db
    .prepare(
      `SELECT g.artist_mbid AS artistMbid, g.mbid, g.title, g.first_release_date AS date FROM metadata_release_groups g
       WHERE g.artist_mbid IN (SELECT value FROM json_each(?)) AND g.first_release_date >= ? AND g.first_release_date <= ?
         AND g.primary_type IN ('Album', 'EP') AND g.secondary_types = '[]'
         AND NOT EXISTS (SELECT 1 FROM library_albums al WHERE al.mbid = g.mbid)
       ORDER BY g.first_release_date DESC, g.title`,
    )
    .all(JSON.stringify(artistMbids), from, to) as { artistMbid: string; mbid: string; title: string; date: string }[];
}

/** Whether the library holds an album of this title by this album artist (case-insensitive). */
export function ownedAlbumLookup(db: Db): (title: string, albumArtist: string) => boolean {
  const ownedAlbum = db.prepare('SELECT 1 FROM library_albums al WHERE lower(al.title) = lower(?) AND lower(al.album_artist) = lower(?) LIMIT 1');
  return (title, albumArtist) => ownedAlbum.get(title, albumArtist) !== undefined;
}

// ---- feed and files ---------------------------------------------------------------------------

/** Artists and albums of a run's queued tracks, in playlist order, with the MBIDs their jobs know. */
export function feedRows(db: Db, runId: number) {
  return db
    .prepare(
      `SELECT t.artist_name AS artistName, t.artist_mbid AS artistMbid, t.album_name AS albumName, j.album_mbid AS albumMbid, j.artist_mbid AS jobArtistMbid
       FROM flow_tracks t LEFT JOIN download_jobs j ON j.id = t.job_id WHERE t.run_id = ? AND t.state = 'queued' ORDER BY t.position`,
    )
    .all(runId) as { artistName: string; artistMbid: string | null; albumName: string | null; albumMbid: string | null; jobArtistMbid: string | null }[];
}

/** The MBID of a library artist by identity key (`name:<key>`). */
export function libraryArtistMbidLookup(db: Db): (identityKey: string) => string | null {
  const byMbid = db.prepare('SELECT mbid FROM library_artists WHERE identity_key = ? AND mbid IS NOT NULL LIMIT 1');
  return (identityKey) => (byMbid.get(identityKey) as { mbid: string } | undefined)?.mbid ?? null;
}

/** The first file of a library track, with what a playlist file shows of it. */
export function trackFileLookup(db: Db): (trackId: number) => { file: string; artist: string; title: string; durationMs: number | null } | undefined {
  const q = db.prepare(
    `SELECT m.path AS file, t.artist_name AS artist, t.title AS title, t.duration_ms AS durationMs
     FROM library_tracks t JOIN library_media_files m ON m.track_id = t.id WHERE t.id = ? ORDER BY m.id LIMIT 1`,
  );
  return (trackId) => q.get(trackId) as { file: string; artist: string; title: string; durationMs: number | null } | undefined;
}

// ---- runs, rotation, reset ----------------------------------------------------------------------

/** Whether a queue job is still waiting or running. */
export function queueJobAliveLookup(db: Db): (jobId: number) => boolean {
  const alive = db.prepare(`SELECT 1 FROM jobs WHERE id = ? AND status IN ('pending', 'running')`);
  return (jobId) => alive.get(jobId) !== undefined;
}

/** Total duration of these library tracks. */
export function tracksDurationMs(db: Db, ids: number[]): number {
  if (ids.length === 0) return 0;
  return (db.prepare(`SELECT COALESCE(SUM(duration_ms), 0) AS d FROM library_tracks WHERE id IN (${ids.map(() => '?').join(',')})`).get(...ids) as { d: number }).d ?? 0;
}

/** Library track ids of a run's downloaded tracks, in playlist order (null: a file the library has not read yet). */
export function runTrackIds(db: Db, runId: number): (number | null)[] {
  const rows = statement(
    db,
    `SELECT COALESCE(j.reused_track_id, (SELECT m.track_id FROM library_media_files m WHERE m.path = j.final_path LIMIT 1)) AS trackId
     FROM flow_tracks t JOIN download_jobs j ON j.id = t.job_id
     WHERE t.run_id = ? AND t.state = 'queued' AND j.status = 'done' ORDER BY t.position`,
  ).all(runId) as { trackId: number | null }[];
  return rows.map((r) => r.trackId);
}

/** The first download job a run created, or null. */
export function firstJobOfRun(db: Db, runId: number): number | null {
  return (db.prepare(`SELECT MIN(job_id) AS id FROM flow_tracks WHERE run_id = ? AND job_id IS NOT NULL`).get(runId) as { id: number | null }).id;
}

/** For a rotation: whether a static playlist holds a file, and removal of a download job row. */
export function rotationStatements(db: Db): { inStaticPlaylist(path: string): boolean; deleteJob(jobId: number): void } {
  const inStatic = db.prepare('SELECT 1 FROM library_media_files m JOIN static_playlist_tracks s ON s.track_id = m.track_id WHERE m.path = ? LIMIT 1');
  const del = db.prepare('DELETE FROM download_jobs WHERE id = ?');
  return { inStaticPlaylist: (path) => inStatic.get(path) !== undefined, deleteJob: (jobId) => void del.run(jobId) };
}

/** Pending queue jobs of a queue with this dedupe key. */
export function pendingJobsByDedupe(db: Db, queue: string, dedupeKey: string): { id: number }[] {
  return db.prepare(`SELECT id FROM jobs WHERE queue = ? AND dedupe_key = ? AND status = 'pending'`).all(queue, dedupeKey) as { id: number }[];
}

/** Removes a flow's planned tracks and runs (the caller holds the transaction). */
export function deleteRunsOfFlow(db: Db, flowId: string): void {
  db.prepare('DELETE FROM flow_tracks WHERE flow_id = ?').run(flowId);
  db.prepare('DELETE FROM flow_runs WHERE flow_id = ?').run(flowId);
}

/** Queued tracks of a run whose jobs are still open (pending, downloading or blocked). */
export function openTracksOfRun(db: Db, runId: number): number {
  return (
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM flow_tracks t JOIN download_jobs j ON j.id = t.job_id WHERE t.run_id = ? AND t.state = 'queued'
           AND j.status IN ('pending', 'downloading', 'blocked')`,
      )
      .get(runId) as { n: number }
  ).n;
}

/** Song count and duration of the current run of every flow (of one owner, or all), by run id. */
export function currentRunSummaries(db: Db, ownerUserId: number | null): { runId: number; songCount: number; durationMs: number }[] {
  return statement(
    db,
    `WITH ids AS MATERIALIZED (
       SELECT t.run_id AS runId, COALESCE(j.reused_track_id, (SELECT m.track_id FROM library_media_files m WHERE m.path = j.final_path LIMIT 1)) AS trackId
       FROM flow_tracks t JOIN download_jobs j ON j.id = t.job_id
       WHERE t.run_id IN (SELECT current_run_id FROM flows WHERE current_run_id IS NOT NULL AND (@owner IS NULL OR owner_user_id = @owner))
         AND t.state = 'queued' AND j.status = 'done'),
     counts AS (SELECT runId, count(trackId) AS songCount FROM ids GROUP BY runId),
     durations AS (
       SELECT d.runId, SUM(lt.duration_ms) AS durationMs
       FROM (SELECT DISTINCT runId, trackId FROM ids WHERE trackId IS NOT NULL) d JOIN library_tracks lt ON lt.id = d.trackId GROUP BY d.runId)
     SELECT c.runId, c.songCount, COALESCE(d.durationMs, 0) AS durationMs FROM counts c LEFT JOIN durations d ON d.runId = c.runId`,
  ).all({ owner: ownerUserId }) as { runId: number; songCount: number; durationMs: number }[];
}

// ---- status push ------------------------------------------------------------------------------

/** Waiting and running jobs of two queues, the earliest due first. */
export function openJobsOfQueues(db: Db, a: string, b: string): QueuedFlowJob[] {
  return statement(db, `SELECT id, queue, status, payload, run_at AS runAt FROM jobs WHERE queue IN (?, ?) AND status IN ('pending', 'running') ORDER BY run_at, id`).all(
    a,
    b,
  ) as QueuedFlowJob[];
}

/** Download jobs counted by playlist and status; `mine`: those of `userId`. */
export function groupedJobCounts(db: Db, userId: number | undefined): GroupedCount[] {
  if (userId === undefined) {
    return statement(db, `SELECT playlist_type AS type, playlist_id AS id, status, count(*) AS n FROM download_jobs GROUP BY playlist_type, playlist_id, status`).all() as GroupedCount[];
  }
  return statement(
    db,
    `SELECT playlist_type AS type, playlist_id AS id, status, count(*) AS n, SUM(user_id = ?) AS mine FROM download_jobs GROUP BY playlist_type, playlist_id, status`,
  ).all(userId) as GroupedCount[];
}

/** Download jobs counted by playlist, status and owner. */
export function groupedJobCountsByOwner(db: Db): GroupedByOwner[] {
  return statement(
    db,
    `SELECT playlist_type AS type, playlist_id AS id, status, user_id AS userId, count(*) AS n FROM download_jobs
     GROUP BY playlist_type, playlist_id, status, user_id`,
  ).all() as GroupedByOwner[];
}

/** Downloads done and failed since `hour` (of one user, or all): two range reads on (status, completed_at) and (status, updated_at). */
export function downloadMetricsSince(db: Db, hour: number, userId: number | undefined) {
  const done = statement(
    db,
    `SELECT count(*) AS n, AVG(completed_at - created_at) AS averageMs FROM download_jobs
     WHERE status = 'done' AND completed_at >= @hour AND (@userId IS NULL OR user_id = @userId)`,
  ).get({ hour, userId: userId ?? null }) as { n: number; averageMs: number | null };
  const failed = statement(db, `SELECT count(*) FROM download_jobs WHERE status = 'failed' AND updated_at >= @hour AND (@userId IS NULL OR user_id = @userId)`)
    .pluck()
    .get({ hour, userId: userId ?? null }) as number;
  return { done, failed };
}

/** The next run of a scheduled task, if it has one. */
export function scheduledTaskNextRun(db: Db, name: string): number | null | undefined {
  return statement(db, 'SELECT next_run_at FROM scheduled_tasks WHERE name = ?').pluck().get(name) as number | null | undefined;
}

/** Static and shared playlists with failed (non-upgrade) download jobs. */
export function playlistsWithFailedJobs(db: Db): string[] {
  return statement(db, `SELECT DISTINCT playlist_id FROM download_jobs WHERE status = 'failed' AND upgrade = 0 AND playlist_type IN ('static', 'shared') AND playlist_id IS NOT NULL`)
    .pluck()
    .all() as string[];
}

// ---- the status push: finished downloads and the latest flow runs ------------------------------

/** Finished downloads the attempt and latency averages are taken over (the latest ones). */
const METRICS_WINDOW = 1000;

/**
 * Finished downloads the caller may see: how many in all, and over the latest of them the transfers
 * each took (a failed transfer is one more; a track linked from the library took none) and the
 * time from queued to done. Index reads on (status, completed_at), so the 4-second push stays cheap.
 */
export function completedMetrics(db: Db, userId: number | undefined) {
  const n = statement(db, `SELECT count(*) FROM download_jobs WHERE status = 'done' AND (@userId IS NULL OR user_id = @userId)`)
    .pluck()
    .get({ userId: userId ?? null }) as number;
  const r = statement(
    db,
    `SELECT AVG(attempts) AS attempts, AVG(latency) AS latency FROM (
       SELECT CASE WHEN reused_track_id IS NOT NULL THEN 0 ELSE 1 + COALESCE(json_array_length(source_state, '$.failedRefs'), 0) END AS attempts,
              completed_at - created_at AS latency
       FROM download_jobs WHERE status = 'done' AND completed_at IS NOT NULL AND (@userId IS NULL OR user_id = @userId)
       ORDER BY completed_at DESC LIMIT @window)`,
  ).get({ userId: userId ?? null, window: METRICS_WINDOW }) as { attempts: number | null; latency: number | null };
  return {
    completedTracks: n,
    avgAttemptsPerTrack: r.attempts === null ? 0 : Math.round(r.attempts * 100) / 100,
    avgSuccessLatencyMs: r.latency === null ? 0 : Math.round(r.latency),
  };
}

type Finished = { id: number; status: string; at: number; createdAt: number; source: string | null; error: string | null };

/** The download that finished last (done or failed), or null before the first: one index read per status. */
export function lastJobMetrics(db: Db, userId: number | undefined) {
  const params = { userId: userId ?? null };
  const done = statement(
    db,
    `SELECT id, status, completed_at AS at, created_at AS createdAt, download_source AS source, error FROM download_jobs
     WHERE status = 'done' AND completed_at IS NOT NULL AND (@userId IS NULL OR user_id = @userId) ORDER BY completed_at DESC LIMIT 1`,
  ).get(params) as Finished | undefined;
  const failed = statement(
    db,
    `SELECT id, status, updated_at AS at, created_at AS createdAt, download_source AS source, error FROM download_jobs
     WHERE status = 'failed' AND (@userId IS NULL OR user_id = @userId) ORDER BY updated_at DESC LIMIT 1`,
  ).get(params) as Finished | undefined;
  const r = done && failed ? (failed.at > done.at ? failed : done) : (done ?? failed);
  if (!r) return null;
  return {
    jobId: String(r.id),
    finishedAt: r.at,
    elapsedMs: Math.max(0, r.at - r.createdAt),
    failed: r.status === 'failed',
    source: r.source,
    error: r.status === 'failed' ? r.error : null,
  };
}

/** A flow's latest run as GET /api/playlists/status lists it (`worker.playlistRuns.<flowId>`). */
export interface PlaylistRun {
  runId: string;
  status: FlowRunRow['status'];
  trigger: FlowRunRow['trigger'];
  planned: number;
  /** Reserve tracks of the run not used yet. */
  reserveDepth: number;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
  failureSummary: { failedTracks: number; blockedTracks: number };
}

/** The latest run of each flow the caller may see: its state, what it planned, the reserve left and the failed tracks. */
export function playlistRuns(db: Db, flowIds: string[], perFlow: Map<string, Record<DownloadStatus, number>>): Record<string, PlaylistRun> {
  if (flowIds.length === 0) return {};
  const rows = statement(
    db,
    `SELECT r.id, r.flow_id AS flowId, r.status, r.trigger, r.planned, r.error, r.created_at AS startedAt, r.finished_at AS finishedAt,
            (SELECT count(*) FROM flow_tracks t WHERE t.run_id = r.id AND t.reserve = 1 AND t.state = 'planned') AS reserveDepth
     FROM flow_runs r
     WHERE r.id IN (SELECT MAX(id) FROM flow_runs WHERE flow_id IN (SELECT value FROM json_each(?)) GROUP BY flow_id)`,
  ).all(JSON.stringify(flowIds)) as (Pick<FlowRunRow, 'id' | 'flowId' | 'status' | 'trigger' | 'planned' | 'error' | 'finishedAt'> & { startedAt: number; reserveDepth: number })[];
  const out: Record<string, PlaylistRun> = {};
  for (const r of rows) {
    const c = perFlow.get(r.flowId);
    out[r.flowId] = {
      runId: String(r.id),
      status: r.status,
      trigger: r.trigger,
      planned: r.planned,
      reserveDepth: r.reserveDepth,
      startedAt: new Date(r.startedAt).toISOString(),
      finishedAt: r.finishedAt === null ? null : new Date(r.finishedAt).toISOString(),
      error: r.error,
      failureSummary: { failedTracks: c?.failed ?? 0, blockedTracks: c?.blocked ?? 0 },
    };
  }
  return out;
}
