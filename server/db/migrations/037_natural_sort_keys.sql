-- Post-migration steps written in JS (postMigrations.ts), for changes SQL alone cannot compute. A row
-- is queued by a migration, advanced batch by batch (cursor saved in the same transaction as the
-- batch, so a killed process resumes where it stopped) and stamped when done.
CREATE TABLE schema_steps (
  name TEXT PRIMARY KEY,
  cursor TEXT,
  queued_at INTEGER NOT NULL,
  completed_at INTEGER
);

-- Sort keys now drop a leading article and order numbers naturally (libraryText.ts sortName): every
-- stored key (sort_name, artist_sort_name, album_sort_name, genre links) is recomputed.
INSERT INTO schema_steps (name, queued_at) VALUES ('library-sort-keys-2', CAST(unixepoch('subsec') * 1000 AS INTEGER));
