-- Podcast channels an administrator subscribed to, and their episodes from the feed. Downloaded
-- episode files live under <data dir>/podcasts/; file_path is relative to that folder.
CREATE TABLE podcast_channels (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  title TEXT,
  description TEXT,
  image_url TEXT,
  status TEXT NOT NULL CHECK (status IN ('new', 'downloading', 'completed', 'error')),
  error_message TEXT,
  created_at INTEGER NOT NULL,
  refreshed_at INTEGER
);

CREATE TABLE podcast_episodes (
  id INTEGER PRIMARY KEY,
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
CREATE INDEX podcast_episodes_of_channel ON podcast_episodes(channel_id, published_at, id);
CREATE INDEX podcast_episodes_newest ON podcast_episodes(published_at, id);
