-- Artists who appear on other artists' albums (compilations, features): how many such albums, kept
-- by the artist roll-up (libraryDerived.ts) like album_count, so a page of artists can say
-- "0 albums, appears on 5" without counting per row. Computed once here for existing libraries.
ALTER TABLE library_artists ADD COLUMN appears_on_count INTEGER NOT NULL DEFAULT 0;

UPDATE library_artists SET appears_on_count = (
  SELECT COUNT(DISTINCT l.album_id)
  FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id JOIN library_albums al ON al.id = l.album_id
  WHERE t.artist_id = library_artists.id AND al.artist_id != library_artists.id
);

-- A track or album that changes artist leaves its previous artist's counts stale unless that artist
-- is refreshed too (the new one is marked by the refresh of the track or album).
CREATE TRIGGER library_tracks_artist_moved AFTER UPDATE OF artist_id ON library_tracks
  WHEN OLD.artist_id IS NOT NEW.artist_id AND OLD.artist_id IS NOT NULL BEGIN
  INSERT OR IGNORE INTO library_dirty (kind, entity_id) VALUES (1, OLD.artist_id);
END;
CREATE TRIGGER library_albums_artist_moved AFTER UPDATE OF artist_id ON library_albums
  WHEN OLD.artist_id IS NOT NEW.artist_id BEGIN
  INSERT OR IGNORE INTO library_dirty (kind, entity_id) VALUES (1, OLD.artist_id);
END;
