-- Canonical music library (decisions §8): artists, albums, tracks, album–track links, media files,
-- genres, plus the derived columns, snapshots and search indexes that keep every page an index walk.
-- Sources bitmask: 1 = aurral (scanned music folders), 2 = lidarr.

CREATE TABLE library_artists (
  id INTEGER PRIMARY KEY,
  identity_key TEXT NOT NULL UNIQUE,
  mbid TEXT,
  name TEXT NOT NULL,
  sort_name TEXT NOT NULL,
  metadata_json TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- derived (refreshDerived)
  album_count INTEGER NOT NULL DEFAULT 0,
  track_count INTEGER NOT NULL DEFAULT 0,
  available_track_count INTEGER NOT NULL DEFAULT 0,
  size_on_disk INTEGER NOT NULL DEFAULT 0,
  sources INTEGER NOT NULL DEFAULT 0,
  available INTEGER NOT NULL DEFAULT 0,
  latest_media_at INTEGER NOT NULL DEFAULT 0,
  image_key TEXT
);
CREATE INDEX library_artists_mbid ON library_artists(mbid) WHERE mbid IS NOT NULL;
CREATE INDEX library_artists_by_name ON library_artists(sort_name, id);
CREATE INDEX library_artists_by_newest ON library_artists(latest_media_at, id);
CREATE INDEX library_artists_by_created ON library_artists(created_at, id);

CREATE TABLE library_albums (
  id INTEGER PRIMARY KEY,
  identity_key TEXT NOT NULL UNIQUE,
  mbid TEXT,
  release_mbid TEXT,
  artist_id INTEGER NOT NULL REFERENCES library_artists(id),
  title TEXT NOT NULL,
  sort_name TEXT NOT NULL,
  album_artist TEXT NOT NULL,
  artist_sort_name TEXT NOT NULL,
  release_date TEXT,
  year INTEGER NOT NULL DEFAULT 0,
  album_type TEXT,
  secondary_types TEXT NOT NULL DEFAULT '[]',
  metadata_json TEXT,
  monitored INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- derived
  track_count INTEGER NOT NULL DEFAULT 0,
  available_track_count INTEGER NOT NULL DEFAULT 0,
  size_on_disk INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  sources INTEGER NOT NULL DEFAULT 0,
  available INTEGER NOT NULL DEFAULT 0,
  latest_media_at INTEGER NOT NULL DEFAULT 0,
  image_key TEXT
);
CREATE INDEX library_albums_mbid ON library_albums(mbid) WHERE mbid IS NOT NULL;
CREATE INDEX library_albums_release_mbid ON library_albums(release_mbid) WHERE release_mbid IS NOT NULL;
CREATE INDEX library_albums_by_name ON library_albums(sort_name, id);
CREATE INDEX library_albums_by_newest ON library_albums(latest_media_at, id);
CREATE INDEX library_albums_by_year ON library_albums(year, sort_name, id);
CREATE INDEX library_albums_by_artist ON library_albums(artist_sort_name, year, sort_name, id);
CREATE INDEX library_albums_of_artist ON library_albums(artist_id, year, sort_name, id);

CREATE TABLE library_tracks (
  id INTEGER PRIMARY KEY,
  identity_key TEXT NOT NULL UNIQUE,
  mbid TEXT,
  title TEXT NOT NULL,
  sort_name TEXT NOT NULL,
  artist_name TEXT NOT NULL,
  artist_sort_name TEXT NOT NULL,
  artist_id INTEGER REFERENCES library_artists(id),
  album_id INTEGER REFERENCES library_albums(id),
  album_sort_name TEXT NOT NULL DEFAULT '',
  disc_number INTEGER NOT NULL DEFAULT 1,
  track_number INTEGER NOT NULL DEFAULT 0,
  year INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  lyrics TEXT,
  metadata_json TEXT,
  monitored INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- derived
  size_on_disk INTEGER NOT NULL DEFAULT 0,
  sources INTEGER NOT NULL DEFAULT 0,
  available INTEGER NOT NULL DEFAULT 0,
  latest_media_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX library_tracks_mbid ON library_tracks(mbid) WHERE mbid IS NOT NULL;
CREATE INDEX library_tracks_by_name ON library_tracks(sort_name, id);
CREATE INDEX library_tracks_by_newest ON library_tracks(latest_media_at, id);
CREATE INDEX library_tracks_by_artist ON library_tracks(artist_sort_name, album_sort_name, disc_number, track_number, id);
CREATE INDEX library_tracks_by_album ON library_tracks(album_sort_name, disc_number, track_number, id);
CREATE INDEX library_tracks_of_artist ON library_tracks(artist_id, sort_name, id);
CREATE INDEX library_tracks_of_album ON library_tracks(album_id);

CREATE TABLE library_album_tracks (
  album_id INTEGER NOT NULL REFERENCES library_albums(id) ON DELETE CASCADE,
  track_id INTEGER NOT NULL REFERENCES library_tracks(id) ON DELETE CASCADE,
  disc_number INTEGER NOT NULL DEFAULT 1,
  track_number INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (album_id, track_id)
) WITHOUT ROWID;
CREATE INDEX library_album_tracks_order ON library_album_tracks(album_id, disc_number, track_number, track_id);
CREATE INDEX library_album_tracks_track ON library_album_tracks(track_id);

CREATE TABLE library_media_files (
  id INTEGER PRIMARY KEY,
  track_id INTEGER NOT NULL REFERENCES library_tracks(id) ON DELETE CASCADE,
  album_id INTEGER REFERENCES library_albums(id) ON DELETE SET NULL,
  source TEXT NOT NULL CHECK (source IN ('aurral', 'lidarr')),
  path TEXT NOT NULL,
  root TEXT,
  format TEXT,
  mime TEXT,
  codec TEXT,
  size INTEGER NOT NULL DEFAULT 0,
  mtime_ms INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  bitrate INTEGER,
  sample_rate INTEGER,
  bit_depth INTEGER,
  channels INTEGER,
  lossless INTEGER NOT NULL DEFAULT 0,
  fingerprint TEXT,
  image_key TEXT,
  tag_error TEXT,
  available INTEGER NOT NULL DEFAULT 1,
  last_seen_scan_id INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (source, path)
);
CREATE INDEX library_media_files_track ON library_media_files(track_id);
CREATE INDEX library_media_files_album ON library_media_files(album_id);
CREATE INDEX library_media_files_fingerprint ON library_media_files(fingerprint) WHERE fingerprint IS NOT NULL;
CREATE INDEX library_media_files_root_seen ON library_media_files(source, root, last_seen_scan_id);

CREATE TABLE library_genres (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  sort_name TEXT NOT NULL
);

CREATE TABLE library_track_genres (
  track_id INTEGER NOT NULL REFERENCES library_tracks(id) ON DELETE CASCADE,
  genre_id INTEGER NOT NULL REFERENCES library_genres(id),
  PRIMARY KEY (track_id, genre_id)
) WITHOUT ROWID;

-- Genre membership of every entity kind (1 artist, 2 album, 3 track) carrying the sort keys, so a
-- genre-filtered page in name or newest order is an index walk.
CREATE TABLE library_genre_links (
  genre_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  entity_id INTEGER NOT NULL,
  sort_name TEXT NOT NULL,
  latest_media_at INTEGER NOT NULL DEFAULT 0,
  available INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (kind, entity_id, genre_id)
) WITHOUT ROWID;
CREATE INDEX library_genre_links_by_name ON library_genre_links(genre_id, kind, sort_name, entity_id);
CREATE INDEX library_genre_links_by_newest ON library_genre_links(genre_id, kind, latest_media_at, entity_id);

-- Persisted snapshots, recomputed off the main thread after writes.
CREATE TABLE library_genre_stats (
  genre_id INTEGER PRIMARY KEY,
  artist_count INTEGER NOT NULL,
  album_count INTEGER NOT NULL,
  track_count INTEGER NOT NULL,
  available_artist_count INTEGER NOT NULL,
  available_album_count INTEGER NOT NULL,
  available_track_count INTEGER NOT NULL
);
CREATE INDEX library_genre_stats_by_count ON library_genre_stats(track_count, genre_id);

CREATE TABLE library_stats (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;

-- Entities whose derived data must be recomputed; written in the same transaction as the change,
-- so a scan killed half-way leaves the work for the next refresh.
CREATE TABLE library_dirty (
  kind INTEGER NOT NULL,
  entity_id INTEGER NOT NULL,
  PRIMARY KEY (kind, entity_id)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE library_artists_fts USING fts5(doc, tokenize = 'trigram remove_diacritics 1', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE library_albums_fts USING fts5(doc, tokenize = 'trigram remove_diacritics 1', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE library_tracks_fts USING fts5(doc, tokenize = 'trigram remove_diacritics 1', content = '', contentless_delete = 1);

CREATE TABLE library_scan_runs (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL DEFAULT 'aurral',
  mode TEXT NOT NULL CHECK (mode IN ('quick', 'full')),
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  reason TEXT,
  roots_json TEXT NOT NULL DEFAULT '[]',
  files_seen INTEGER NOT NULL DEFAULT 0,
  files_indexed INTEGER NOT NULL DEFAULT 0,
  files_skipped INTEGER NOT NULL DEFAULT 0,
  files_failed INTEGER NOT NULL DEFAULT 0,
  files_missing INTEGER NOT NULL DEFAULT 0,
  files_moved INTEGER NOT NULL DEFAULT 0,
  errors_json TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  requested_at INTEGER NOT NULL,
  started_at INTEGER,
  completed_at INTEGER
);
CREATE INDEX library_scan_runs_status ON library_scan_runs(status, id);

CREATE TABLE library_images (
  cache_key TEXT PRIMARY KEY,
  mime TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  origin TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Per-user data shared with /rest: favorites are Subsonic stars, the queue is the play queue,
-- play events are scrobbles.
CREATE TABLE library_favorites (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  entity_kind TEXT NOT NULL CHECK (entity_kind IN ('artist', 'album', 'track')),
  entity_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, entity_kind, entity_id)
) WITHOUT ROWID;
CREATE INDEX library_favorites_by_created ON library_favorites(user_id, created_at);

CREATE TABLE library_favorite_changes (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  changed_at INTEGER NOT NULL
);

CREATE TABLE library_play_queues (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  current_index INTEGER NOT NULL DEFAULT 0,
  position_ms INTEGER NOT NULL DEFAULT 0,
  changed_at INTEGER NOT NULL,
  changed_by TEXT
);

CREATE TABLE library_play_queue_entries (
  user_id INTEGER NOT NULL REFERENCES library_play_queues(user_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  track_id INTEGER NOT NULL,
  PRIMARY KEY (user_id, position)
) WITHOUT ROWID;

CREATE TABLE play_events (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  track_id INTEGER REFERENCES library_tracks(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  artist TEXT,
  album TEXT,
  artist_mbid TEXT,
  album_mbid TEXT,
  track_mbid TEXT,
  duration_ms INTEGER,
  played_at INTEGER NOT NULL,
  source TEXT NOT NULL DEFAULT 'web',
  created_at INTEGER NOT NULL
);
CREATE INDEX play_events_by_user ON play_events(user_id, played_at);
