-- The library writer fills subsonic_key in its INSERTs (subsonic_key(identity_key), the same function);
-- the insert triggers of migration 023 now fill it only for rows inserted without one. Before, every
-- new artist, album and track was written twice: the row, then the trigger's UPDATE of its key (and
-- the unique key index twice). Issue 25's scan profile.
DROP TRIGGER subsonic_artists_key_insert;
DROP TRIGGER subsonic_albums_key_insert;
DROP TRIGGER subsonic_tracks_key_insert;
CREATE TRIGGER subsonic_artists_key_insert AFTER INSERT ON library_artists WHEN NEW.subsonic_key IS NULL BEGIN
  UPDATE library_artists SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_albums_key_insert AFTER INSERT ON library_albums WHEN NEW.subsonic_key IS NULL BEGIN
  UPDATE library_albums SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_tracks_key_insert AFTER INSERT ON library_tracks WHEN NEW.subsonic_key IS NULL BEGIN
  UPDATE library_tracks SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
