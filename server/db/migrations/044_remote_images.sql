-- Pictures from the metadata services (covers, artist photos), served through the native image cache:
-- a key is handed out only for a URL the server itself produced, and the bytes are fetched once.
CREATE TABLE remote_images (
  cache_key TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  -- the content key in library_images once fetched
  image_key TEXT,
  created_at INTEGER NOT NULL,
  failed_at INTEGER,
  failure TEXT
) WITHOUT ROWID;
