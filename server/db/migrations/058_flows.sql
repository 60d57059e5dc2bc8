-- Flows: playlists planned from discovery on a schedule, whose tracks are download jobs
-- (download_jobs.playlist_type = 'flow', playlist_id = flows.id).
CREATE TABLE flows (
  -- the stable number behind the flow's /rest `pl-` id (restNumberOf('flow', seq))
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  -- null only for legacy flows; a flow always belongs to a real user
  owner_user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  size INTEGER NOT NULL,
  -- {discover, mix, trending, focus}: weights in percent
  mix_json TEXT NOT NULL,
  tags_json TEXT NOT NULL DEFAULT '[]',
  related_artists_json TEXT NOT NULL DEFAULT '[]',
  deep_dive INTEGER NOT NULL DEFAULT 0,
  record_history INTEGER NOT NULL DEFAULT 0,
  show_in_library INTEGER NOT NULL DEFAULT 0,
  -- 1: tracks already in the library may be planned (else they are left out)
  include_library_tracks INTEGER NOT NULL DEFAULT 0,
  -- 1: at most one track per artist (release-radar)
  one_per_artist INTEGER NOT NULL DEFAULT 0,
  year_from INTEGER,
  year_to INTEGER,
  -- weekday numbers, 0 = Sunday; "HH:MM" in the server's time zone
  schedule_days_json TEXT NOT NULL DEFAULT '[5]',
  schedule_time TEXT NOT NULL DEFAULT '00:00',
  enabled INTEGER NOT NULL DEFAULT 1,
  template_id TEXT,
  discover_preset_id TEXT,
  current_run_id INTEGER,
  -- the queued run of the next scheduled fire, and that fire
  next_queue_job_id INTEGER,
  next_run_at INTEGER,
  last_run_at INTEGER,
  last_error TEXT,
  -- the per-flow token of the Lidarr import-list feed
  feed_token TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX flows_owner ON flows (owner_user_id, seq);
CREATE UNIQUE INDEX flows_owner_name ON flows (owner_user_id, lower(name));

-- One run of a flow: planned once (a queue job), then its tracks download.
CREATE TABLE flow_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  flow_id TEXT NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
  -- the queue job that plans it: a reclaimed job finds its run instead of planning twice
  queue_job_id INTEGER,
  trigger TEXT NOT NULL CHECK (trigger IN ('manual', 'schedule', 'create')),
  status TEXT NOT NULL CHECK (status IN ('planning', 'downloading', 'done', 'failed')),
  planned INTEGER NOT NULL DEFAULT 0,
  reserve INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX flow_runs_flow ON flow_runs (flow_id, id DESC);
CREATE UNIQUE INDEX flow_runs_queue_job ON flow_runs (queue_job_id) WHERE queue_job_id IS NOT NULL;

-- The planned tracks of a run: `reserve` ones wait to replace a failure.
CREATE TABLE flow_tracks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES flow_runs(id) ON DELETE CASCADE,
  flow_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  reserve INTEGER NOT NULL DEFAULT 0,
  -- discover, mix, trending, focus
  source TEXT NOT NULL,
  artist_name TEXT NOT NULL,
  track_name TEXT NOT NULL,
  album_name TEXT,
  artist_mbid TEXT,
  recording_mbid TEXT,
  duration_ms INTEGER,
  year INTEGER,
  -- planned: no job yet; queued: its job runs; replaced: its job failed and a reserve took its place
  state TEXT NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'queued', 'replaced')),
  job_id INTEGER
);
CREATE INDEX flow_tracks_run ON flow_tracks (run_id, reserve, position);
CREATE INDEX flow_tracks_job ON flow_tracks (job_id) WHERE job_id IS NOT NULL;
CREATE INDEX flow_tracks_flow ON flow_tracks (flow_id);
