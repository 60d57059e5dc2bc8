-- Plex (issue 15): the administrator's plex.tv account, the tokens of the servers it can reach,
-- PIN sign-ins in progress, each user's own Plex link (their account, or a managed Plex Home user
-- an administrator linked for them), and the map from the chosen Plex music library's tracks to
-- this library's tracks. Every token is encrypted with the installation's AES-GCM key.
CREATE TABLE plex_account (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  token_enc TEXT NOT NULL,
  plex_id TEXT,
  uuid TEXT,
  username TEXT,
  -- the user who connected it (NULL: the instance API key)
  connected_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  connected_at INTEGER NOT NULL
);

-- A server's own access token, as plex.tv's resources list it (a shared server's differs from the account token).
CREATE TABLE plex_server_tokens (
  machine_identifier TEXT PRIMARY KEY,
  name TEXT,
  token_enc TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

-- PINs handed out and not yet approved or expired; a PIN is only completed for whom it was started.
CREATE TABLE plex_pins (
  id TEXT PRIMARY KEY,
  code TEXT NOT NULL,
  purpose TEXT NOT NULL CHECK (purpose IN ('server', 'user')),
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);

CREATE TABLE plex_links (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  -- 'oauth': the user signed in to their own Plex account; 'managed': an administrator linked a Plex Home user
  kind TEXT NOT NULL CHECK (kind IN ('oauth', 'managed')),
  plex_user_id TEXT,
  plex_uuid TEXT,
  username TEXT,
  title TEXT,
  token_enc TEXT NOT NULL,
  linked_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  linked_at INTEGER NOT NULL,
  last_error TEXT
);

-- The chosen Plex music library's tracks; track_id is the library track with the same file (NULL: none here).
CREATE TABLE plex_tracks (
  section_id TEXT NOT NULL,
  rating_key TEXT NOT NULL,
  track_id INTEGER REFERENCES library_tracks(id) ON DELETE SET NULL,
  file TEXT,
  synced_at INTEGER NOT NULL,
  PRIMARY KEY (section_id, rating_key)
) WITHOUT ROWID;
CREATE INDEX plex_tracks_track ON plex_tracks (track_id, section_id) WHERE track_id IS NOT NULL;
