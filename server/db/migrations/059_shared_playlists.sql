-- Shared playlists (readable by every user, edited by their owner and administrators), the tracks
-- they hold (library tracks, or wanted tracks with their download job), the paused retry cycles of
-- playlists, and which finished playlist download jobs already joined their playlist.

CREATE TABLE shared_playlists (
  -- stable /rest number (restNumberOf('shared', seq)); never reused
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  -- where it was imported from (http(s) URL) and in which format; sync reads it again
  source_url TEXT,
  source_format TEXT,
  sync_enabled INTEGER NOT NULL DEFAULT 0,
  sync_interval_hours INTEGER NOT NULL DEFAULT 24,
  -- on sync, tracks gone from the source stay in the playlist
  keep_removed_tracks INTEGER NOT NULL DEFAULT 0,
  last_synced_at INTEGER,
  last_sync_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX shared_playlists_name ON shared_playlists (lower(name));

CREATE TABLE shared_playlist_tracks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  playlist_seq INTEGER NOT NULL REFERENCES shared_playlists(seq) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  artist_name TEXT NOT NULL,
  track_name TEXT NOT NULL,
  album_name TEXT,
  duration_ms INTEGER,
  recording_mbid TEXT,
  -- the library track once the playlist has it; null while it is wanted (see job_id)
  track_id INTEGER,
  job_id INTEGER REFERENCES download_jobs(id) ON DELETE SET NULL,
  -- 1 when the entry came from the import source (sync adds and removes only those)
  from_source INTEGER NOT NULL DEFAULT 0,
  -- 1 when a sync found it gone from the source and keepRemovedTracks kept it
  removed_from_source INTEGER NOT NULL DEFAULT 0,
  added_at INTEGER NOT NULL
);
CREATE INDEX shared_playlist_tracks_order ON shared_playlist_tracks (playlist_seq, position);
CREATE INDEX shared_playlist_tracks_job ON shared_playlist_tracks (job_id) WHERE job_id IS NOT NULL;

-- Playlists (static or shared, by kind and API id) whose automatic retry of failed tracks is paused.
CREATE TABLE playlist_retry_pauses (
  playlist_type TEXT NOT NULL,
  playlist_id TEXT NOT NULL,
  paused_at INTEGER NOT NULL,
  PRIMARY KEY (playlist_type, playlist_id)
) WITHOUT ROWID;

-- A finished download job of a static or shared playlist whose track joined the playlist.
CREATE TABLE playlist_attached_jobs (
  job_id INTEGER PRIMARY KEY REFERENCES download_jobs(id) ON DELETE CASCADE,
  track_id INTEGER NOT NULL,
  attached_at INTEGER NOT NULL
);
