-- Metadata fetched from MusicBrainz, Cover Art Archive and the other public services, one JSON
-- document per resource (artist, release group, release, covers, similar lists, ...). A missing
-- upstream resource is cached as well (`found` = 0), so it is not asked for again on every page.
CREATE TABLE metadata_cache (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  found INTEGER NOT NULL DEFAULT 1,
  payload TEXT,
  fetched_at INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;

-- Per-artist corrections of the automatic matching (GET/PUT /api/artists/:mbid/overrides).
CREATE TABLE metadata_overrides (
  artist_mbid TEXT PRIMARY KEY,
  musicbrainz_id TEXT,
  deezer_artist_id TEXT,
  updated_at INTEGER NOT NULL
);
