-- 1. Ids shown by /rest (pl-, ir-, pc-, pe-) are never handed out twice: a plain INTEGER PRIMARY
-- KEY reuses the highest id after it is deleted, and clients that cache by id then show stale data.
-- Each table is rebuilt with AUTOINCREMENT, keeping every row, column, index and constraint. Parents
-- are renamed first (foreign keys follow the rename), children are rebuilt against the new parent,
-- and the old tables are dropped once nothing refers to them, so no ON DELETE CASCADE fires.

ALTER TABLE static_playlists RENAME TO static_playlists_032;
DROP INDEX static_playlists_by_user;
CREATE TABLE static_playlists (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  comment TEXT NOT NULL DEFAULT '',
  public INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO static_playlists (id, user_id, name, comment, public, created_at, updated_at)
  SELECT id, user_id, name, comment, public, created_at, updated_at FROM static_playlists_032;
CREATE INDEX static_playlists_by_user ON static_playlists(user_id, id);

ALTER TABLE static_playlist_tracks RENAME TO static_playlist_tracks_032;
CREATE TABLE static_playlist_tracks (
  playlist_id INTEGER NOT NULL REFERENCES static_playlists(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  track_id INTEGER NOT NULL,
  PRIMARY KEY (playlist_id, position)
) WITHOUT ROWID;
INSERT INTO static_playlist_tracks (playlist_id, position, track_id)
  SELECT playlist_id, position, track_id FROM static_playlist_tracks_032;
DROP TABLE static_playlist_tracks_032;
DROP TABLE static_playlists_032;

ALTER TABLE internet_radio_stations RENAME TO internet_radio_stations_032;
DROP INDEX internet_radio_stations_by_name;
CREATE TABLE internet_radio_stations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  stream_url TEXT NOT NULL,
  home_page_url TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO internet_radio_stations (id, name, stream_url, home_page_url, created_at, updated_at)
  SELECT id, name, stream_url, home_page_url, created_at, updated_at FROM internet_radio_stations_032;
CREATE INDEX internet_radio_stations_by_name ON internet_radio_stations(name COLLATE NOCASE, id);
DROP TABLE internet_radio_stations_032;

ALTER TABLE podcast_channels RENAME TO podcast_channels_032;
CREATE TABLE podcast_channels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL UNIQUE,
  title TEXT,
  description TEXT,
  image_url TEXT,
  status TEXT NOT NULL CHECK (status IN ('new', 'downloading', 'completed', 'error')),
  error_message TEXT,
  created_at INTEGER NOT NULL,
  refreshed_at INTEGER
);
INSERT INTO podcast_channels (id, url, title, description, image_url, status, error_message, created_at, refreshed_at)
  SELECT id, url, title, description, image_url, status, error_message, created_at, refreshed_at FROM podcast_channels_032;

ALTER TABLE podcast_episodes RENAME TO podcast_episodes_032;
DROP INDEX podcast_episodes_of_channel;
DROP INDEX podcast_episodes_newest;
CREATE TABLE podcast_episodes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  channel_id INTEGER NOT NULL REFERENCES podcast_channels(id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  published_at INTEGER,
  enclosure_url TEXT NOT NULL,
  enclosure_type TEXT,
  enclosure_length INTEGER,
  duration_seconds INTEGER,
  status TEXT NOT NULL CHECK (status IN ('new', 'downloading', 'completed', 'error', 'deleted', 'skipped')),
  error_message TEXT,
  file_path TEXT,
  file_size INTEGER,
  content_type TEXT,
  bitrate INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (channel_id, guid)
);
INSERT INTO podcast_episodes (id, channel_id, guid, title, description, published_at, enclosure_url, enclosure_type,
    enclosure_length, duration_seconds, status, error_message, file_path, file_size, content_type, bitrate, created_at)
  SELECT id, channel_id, guid, title, description, published_at, enclosure_url, enclosure_type,
    enclosure_length, duration_seconds, status, error_message, file_path, file_size, content_type, bitrate, created_at
  FROM podcast_episodes_032;
CREATE INDEX podcast_episodes_of_channel ON podcast_episodes(channel_id, published_at, id);
CREATE INDEX podcast_episodes_newest ON podcast_episodes(published_at, id);
DROP TABLE podcast_episodes_032;
DROP TABLE podcast_channels_032;

-- 2. Shares (Subsonic createShare/getShares, public pages under /share/<id>). The id is random
-- (base 62, 22 characters), so it can be neither guessed nor reused. Entries name what was shared
-- (a track, album, artist or playlist); the tracks are resolved when the share is played. Library
-- entries are kept by their Subsonic key (stable across rescans, never another row's after a
-- prune), playlists by their id (never reused, see above).
CREATE TABLE shares (
  id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  last_visited_at INTEGER,
  visit_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX shares_by_user ON shares(user_id, created_at);

CREATE TABLE share_entries (
  share_id TEXT NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('track', 'album', 'artist', 'playlist')),
  target TEXT NOT NULL,
  PRIMARY KEY (share_id, position)
) WITHOUT ROWID;
