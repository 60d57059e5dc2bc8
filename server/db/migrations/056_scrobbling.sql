-- Scrobbling (issue 15): each user's links to Last.fm, ListenBrainz and Koito, and the outbox of
-- plays to forward to them. The secret (Last.fm session key, ListenBrainz token, Koito API key) is
-- stored encrypted with the installation's AES-GCM key, never in clear.
CREATE TABLE scrobble_links (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  service TEXT NOT NULL CHECK (service IN ('lastfm', 'listenbrainz', 'koito')),
  -- the user's name on that service
  username TEXT,
  secret_enc TEXT NOT NULL,
  -- Koito only: the user's server
  base_url TEXT,
  linked_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, service)
);

-- One row per (play event, service) for scrobbles: the unique index makes a play reach each service
-- at most once, however often it is seen or retried. "Now playing" rows have no play event.
CREATE TABLE scrobble_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  play_event_id INTEGER,
  service TEXT NOT NULL CHECK (service IN ('lastfm', 'listenbrainz', 'koito')),
  kind TEXT NOT NULL CHECK (kind IN ('scrobble', 'now_playing')),
  -- the play as it is sent (JSON: artist, title, album, durationMs, mbids, playedAt)
  play TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  queue_job_id INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE UNIQUE INDEX scrobble_deliveries_once ON scrobble_deliveries (play_event_id, service) WHERE play_event_id IS NOT NULL;
CREATE INDEX scrobble_deliveries_pending ON scrobble_deliveries (user_id, service) WHERE status = 'pending';
CREATE INDEX scrobble_deliveries_updated ON scrobble_deliveries (updated_at) WHERE status <> 'pending';
