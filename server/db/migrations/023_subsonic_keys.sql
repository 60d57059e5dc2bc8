-- Subsonic ids resolve through a key column on each library table, derived from identity_key by the
-- SQL function subsonic_key (registered on every connection in connection.ts) and set by triggers,
-- so rows written by any connection (scan worker, Lidarr index) resolve at once. Replaces 020's
-- id registry, which a reused rowid could leave stale until a rebuild.
ALTER TABLE library_artists ADD COLUMN subsonic_key TEXT;
ALTER TABLE library_albums ADD COLUMN subsonic_key TEXT;
ALTER TABLE library_tracks ADD COLUMN subsonic_key TEXT;

UPDATE library_artists SET subsonic_key = subsonic_key(identity_key);
UPDATE library_albums SET subsonic_key = subsonic_key(identity_key);
UPDATE library_tracks SET subsonic_key = subsonic_key(identity_key);

CREATE UNIQUE INDEX subsonic_artists_key ON library_artists(subsonic_key);
CREATE UNIQUE INDEX subsonic_albums_key ON library_albums(subsonic_key);
CREATE UNIQUE INDEX subsonic_tracks_key ON library_tracks(subsonic_key);

CREATE TRIGGER subsonic_artists_key_insert AFTER INSERT ON library_artists BEGIN
  UPDATE library_artists SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_artists_key_update AFTER UPDATE OF identity_key ON library_artists BEGIN
  UPDATE library_artists SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_albums_key_insert AFTER INSERT ON library_albums BEGIN
  UPDATE library_albums SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_albums_key_update AFTER UPDATE OF identity_key ON library_albums BEGIN
  UPDATE library_albums SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_tracks_key_insert AFTER INSERT ON library_tracks BEGIN
  UPDATE library_tracks SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;
CREATE TRIGGER subsonic_tracks_key_update AFTER UPDATE OF identity_key ON library_tracks BEGIN
  UPDATE library_tracks SET subsonic_key = subsonic_key(NEW.identity_key) WHERE id = NEW.id;
END;

DROP TABLE subsonic_ids;
DROP TABLE subsonic_id_watermarks;
