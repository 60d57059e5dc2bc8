-- Subsonic (/rest) state. Ids: base-62 keys derived from identity keys, resolved back through this
-- registry (kind 1 artist, 2 album, 3 track, as in library_dirty), kept in step by id watermarks.
CREATE TABLE subsonic_ids (
  kind INTEGER NOT NULL,
  key TEXT NOT NULL,
  entity_id INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;

CREATE TABLE subsonic_id_watermarks (
  kind INTEGER PRIMARY KEY,
  max_id INTEGER NOT NULL
);

-- Per-user OpenSubsonic API keys; only a hash of the key is stored.
CREATE TABLE rest_keys (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX rest_keys_by_user ON rest_keys(user_id, id);

CREATE TABLE subsonic_ratings (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  entity_kind TEXT NOT NULL CHECK (entity_kind IN ('artist', 'album', 'track')),
  entity_id INTEGER NOT NULL,
  rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  PRIMARY KEY (user_id, entity_kind, entity_id)
) WITHOUT ROWID;
CREATE INDEX subsonic_ratings_highest ON subsonic_ratings(user_id, entity_kind, rating, entity_id);

-- Play counts per user and entity (tracks and albums), fed by scrobbles, for frequent/recent lists.
CREATE TABLE subsonic_play_stats (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  entity_kind TEXT NOT NULL CHECK (entity_kind IN ('album', 'track')),
  entity_id INTEGER NOT NULL,
  play_count INTEGER NOT NULL,
  last_played_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, entity_kind, entity_id)
) WITHOUT ROWID;
CREATE INDEX subsonic_play_stats_frequent ON subsonic_play_stats(user_id, entity_kind, play_count, entity_id);
CREATE INDEX subsonic_play_stats_recent ON subsonic_play_stats(user_id, entity_kind, last_played_at, entity_id);

CREATE TABLE subsonic_bookmarks (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  track_id INTEGER NOT NULL,
  position_ms INTEGER NOT NULL,
  comment TEXT,
  created_at INTEGER NOT NULL,
  changed_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, track_id)
) WITHOUT ROWID;

-- Whole-library paging for search3 "" (client sync) walks these in id order.
CREATE INDEX subsonic_artists_available ON library_artists(available, id);
CREATE INDEX subsonic_albums_available ON library_albums(available, id);
CREATE INDEX subsonic_tracks_available ON library_tracks(available, id);
