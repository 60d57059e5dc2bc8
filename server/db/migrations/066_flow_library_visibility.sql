-- Flow library visibility (showInLibrary): a track a flow downloaded and filed stays out of the
-- library's lists, search, counts and /rest browsing unless the flow shows its tracks in the library
-- or something else wants the track (another job, a static or shared playlist, a file that was there
-- before). `flow_hidden` is derived (libraryDerived.ts, from the download jobs, flows and playlists):
-- 1 on a track when every file of it was filed by a flow that hides its tracks and nothing else
-- wants it; 1 on an album or artist when it has tracks and all of them are hidden. Hidden entities
-- are not counted, have no genre memberships and no search documents; list walks leave out the few
-- hidden ids through the partial indexes below, so the sort-index walks stay index-only.
ALTER TABLE library_tracks ADD COLUMN flow_hidden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library_albums ADD COLUMN flow_hidden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library_artists ADD COLUMN flow_hidden INTEGER NOT NULL DEFAULT 0;
CREATE INDEX library_tracks_flow_hidden ON library_tracks (id) WHERE flow_hidden = 1;
CREATE INDEX library_albums_flow_hidden ON library_albums (id) WHERE flow_hidden = 1;
CREATE INDEX library_artists_flow_hidden ON library_artists (id) WHERE flow_hidden = 1;

-- What the visibility rule looks up per track: the jobs that filed or reused a file, the playlists
-- that hold a track.
CREATE INDEX IF NOT EXISTS download_jobs_final_path ON download_jobs (final_path) WHERE final_path IS NOT NULL;
CREATE INDEX IF NOT EXISTS download_jobs_reused_track ON download_jobs (reused_track_id) WHERE reused_track_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS static_playlist_tracks_track ON static_playlist_tracks (track_id);
CREATE INDEX IF NOT EXISTS shared_playlist_tracks_track ON shared_playlist_tracks (track_id) WHERE track_id IS NOT NULL;

-- The whole-library counts (migration 015) leave hidden entities out.
DROP TRIGGER library_artists_count_insert;
CREATE TRIGGER library_artists_count_insert AFTER INSERT ON library_artists BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'artists:all:0' THEN (NEW.flow_hidden = 0)
    WHEN 'artists:all:1' THEN (NEW.available AND NEW.flow_hidden = 0)
    WHEN 'artists:aurral:0' THEN ((NEW.sources & 1) != 0 AND NEW.flow_hidden = 0)
    WHEN 'artists:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available AND NEW.flow_hidden = 0)
    WHEN 'artists:lidarr:0' THEN ((NEW.sources & 2) != 0 AND NEW.flow_hidden = 0)
    WHEN 'artists:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available AND NEW.flow_hidden = 0)
  END
  WHERE key IN ('artists:all:0', 'artists:all:1', 'artists:aurral:0', 'artists:aurral:1', 'artists:lidarr:0', 'artists:lidarr:1');
END;
DROP TRIGGER library_artists_count_delete;
CREATE TRIGGER library_artists_count_delete AFTER DELETE ON library_artists BEGIN
  UPDATE library_stats SET value = value - CASE key
    WHEN 'artists:all:0' THEN (OLD.flow_hidden = 0)
    WHEN 'artists:all:1' THEN (OLD.available AND OLD.flow_hidden = 0)
    WHEN 'artists:aurral:0' THEN ((OLD.sources & 1) != 0 AND OLD.flow_hidden = 0)
    WHEN 'artists:aurral:1' THEN ((OLD.sources & 1) != 0 AND OLD.available AND OLD.flow_hidden = 0)
    WHEN 'artists:lidarr:0' THEN ((OLD.sources & 2) != 0 AND OLD.flow_hidden = 0)
    WHEN 'artists:lidarr:1' THEN ((OLD.sources & 2) != 0 AND OLD.available AND OLD.flow_hidden = 0)
  END
  WHERE key IN ('artists:all:0', 'artists:all:1', 'artists:aurral:0', 'artists:aurral:1', 'artists:lidarr:0', 'artists:lidarr:1');
END;
DROP TRIGGER library_artists_count_update;
CREATE TRIGGER library_artists_count_update AFTER UPDATE OF available, sources, flow_hidden ON library_artists
  WHEN OLD.available != NEW.available OR OLD.sources != NEW.sources OR OLD.flow_hidden != NEW.flow_hidden BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'artists:all:0' THEN (NEW.flow_hidden = 0) - (OLD.flow_hidden = 0)
    WHEN 'artists:all:1' THEN (NEW.available AND NEW.flow_hidden = 0) - (OLD.available AND OLD.flow_hidden = 0)
    WHEN 'artists:aurral:0' THEN ((NEW.sources & 1) != 0 AND NEW.flow_hidden = 0) - ((OLD.sources & 1) != 0 AND OLD.flow_hidden = 0)
    WHEN 'artists:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available AND NEW.flow_hidden = 0) - ((OLD.sources & 1) != 0 AND OLD.available AND OLD.flow_hidden = 0)
    WHEN 'artists:lidarr:0' THEN ((NEW.sources & 2) != 0 AND NEW.flow_hidden = 0) - ((OLD.sources & 2) != 0 AND OLD.flow_hidden = 0)
    WHEN 'artists:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available AND NEW.flow_hidden = 0) - ((OLD.sources & 2) != 0 AND OLD.available AND OLD.flow_hidden = 0)
  END
  WHERE key IN ('artists:all:0', 'artists:all:1', 'artists:aurral:0', 'artists:aurral:1', 'artists:lidarr:0', 'artists:lidarr:1');
END;
DROP TRIGGER library_albums_count_insert;
CREATE TRIGGER library_albums_count_insert AFTER INSERT ON library_albums BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'albums:all:0' THEN (NEW.flow_hidden = 0)
    WHEN 'albums:all:1' THEN (NEW.available AND NEW.flow_hidden = 0)
    WHEN 'albums:aurral:0' THEN ((NEW.sources & 1) != 0 AND NEW.flow_hidden = 0)
    WHEN 'albums:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available AND NEW.flow_hidden = 0)
    WHEN 'albums:lidarr:0' THEN ((NEW.sources & 2) != 0 AND NEW.flow_hidden = 0)
    WHEN 'albums:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available AND NEW.flow_hidden = 0)
  END
  WHERE key IN ('albums:all:0', 'albums:all:1', 'albums:aurral:0', 'albums:aurral:1', 'albums:lidarr:0', 'albums:lidarr:1');
END;
DROP TRIGGER library_albums_count_delete;
CREATE TRIGGER library_albums_count_delete AFTER DELETE ON library_albums BEGIN
  UPDATE library_stats SET value = value - CASE key
    WHEN 'albums:all:0' THEN (OLD.flow_hidden = 0)
    WHEN 'albums:all:1' THEN (OLD.available AND OLD.flow_hidden = 0)
    WHEN 'albums:aurral:0' THEN ((OLD.sources & 1) != 0 AND OLD.flow_hidden = 0)
    WHEN 'albums:aurral:1' THEN ((OLD.sources & 1) != 0 AND OLD.available AND OLD.flow_hidden = 0)
    WHEN 'albums:lidarr:0' THEN ((OLD.sources & 2) != 0 AND OLD.flow_hidden = 0)
    WHEN 'albums:lidarr:1' THEN ((OLD.sources & 2) != 0 AND OLD.available AND OLD.flow_hidden = 0)
  END
  WHERE key IN ('albums:all:0', 'albums:all:1', 'albums:aurral:0', 'albums:aurral:1', 'albums:lidarr:0', 'albums:lidarr:1');
END;
DROP TRIGGER library_albums_count_update;
CREATE TRIGGER library_albums_count_update AFTER UPDATE OF available, sources, flow_hidden ON library_albums
  WHEN OLD.available != NEW.available OR OLD.sources != NEW.sources OR OLD.flow_hidden != NEW.flow_hidden BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'albums:all:0' THEN (NEW.flow_hidden = 0) - (OLD.flow_hidden = 0)
    WHEN 'albums:all:1' THEN (NEW.available AND NEW.flow_hidden = 0) - (OLD.available AND OLD.flow_hidden = 0)
    WHEN 'albums:aurral:0' THEN ((NEW.sources & 1) != 0 AND NEW.flow_hidden = 0) - ((OLD.sources & 1) != 0 AND OLD.flow_hidden = 0)
    WHEN 'albums:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available AND NEW.flow_hidden = 0) - ((OLD.sources & 1) != 0 AND OLD.available AND OLD.flow_hidden = 0)
    WHEN 'albums:lidarr:0' THEN ((NEW.sources & 2) != 0 AND NEW.flow_hidden = 0) - ((OLD.sources & 2) != 0 AND OLD.flow_hidden = 0)
    WHEN 'albums:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available AND NEW.flow_hidden = 0) - ((OLD.sources & 2) != 0 AND OLD.available AND OLD.flow_hidden = 0)
  END
  WHERE key IN ('albums:all:0', 'albums:all:1', 'albums:aurral:0', 'albums:aurral:1', 'albums:lidarr:0', 'albums:lidarr:1');
END;
DROP TRIGGER library_tracks_count_insert;
CREATE TRIGGER library_tracks_count_insert AFTER INSERT ON library_tracks BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'tracks:all:0' THEN (NEW.flow_hidden = 0)
    WHEN 'tracks:all:1' THEN (NEW.available AND NEW.flow_hidden = 0)
    WHEN 'tracks:aurral:0' THEN ((NEW.sources & 1) != 0 AND NEW.flow_hidden = 0)
    WHEN 'tracks:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available AND NEW.flow_hidden = 0)
    WHEN 'tracks:lidarr:0' THEN ((NEW.sources & 2) != 0 AND NEW.flow_hidden = 0)
    WHEN 'tracks:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available AND NEW.flow_hidden = 0)
  END
  WHERE key IN ('tracks:all:0', 'tracks:all:1', 'tracks:aurral:0', 'tracks:aurral:1', 'tracks:lidarr:0', 'tracks:lidarr:1');
END;
DROP TRIGGER library_tracks_count_delete;
CREATE TRIGGER library_tracks_count_delete AFTER DELETE ON library_tracks BEGIN
  UPDATE library_stats SET value = value - CASE key
    WHEN 'tracks:all:0' THEN (OLD.flow_hidden = 0)
    WHEN 'tracks:all:1' THEN (OLD.available AND OLD.flow_hidden = 0)
    WHEN 'tracks:aurral:0' THEN ((OLD.sources & 1) != 0 AND OLD.flow_hidden = 0)
    WHEN 'tracks:aurral:1' THEN ((OLD.sources & 1) != 0 AND OLD.available AND OLD.flow_hidden = 0)
    WHEN 'tracks:lidarr:0' THEN ((OLD.sources & 2) != 0 AND OLD.flow_hidden = 0)
    WHEN 'tracks:lidarr:1' THEN ((OLD.sources & 2) != 0 AND OLD.available AND OLD.flow_hidden = 0)
  END
  WHERE key IN ('tracks:all:0', 'tracks:all:1', 'tracks:aurral:0', 'tracks:aurral:1', 'tracks:lidarr:0', 'tracks:lidarr:1');
END;
DROP TRIGGER library_tracks_count_update;
CREATE TRIGGER library_tracks_count_update AFTER UPDATE OF available, sources, flow_hidden ON library_tracks
  WHEN OLD.available != NEW.available OR OLD.sources != NEW.sources OR OLD.flow_hidden != NEW.flow_hidden BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'tracks:all:0' THEN (NEW.flow_hidden = 0) - (OLD.flow_hidden = 0)
    WHEN 'tracks:all:1' THEN (NEW.available AND NEW.flow_hidden = 0) - (OLD.available AND OLD.flow_hidden = 0)
    WHEN 'tracks:aurral:0' THEN ((NEW.sources & 1) != 0 AND NEW.flow_hidden = 0) - ((OLD.sources & 1) != 0 AND OLD.flow_hidden = 0)
    WHEN 'tracks:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available AND NEW.flow_hidden = 0) - ((OLD.sources & 1) != 0 AND OLD.available AND OLD.flow_hidden = 0)
    WHEN 'tracks:lidarr:0' THEN ((NEW.sources & 2) != 0 AND NEW.flow_hidden = 0) - ((OLD.sources & 2) != 0 AND OLD.flow_hidden = 0)
    WHEN 'tracks:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available AND NEW.flow_hidden = 0) - ((OLD.sources & 2) != 0 AND OLD.available AND OLD.flow_hidden = 0)
  END
  WHERE key IN ('tracks:all:0', 'tracks:all:1', 'tracks:aurral:0', 'tracks:aurral:1', 'tracks:lidarr:0', 'tracks:lidarr:1');
END;
-- Tracks with a file a flow filed get their visibility at the next derived refresh (the next scan).
INSERT OR IGNORE INTO library_dirty (kind, entity_id)
  SELECT DISTINCT 3, m.track_id FROM download_jobs j JOIN library_media_files m ON m.path = j.final_path
  WHERE j.playlist_type = 'flow' AND j.final_path IS NOT NULL;
