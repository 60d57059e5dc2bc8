-- Discovery cache (api.md 4.8): per-user recommendations, the global chart, tag rankings, the taste
-- summary, feedback, preferences and the refresh state. Everything here except feedback and
-- preferences is derived from upstream answers and can be cleared and rebuilt by a refresh.

-- One row per recommended artist of a user, ranked; `name_key` is the library's nameKey().
CREATE TABLE discovery_recommendations (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  mbid TEXT,
  rank INTEGER NOT NULL,
  score REAL NOT NULL,
  -- lastfm | listenbrainz
  source TEXT NOT NULL,
  -- JSON array of the seed artist names this one was found from
  seeds_json TEXT NOT NULL DEFAULT '[]',
  tags_json TEXT NOT NULL DEFAULT '[]',
  -- /api/image-proxy/<key> of the provider's picture, or null
  image TEXT,
  PRIMARY KEY (user_id, name_key)
) WITHOUT ROWID;
CREATE INDEX discovery_recommendations_by_rank ON discovery_recommendations(user_id, rank);

-- The seeds of a user's last refresh (`basedOn`): library artists and listening history.
CREATE TABLE discovery_seeds (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  mbid TEXT,
  -- library | local | lastfm | listenbrainz | koito | feedback
  source TEXT NOT NULL,
  weight REAL NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (user_id, name_key)
) WITHOUT ROWID;

-- Taste summary per user: kind tag (provider tags of the recommendations) or genre (library genres).
CREATE TABLE discovery_taste (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  weight REAL NOT NULL,
  PRIMARY KEY (user_id, kind, name)
) WITHOUT ROWID;

-- Shared rankings: scope 'global' (chart / sitewide top) or 'tag:<tag>' (tag.getTopArtists).
CREATE TABLE discovery_rankings (
  scope TEXT NOT NULL,
  rank INTEGER NOT NULL,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  mbid TEXT,
  listeners INTEGER,
  source TEXT NOT NULL,
  image TEXT,
  -- whether the library had the artist when the ranking was stored
  in_library INTEGER NOT NULL DEFAULT 0,
  fetched_at INTEGER NOT NULL,
  PRIMARY KEY (scope, rank)
) WITHOUT ROWID;

-- Per-artist provider answers kept between refreshes: kind similar (artist.getSimilar) or tags.
CREATE TABLE discovery_artist_cache (
  kind TEXT NOT NULL,
  name_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  fetched_at INTEGER NOT NULL,
  PRIMARY KEY (kind, name_key)
) WITHOUT ROWID;

-- More / less like this. Kept when the cache is cleared.
CREATE TABLE discovery_feedback (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name_key TEXT NOT NULL,
  artist_name TEXT NOT NULL,
  artist_mbid TEXT,
  -- more | less
  kind TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (user_id, name_key)
);

CREATE TABLE discovery_preferences (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  excluded_tags_json TEXT NOT NULL DEFAULT '[]',
  excluded_artists_json TEXT NOT NULL DEFAULT '[]',
  deep_dive INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);

-- Refresh state per scope ('global' or 'user:<id>').
CREATE TABLE discovery_state (
  scope TEXT PRIMARY KEY,
  provider TEXT,
  last_updated INTEGER,
  last_attempt_at INTEGER,
  last_error TEXT,
  calls_used INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
