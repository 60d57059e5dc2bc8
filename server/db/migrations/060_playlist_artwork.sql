-- Playlist artwork (issue 14): one picture per playlist of any kind (static, flow, shared), either
-- uploaded by an editor or generated (a mosaic of the playlist's album covers with its name). The
-- JPEG lives under <data dir>/playlist-artwork/; this row says which file, its validator and origin.
CREATE TABLE playlist_artwork (
  playlist_kind TEXT NOT NULL CHECK (playlist_kind IN ('static', 'flow', 'shared')),
  playlist_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('uploaded', 'generated')),
  -- file name inside the artwork folder (content-addressed, so a new picture never overwrites the old in place)
  file TEXT NOT NULL,
  mime TEXT NOT NULL,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  etag TEXT NOT NULL,
  -- generated only: what the picture was drawn from (name and cover keys), to skip redrawing the same picture
  signature TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (playlist_kind, playlist_id)
) WITHOUT ROWID;
