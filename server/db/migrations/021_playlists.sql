-- The user's static playlists (shown by /rest and /api/playlists).
CREATE TABLE static_playlists (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  comment TEXT NOT NULL DEFAULT '',
  public INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX static_playlists_by_user ON static_playlists(user_id, id);

CREATE TABLE static_playlist_tracks (
  playlist_id INTEGER NOT NULL REFERENCES static_playlists(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  track_id INTEGER NOT NULL,
  PRIMARY KEY (playlist_id, position)
) WITHOUT ROWID;
