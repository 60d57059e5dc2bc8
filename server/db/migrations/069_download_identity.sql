-- Why a download is trusted (issue 26): where its expected length came from, the real length of
-- the file that arrived, and what its acoustic fingerprint says it is.
ALTER TABLE download_jobs ADD COLUMN duration_source TEXT;
ALTER TABLE download_jobs ADD COLUMN file_duration_ms INTEGER;
-- verified (the fingerprint names the requested recording), different (it names another one),
-- unknown (AcoustID knows nothing, or names no recording to compare), skipped (no key, no tool)
ALTER TABLE download_jobs ADD COLUMN identity TEXT;
ALTER TABLE download_jobs ADD COLUMN identity_note TEXT;
ALTER TABLE download_jobs ADD COLUMN identity_recording_mbid TEXT;

-- "Identify files without MusicBrainz ids": what a fingerprint says a library track is, proposed per
-- album and written to the track (and its file's tags) only once an administrator accepts it.
CREATE TABLE library_identify_proposals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  track_id INTEGER NOT NULL UNIQUE REFERENCES library_tracks(id) ON DELETE CASCADE,
  album_id INTEGER,
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
