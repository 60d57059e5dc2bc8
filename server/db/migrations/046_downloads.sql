-- Self-managed downloads: one row per wanted track, the albums requested as a whole, and the
-- sources a user denied for a job.

-- An album requested with managedBy "aurral": its tracks are download_jobs rows.
CREATE TABLE download_albums (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- MusicBrainz release group (api.md's albumMbid) and the release whose track list was used
  album_mbid TEXT NOT NULL UNIQUE,
  release_mbid TEXT,
  artist_mbid TEXT,
  artist_name TEXT NOT NULL,
  album_name TEXT NOT NULL,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  -- 1 while the user wants it; cancelling clears it (finished tracks stay)
  monitored INTEGER NOT NULL DEFAULT 1,
  -- set when the request was saved while no download source existed
  waiting_for_source INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE download_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- who asked; null for jobs of a deleted user or the instance API key
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  -- 'library' for single tracks and albums; later a flow or playlist id
  playlist_type TEXT NOT NULL DEFAULT 'library',
  playlist_id TEXT,
  album_id INTEGER REFERENCES download_albums(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'downloading', 'blocked', 'done', 'failed', 'cancelled')),
  -- where a running job is: search, download, verify, file (resumed from here after a restart)
  phase TEXT,
  artist_name TEXT NOT NULL,
  track_name TEXT NOT NULL,
  album_name TEXT,
  artist_mbid TEXT,
  album_mbid TEXT,
  release_mbid TEXT,
  recording_mbid TEXT,
  track_number INTEGER,
  disc_number INTEGER,
  duration_ms INTEGER,
  year INTEGER,
  -- the source currently tried and its state (JSON: chosen candidate, transfer handle); null before
  download_source TEXT,
  source_state TEXT,
  progress REAL NOT NULL DEFAULT 0,
  -- the held or downloaded file before filing, and the file in the library once done
  staging_path TEXT,
  final_path TEXT,
  stream_format TEXT,
  -- quality of the filed file
  format TEXT,
  bitrate INTEGER,
  sample_rate INTEGER,
  bit_depth INTEGER,
  quality_tier TEXT,
  -- 1 for a search for a better copy of a done job
  upgrade INTEGER NOT NULL DEFAULT 0,
  -- why it is blocked, failed or cancelled
  error TEXT,
  block_reason TEXT,
  -- library track linked instead of downloaded (existingFileMode reuse)
  reused_track_id INTEGER,
  queue_job_id INTEGER,
  blocked_at INTEGER,
  completed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX download_jobs_user ON download_jobs (user_id, id DESC);
CREATE INDEX download_jobs_status ON download_jobs (status, id DESC);
CREATE INDEX download_jobs_user_status ON download_jobs (user_id, status, id DESC);
CREATE INDEX download_jobs_album ON download_jobs (album_id);
CREATE INDEX download_jobs_playlist ON download_jobs (playlist_type, playlist_id);
CREATE INDEX download_jobs_recording ON download_jobs (recording_mbid) WHERE recording_mbid IS NOT NULL;

-- A source a user denied for a job, never picked again for it (slskd: user NUL file; others: release id).
CREATE TABLE download_denied_sources (
  job_id INTEGER NOT NULL REFERENCES download_jobs(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  ref TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (job_id, source, ref)
);
