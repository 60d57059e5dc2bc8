-- Lidarr integration: what the Lidarr indexer knows per Lidarr artist (for incremental runs and for
-- removing an artist that left Lidarr), and the album/artist/track requests users made through Lidarr.

CREATE TABLE lidarr_artist_index (
  lidarr_artist_id INTEGER PRIMARY KEY,
  mbid TEXT NOT NULL,
  canonical_artist_id INTEGER,
  -- Lidarr's statistics, path and monitoring at the last complete index of this artist; an
  -- incremental run skips the artist while Lidarr reports the same fingerprint.
  fingerprint TEXT,
  indexed_at INTEGER NOT NULL
);

CREATE TABLE lidarr_requests (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('album', 'artist', 'track')),
  -- album requests: the release-group MBID; artist requests: the artist MBID; track requests: the
  -- recording MBID or a name key.
  request_key TEXT NOT NULL,
  artist_mbid TEXT,
  album_mbid TEXT,
  artist_name TEXT NOT NULL,
  title TEXT NOT NULL,
  track_name TEXT,
  lidarr_artist_id INTEGER,
  lidarr_album_id INTEGER,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  status TEXT NOT NULL CHECK (status IN ('processing', 'available', 'failed')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (kind, request_key)
);
CREATE INDEX lidarr_requests_album ON lidarr_requests(lidarr_album_id);
CREATE INDEX lidarr_requests_album_mbid ON lidarr_requests(album_mbid);
CREATE INDEX lidarr_requests_artist_mbid ON lidarr_requests(artist_mbid);
CREATE INDEX lidarr_requests_by_created ON lidarr_requests(created_at, id);
