-- The release groups of every artist whose metadata was fetched, one row each, kept in step with the
-- cached artist document; recent releases the library lacks are read from here.
CREATE TABLE metadata_release_groups (
  artist_mbid TEXT NOT NULL,
  mbid TEXT NOT NULL,
  title TEXT NOT NULL,
  primary_type TEXT,
  secondary_types TEXT NOT NULL DEFAULT '[]',
  first_release_date TEXT,
  PRIMARY KEY (artist_mbid, mbid)
) WITHOUT ROWID;
CREATE INDEX metadata_release_groups_by_date ON metadata_release_groups (first_release_date);
