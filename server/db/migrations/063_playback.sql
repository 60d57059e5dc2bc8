-- Playback destinations (issue 15 item 4): every playlist Tonearm publishes to a Subsonic server
-- (Navidrome, supysonic, …) and, later, Plex. One row per (destination, playlist): the remote
-- playlist's id on the destination account it was made on, and the change counters that make
-- publishing a coalesced, durable job (want_seq is raised on every change; the job publishes the
-- newest state and records it in done_seq).
CREATE TABLE playback_publications (
  destination TEXT NOT NULL,
  playlist_kind TEXT NOT NULL CHECK (playlist_kind IN ('static', 'flow', 'shared')),
  playlist_id TEXT NOT NULL,
  -- the destination account (address and user) remote_id belongs to
  account TEXT NOT NULL DEFAULT '',
  remote_id TEXT,
  remote_name TEXT,
  want_seq INTEGER NOT NULL DEFAULT 1,
  done_seq INTEGER NOT NULL DEFAULT 0,
  -- the playlist was deleted here: the job deletes it there, then the row
  deleted INTEGER NOT NULL DEFAULT 0,
  track_count INTEGER NOT NULL DEFAULT 0,
  matched_count INTEGER NOT NULL DEFAULT 0,
  last_published_at INTEGER,
  last_attempt_at INTEGER,
  last_error TEXT,
  -- tracks the destination did not know yet: publish again after its next scan
  retry_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (destination, playlist_kind, playlist_id)
);
CREATE INDEX playback_publications_dirty ON playback_publications (destination) WHERE want_seq > done_seq;

-- Library track → song id on a destination account, found by path or by artist, album and title.
CREATE TABLE playback_track_matches (
  destination TEXT NOT NULL,
  account TEXT NOT NULL,
  track_id INTEGER NOT NULL REFERENCES library_tracks(id) ON DELETE CASCADE,
  remote_id TEXT NOT NULL,
  method TEXT NOT NULL CHECK (method IN ('path', 'tags')),
  matched_at INTEGER NOT NULL,
  PRIMARY KEY (destination, account, track_id)
);

-- Per destination: the last scan Tonearm asked for, the last publish and the last failure.
CREATE TABLE playback_destinations (
  destination TEXT PRIMARY KEY,
  last_scan_at INTEGER,
  last_published_at INTEGER,
  last_error TEXT,
  last_error_at INTEGER
);
