-- Why a download is trusted (issue 26): where its expected length came from, the real length of
-- the file that arrived, and what its acoustic fingerprint says it is.
ALTER TABLE download_jobs ADD COLUMN duration_source TEXT;
ALTER TABLE download_jobs ADD COLUMN file_duration_ms INTEGER;
-- verified (the fingerprint names the requested recording), different (it names another one),
-- unknown (AcoustID knows nothing, or names no recording to compare), skipped (no key, no tool)
ALTER TABLE download_jobs ADD COLUMN identity TEXT;
ALTER TABLE download_jobs ADD COLUMN identity_note TEXT;
ALTER TABLE download_jobs ADD COLUMN identity_recording_mbid TEXT;

-- "Identify files without MusicBrainz ids": what a fingerprint says a library file is, proposed per
-- album and written to the file's tags only once an administrator accepts it. Keyed by the file's
-- path: accepting changes the track's identity, so the rescan may give it another track row.
CREATE TABLE library_identify_proposals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL UNIQUE,
  track_id INTEGER,
  album_id INTEGER,
  album_title TEXT,
  current_title TEXT NOT NULL,
  current_artist TEXT NOT NULL,
  recording_mbid TEXT NOT NULL,
  title TEXT NOT NULL,
  artist_name TEXT,
  artist_mbid TEXT,
  score REAL NOT NULL,
  -- pending until an administrator accepts or rejects it
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER
);
CREATE INDEX library_identify_proposals_album ON library_identify_proposals (status, album_id);

-- One run of the identify job: its progress, and where it is (resumed from `cursor` after a restart).
CREATE TABLE library_identify_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  total INTEGER NOT NULL DEFAULT 0,
  processed INTEGER NOT NULL DEFAULT 0,
  proposed INTEGER NOT NULL DEFAULT 0,
  -- the last library track id handled
  cursor INTEGER NOT NULL DEFAULT 0,
  note TEXT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER
);
