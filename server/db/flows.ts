import { statement } from './statements.js';
import type { Db } from './connection.js';

/** The four sources a flow mixes (reference §3.8), weights in percent. */
export const MIX_SOURCES = ['discover', 'mix', 'trending', 'focus'] as const;
export type MixSource = (typeof MIX_SOURCES)[number];
export type Mix = Record<MixSource, number>;

export interface FlowRow {
  seq: number;
  id: string;
  ownerUserId: number | null;
  owner: string;
  name: string;
  description: string;
  size: number;
  mix: Mix;
  tags: string[];
  relatedArtists: string[];
  deepDive: boolean;
  recordHistory: boolean;
  showInLibrary: boolean;
  includeLibraryTracks: boolean;
  onePerArtist: boolean;
  yearFrom: number | null;
  yearTo: number | null;
  scheduleDays: number[];
  scheduleTime: string;
  enabled: boolean;
  templateId: string | null;
  discoverPresetId: string | null;
  currentRunId: number | null;
  nextQueueJobId: number | null;
  nextRunAt: number | null;
  lastRunAt: number | null;
  lastError: string | null;
  feedToken: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What a new or changed flow stores (everything but its identity and run state). */
export type FlowFields = Pick<
  FlowRow,
  | 'name'
  | 'description'
  | 'size'
  | 'mix'
  | 'tags'
  | 'relatedArtists'
  | 'deepDive'
  | 'recordHistory'
  | 'showInLibrary'
  | 'includeLibraryTracks'
  | 'onePerArtist'
  | 'yearFrom'
  | 'yearTo'
  | 'scheduleDays'
  | 'scheduleTime'
  | 'enabled'
  | 'templateId'
  | 'discoverPresetId'
>;

export interface FlowRunRow {
  id: number;
  flowId: string;
  queueJobId: number | null;
  trigger: 'manual' | 'schedule' | 'create';
  status: 'planning' | 'downloading' | 'done' | 'failed';
  planned: number;
  reserve: number;
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface PlannedTrack {
  source: MixSource;
  artistName: string;
  trackName: string;
  albumName: string | null;
  artistMbid: string | null;
  recordingMbid: string | null;
  durationMs: number | null;
  year: number | null;
}

export interface FlowTrackRow extends PlannedTrack {
  id: number;
  runId: number;
  flowId: string;
  position: number;
  reserve: boolean;
  state: 'planned' | 'queued' | 'replaced';
  jobId: number | null;
}

interface RawFlow {
  seq: number;
  id: string;
  owner_user_id: number | null;
  owner: string | null;
  name: string;
  description: string;
  size: number;
  mix_json: string;
  tags_json: string;
  related_artists_json: string;
  deep_dive: number;
  record_history: number;
  show_in_library: number;
  include_library_tracks: number;
  one_per_artist: number;
  year_from: number | null;
  year_to: number | null;
  schedule_days_json: string;
  schedule_time: string;
  enabled: number;
  template_id: string | null;
  discover_preset_id: string | null;
  current_run_id: number | null;
  next_queue_job_id: number | null;
  next_run_at: number | null;
  last_run_at: number | null;
  last_error: string | null;
  feed_token: string | null;
  created_at: number;
  updated_at: number;
}

const FLOW_SELECT = `SELECT f.*, u.username AS owner FROM flows f LEFT JOIN users u ON u.id = f.owner_user_id`;

function toFlow(r: RawFlow): FlowRow {
  const mix = JSON.parse(r.mix_json) as Partial<Mix>;
  return {
    seq: r.seq,
    id: r.id,
    ownerUserId: r.owner_user_id,
    owner: r.owner ?? '',
    name: r.name,
    description: r.description,
    size: r.size,
    mix: { discover: mix.discover ?? 0, mix: mix.mix ?? 0, trending: mix.trending ?? 0, focus: mix.focus ?? 0 },
    tags: JSON.parse(r.tags_json) as string[],
    relatedArtists: JSON.parse(r.related_artists_json) as string[],
    deepDive: r.deep_dive === 1,
    recordHistory: r.record_history === 1,
    showInLibrary: r.show_in_library === 1,
    includeLibraryTracks: r.include_library_tracks === 1,
    onePerArtist: r.one_per_artist === 1,
    yearFrom: r.year_from,
    yearTo: r.year_to,
    scheduleDays: JSON.parse(r.schedule_days_json) as number[],
    scheduleTime: r.schedule_time,
    enabled: r.enabled === 1,
    templateId: r.template_id,
    discoverPresetId: r.discover_preset_id,
    currentRunId: r.current_run_id,
    nextQueueJobId: r.next_queue_job_id,
    nextRunAt: r.next_run_at,
    lastRunAt: r.last_run_at,
    lastError: r.last_error,
    feedToken: r.feed_token,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function fieldParams(f: FlowFields) {
  return {
    name: f.name,
    description: f.description,
    size: f.size,
    mix: JSON.stringify(f.mix),
    tags: JSON.stringify(f.tags),
    related: JSON.stringify(f.relatedArtists),
    deepDive: f.deepDive ? 1 : 0,
    recordHistory: f.recordHistory ? 1 : 0,
    showInLibrary: f.showInLibrary ? 1 : 0,
    includeLibraryTracks: f.includeLibraryTracks ? 1 : 0,
    onePerArtist: f.onePerArtist ? 1 : 0,
    yearFrom: f.yearFrom,
    yearTo: f.yearTo,
    days: JSON.stringify(f.scheduleDays),
    time: f.scheduleTime,
    enabled: f.enabled ? 1 : 0,
    templateId: f.templateId,
    presetId: f.discoverPresetId,
  };
}

const TRACK_COLUMNS = `id, run_id AS runId, flow_id AS flowId, position, reserve, source, artist_name AS artistName,
  track_name AS trackName, album_name AS albumName, artist_mbid AS artistMbid, recording_mbid AS recordingMbid,
  duration_ms AS durationMs, year, state, job_id AS jobId`;
const RUN_COLUMNS = `id, flow_id AS flowId, queue_job_id AS queueJobId, trigger, status, planned, reserve, error,
  created_at AS createdAt, finished_at AS finishedAt`;

const toTrack = (r: Omit<FlowTrackRow, 'reserve'> & { reserve: number }): FlowTrackRow => ({ ...r, reserve: r.reserve === 1 });

/** flows, flow_runs and flow_tracks. */
export const flows = {
  insert(db: Db, id: string, ownerUserId: number, f: FlowFields, now: number): FlowRow {
    db.prepare(
      `INSERT INTO flows (id, owner_user_id, name, description, size, mix_json, tags_json, related_artists_json, deep_dive,
         record_history, show_in_library, include_library_tracks, one_per_artist, year_from, year_to, schedule_days_json,
         schedule_time, enabled, template_id, discover_preset_id, created_at, updated_at)
       VALUES (@id, @owner, @name, @description, @size, @mix, @tags, @related, @deepDive, @recordHistory, @showInLibrary,
         @includeLibraryTracks, @onePerArtist, @yearFrom, @yearTo, @days, @time, @enabled, @templateId, @presetId, @now, @now)`,
    ).run({ ...fieldParams(f), id, owner: ownerUserId, now });
    return flows.get(db, id)!;
  },

  update(db: Db, id: string, f: FlowFields, now: number): void {
    db.prepare(
      `UPDATE flows SET name = @name, description = @description, size = @size, mix_json = @mix, tags_json = @tags,
         related_artists_json = @related, deep_dive = @deepDive, record_history = @recordHistory,
         show_in_library = @showInLibrary, include_library_tracks = @includeLibraryTracks, one_per_artist = @onePerArtist,
         year_from = @yearFrom, year_to = @yearTo, schedule_days_json = @days, schedule_time = @time, enabled = @enabled,
         template_id = @templateId, discover_preset_id = @presetId, updated_at = @now WHERE id = @id`,
    ).run({ ...fieldParams(f), id, now });
  },

  setState(
    db: Db,
    id: string,
    s: Partial<Pick<FlowRow, 'currentRunId' | 'nextQueueJobId' | 'nextRunAt' | 'lastRunAt' | 'lastError' | 'feedToken' | 'enabled'>>,
    now: number,
  ): void {
    const cols: Record<string, string> = {
      currentRunId: 'current_run_id',
      nextQueueJobId: 'next_queue_job_id',
      nextRunAt: 'next_run_at',
      lastRunAt: 'last_run_at',
      lastError: 'last_error',
      feedToken: 'feed_token',
      enabled: 'enabled',
    };
    const keys = Object.keys(s);
    if (keys.length === 0) return;
    const params: Record<string, unknown> = { id, now };
    for (const k of keys) {
      const v = (s as Record<string, unknown>)[k];
      params[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    db.prepare(`UPDATE flows SET ${keys.map((k) => `${cols[k]} = @${k}`).join(', ')}, updated_at = @now WHERE id = @id`).run(params);
  },

  get(db: Db, id: string): FlowRow | undefined {
    const r = db.prepare(`${FLOW_SELECT} WHERE f.id = ?`).get(id) as RawFlow | undefined;
    return r && toFlow(r);
  },

  bySeq(db: Db, seq: number): FlowRow | undefined {
    const r = db.prepare(`${FLOW_SELECT} WHERE f.seq = ?`).get(seq) as RawFlow | undefined;
    return r && toFlow(r);
  },

  /** A user's flows (every flow when `ownerUserId` is undefined), oldest first. */
  list(db: Db, ownerUserId?: number): FlowRow[] {
    const rows =
      ownerUserId === undefined
        ? (statement(db, `${FLOW_SELECT} ORDER BY f.seq`).all() as RawFlow[])
        : (statement(db, `${FLOW_SELECT} WHERE f.owner_user_id = ? ORDER BY f.seq`).all(ownerUserId) as RawFlow[]);
    return rows.map(toFlow);
  },

  nameTaken(db: Db, ownerUserId: number, name: string, exceptId?: string): boolean {
    return (
      db.prepare('SELECT 1 FROM flows WHERE owner_user_id = ? AND lower(name) = lower(?) AND id IS NOT ? LIMIT 1').get(ownerUserId, name, exceptId ?? null) !==
      undefined
    );
  },

  delete(db: Db, id: string): boolean {
    return db.prepare('DELETE FROM flows WHERE id = ?').run(id).changes > 0;
  },

  // --- runs -------------------------------------------------------------------------------------

  insertRun(db: Db, r: { flowId: string; queueJobId: number | null; trigger: FlowRunRow['trigger'] }, now: number): FlowRunRow {
    return db
      .prepare(`INSERT INTO flow_runs (flow_id, queue_job_id, trigger, status, created_at) VALUES (?, ?, ?, 'planning', ?) RETURNING ${RUN_COLUMNS}`)
      .get(r.flowId, r.queueJobId, r.trigger, now) as FlowRunRow;
  },

  run(db: Db, id: number): FlowRunRow | undefined {
    return statement(db, `SELECT ${RUN_COLUMNS} FROM flow_runs WHERE id = ?`).get(id) as FlowRunRow | undefined;
  },

  /** The current runs of a user's flows (every flow's when `ownerUserId` is undefined), by run id. */
  currentRuns(db: Db, ownerUserId?: number): Map<number, FlowRunRow> {
    const rows = statement(
      db,
      `SELECT ${RUN_COLUMNS} FROM flow_runs WHERE id IN (SELECT current_run_id FROM flows WHERE current_run_id IS NOT NULL AND (@owner IS NULL OR owner_user_id = @owner))`,
    ).all({ owner: ownerUserId ?? null }) as FlowRunRow[];
    return new Map(rows.map((r) => [r.id, r]));
  },

  runOfQueueJob(db: Db, queueJobId: number): FlowRunRow | undefined {
    return db.prepare(`SELECT ${RUN_COLUMNS} FROM flow_runs WHERE queue_job_id = ?`).get(queueJobId) as FlowRunRow | undefined;
  },

  runs(db: Db, flowId: string, limit = 20): FlowRunRow[] {
    return db.prepare(`SELECT ${RUN_COLUMNS} FROM flow_runs WHERE flow_id = ? ORDER BY id DESC LIMIT ?`).all(flowId, limit) as FlowRunRow[];
  },

  finishRun(db: Db, id: number, status: FlowRunRow['status'], patch: { planned?: number; reserve?: number; error?: string | null }, now: number): void {
    db.prepare(
      `UPDATE flow_runs SET status = @status, planned = COALESCE(@planned, planned), reserve = COALESCE(@reserve, reserve),
         error = @error, finished_at = CASE WHEN @status IN ('done', 'failed') THEN @now ELSE finished_at END WHERE id = @id`,
    ).run({ id, status, planned: patch.planned ?? null, reserve: patch.reserve ?? null, error: patch.error ?? null, now });
  },

  // --- planned tracks ---------------------------------------------------------------------------

  insertTracks(db: Db, runId: number, flowId: string, tracks: PlannedTrack[], reserve: boolean, firstPosition: number): FlowTrackRow[] {
    const stmt = db.prepare(
      `INSERT INTO flow_tracks (run_id, flow_id, position, reserve, source, artist_name, track_name, album_name, artist_mbid,
         recording_mbid, duration_ms, year) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${TRACK_COLUMNS}`,
    );
    return tracks.map((t, i) =>
      toTrack(
        stmt.get(runId, flowId, firstPosition + i, reserve ? 1 : 0, t.source, t.artistName, t.trackName, t.albumName, t.artistMbid, t.recordingMbid, t.durationMs, t.year) as never,
      ),
    );
  },

  tracks(db: Db, runId: number): FlowTrackRow[] {
    return (db.prepare(`SELECT ${TRACK_COLUMNS} FROM flow_tracks WHERE run_id = ? ORDER BY reserve, position`).all(runId) as never[]).map(toTrack);
  },

  trackOfJob(db: Db, jobId: number): FlowTrackRow | undefined {
    const r = db.prepare(`SELECT ${TRACK_COLUMNS} FROM flow_tracks WHERE job_id = ?`).get(jobId) as never;
    return r && toTrack(r);
  },

  /** The first reserve track of a run that has no job yet. */
  nextReserve(db: Db, runId: number): FlowTrackRow | undefined {
    const r = db.prepare(`SELECT ${TRACK_COLUMNS} FROM flow_tracks WHERE run_id = ? AND reserve = 1 AND state = 'planned' ORDER BY position LIMIT 1`).get(runId) as never;
    return r && toTrack(r);
  },

  /** Moves a track into the playlist at `position` with its job. */
  assign(db: Db, trackId: number, jobId: number, position?: number): void {
    db.prepare(`UPDATE flow_tracks SET state = 'queued', job_id = ?, reserve = CASE WHEN ? IS NULL THEN reserve ELSE 0 END, position = COALESCE(?, position) WHERE id = ?`).run(
      jobId,
      position ?? null,
      position ?? null,
      trackId,
    );
  },

  markReplaced(db: Db, trackId: number): void {
    db.prepare(`UPDATE flow_tracks SET state = 'replaced', reserve = 1, position = -position - 1 WHERE id = ?`).run(trackId);
  },

  /** Artist and title keys (lower case) of the tracks of a flow's `runs` latest planned runs before `beforeRunId`. */
  recentKeys(db: Db, flowId: string, runs: number, beforeRunId: number): Set<string> {
    const rows = db
      .prepare(
        `SELECT lower(artist_name) AS a, lower(track_name) AS t FROM flow_tracks WHERE flow_id = ? AND state = 'queued'
           AND run_id IN (SELECT id FROM flow_runs WHERE flow_id = ? AND id < ? AND planned > 0 ORDER BY id DESC LIMIT ?)`,
      )
      .all(flowId, flowId, beforeRunId, runs) as { a: string; t: string }[];
    return new Set(rows.map((r) => `${r.a}\u0000${r.t}`));
  },

  /**
   * True when `trackId` is a file a flow of `userId` with recordHistory off downloaded (not a library
   * track that flow reused).
   */
  downloadedOutsideHistory(db: Db, userId: number, trackId: number): boolean {
    return (
      db
        .prepare(
          `SELECT 1 FROM download_jobs j JOIN flows f ON f.id = j.playlist_id
           WHERE j.playlist_type = 'flow' AND j.status = 'done' AND j.reused_track_id IS NULL AND f.owner_user_id = ? AND f.record_history = 0
             AND j.final_path IN (SELECT m.path FROM library_media_files m WHERE m.track_id = ?) LIMIT 1`,
        )
        .get(userId, trackId) !== undefined
    );
  },
};
