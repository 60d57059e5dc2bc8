-- Inbox (issue 13 item 5): per user, one row per (kind, source key) — a release group of a library
-- artist, a nearby show, a week of news about an artist, a recommended artist. Refreshes update the
-- row in place, so read, saved, dismissed and added survive them.
CREATE TABLE inbox_items (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- release | show | news | discovery
  kind TEXT NOT NULL,
  source_key TEXT NOT NULL,
  title TEXT NOT NULL,
  subtitle TEXT,
  -- Where the item leads: a page of the web UI (/release/<mbid>) or an outside link (tickets, article).
  href TEXT,
  image_url TEXT,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  -- The item's own date (release date, show date, newest article, recommendation), ms since the epoch.
  item_at INTEGER,
  -- When the item first reached the inbox (newest first sorts on this, then item_at).
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  read_at INTEGER,
  saved_at INTEGER,
  -- Hidden until this time (a dismissal for a period).
  dismissed_until INTEGER,
  added_at INTEGER,
  -- Hidden from this time (a passed show, an old release, something a refresh no longer finds);
  -- unsaved rows are deleted a while after it, so a comeback within that time keeps its state.
  expires_at INTEGER,
  -- A hash of what a refresh stores (title to metadata): unchanged rows are not written again.
  fingerprint TEXT NOT NULL DEFAULT '',
  UNIQUE (user_id, kind, source_key)
);
CREATE INDEX inbox_items_by_user_newest ON inbox_items(user_id, created_at DESC, item_at DESC, id DESC);
-- Covers the unread count and the total (no table reads for a few thousand rows).
CREATE INDEX inbox_items_by_state ON inbox_items(user_id, read_at, kind, dismissed_until, expires_at, saved_at);
-- The saved items, newest first (a few among thousands).
CREATE INDEX inbox_items_saved ON inbox_items(user_id, created_at DESC, item_at DESC, id DESC) WHERE saved_at IS NOT NULL;
CREATE INDEX inbox_items_by_expiry ON inbox_items(expires_at) WHERE saved_at IS NULL;

-- The last refresh of each user's inbox and what it found.
CREATE TABLE inbox_refresh_state (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  refreshed_at INTEGER,
  counts_json TEXT NOT NULL DEFAULT '{}',
  warning TEXT
);
