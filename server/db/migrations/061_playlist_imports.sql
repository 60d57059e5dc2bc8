-- Playlist imports (issue 15): each user's Spotify account link, the pending OAuth requests, and
-- every import with its tracks in source order. Tokens and the PKCE verifier are stored encrypted
-- with the installation's AES-GCM key, never in clear.
CREATE TABLE spotify_links (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  -- 'broker': tokens from the token broker (renewed there); 'pkce': our own client id at Spotify
  method TEXT NOT NULL CHECK (method IN ('broker', 'pkce')),
  client_id TEXT,
  spotify_user_id TEXT,
  display_name TEXT,
  access_token_enc TEXT NOT NULL,
  refresh_token_enc TEXT,
  -- when the access token expires (ms since the epoch)
  expires_at INTEGER NOT NULL,
  linked_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- An OAuth request between start and complete: one use, short-lived.
CREATE TABLE spotify_oauth_states (
  state TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  method TEXT NOT NULL CHECK (method IN ('broker', 'pkce')),
  code_verifier_enc TEXT,
  redirect_uri TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);

-- One import of one source playlist; it is also the `playlist_import` activity item.
CREATE TABLE playlist_imports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  source TEXT NOT NULL CHECK (source IN ('spotify', 'listenbrainz', 'lastfm')),
  source_ref TEXT NOT NULL,
  name TEXT NOT NULL,
  -- the playlist made: 'static' now; 'shared' once shared playlists exist
  target_type TEXT NOT NULL DEFAULT 'static',
  target_id TEXT NOT NULL,
  -- matching: tracks still being looked up; downloading: download jobs unfinished; done; failed
  status TEXT NOT NULL CHECK (status IN ('matching', 'downloading', 'done', 'failed')),
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX playlist_imports_user ON playlist_imports (user_id, id DESC);
CREATE INDEX playlist_imports_target ON playlist_imports (target_type, target_id);

-- The tracks of an import in source order. state: owned (in the playlist from the start), pending
-- (not looked up yet), queued (a download job), added (downloaded and joined the playlist),
-- unmatched (no MusicBrainz recording), failed (its download failed or was cancelled).
CREATE TABLE playlist_import_items (
  import_id INTEGER NOT NULL REFERENCES playlist_imports(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  artist TEXT NOT NULL,
  title TEXT NOT NULL,
  album TEXT,
  duration_ms INTEGER,
  isrc TEXT,
  recording_mbid TEXT,
  state TEXT NOT NULL CHECK (state IN ('owned', 'pending', 'queued', 'added', 'unmatched', 'failed')),
  track_id INTEGER,
  job_id INTEGER,
  PRIMARY KEY (import_id, position)
) WITHOUT ROWID;
CREATE INDEX playlist_import_items_pending ON playlist_import_items (import_id, position) WHERE state = 'pending';
CREATE INDEX playlist_import_items_job ON playlist_import_items (job_id) WHERE job_id IS NOT NULL;
