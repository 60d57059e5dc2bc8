-- Whole-library counts (library_stats) and per-genre statistics (library_genre_stats) kept exact by
-- triggers, so a scan that touches one file never recounts a million rows to update the totals.
-- Keys are `<kind>:<all|aurral|lidarr>:<0 = every row | 1 = available rows>` and genres:all:0|1.

DELETE FROM library_stats;
INSERT INTO library_stats (key, value)
  SELECT 'artists:all:0', COALESCE(SUM(1), 0) FROM library_artists e
UNION ALL
  SELECT 'artists:all:1', COALESCE(SUM(e.available), 0) FROM library_artists e
UNION ALL
  SELECT 'artists:aurral:0', COALESCE(SUM(((e.sources & 1) != 0)), 0) FROM library_artists e
UNION ALL
  SELECT 'artists:aurral:1', COALESCE(SUM(((e.sources & 1) != 0 AND e.available)), 0) FROM library_artists e
UNION ALL
  SELECT 'artists:lidarr:0', COALESCE(SUM(((e.sources & 2) != 0)), 0) FROM library_artists e
UNION ALL
  SELECT 'artists:lidarr:1', COALESCE(SUM(((e.sources & 2) != 0 AND e.available)), 0) FROM library_artists e
UNION ALL
  SELECT 'albums:all:0', COALESCE(SUM(1), 0) FROM library_albums e
UNION ALL
  SELECT 'albums:all:1', COALESCE(SUM(e.available), 0) FROM library_albums e
UNION ALL
  SELECT 'albums:aurral:0', COALESCE(SUM(((e.sources & 1) != 0)), 0) FROM library_albums e
UNION ALL
  SELECT 'albums:aurral:1', COALESCE(SUM(((e.sources & 1) != 0 AND e.available)), 0) FROM library_albums e
UNION ALL
  SELECT 'albums:lidarr:0', COALESCE(SUM(((e.sources & 2) != 0)), 0) FROM library_albums e
UNION ALL
  SELECT 'albums:lidarr:1', COALESCE(SUM(((e.sources & 2) != 0 AND e.available)), 0) FROM library_albums e
UNION ALL
  SELECT 'tracks:all:0', COALESCE(SUM(1), 0) FROM library_tracks e
UNION ALL
  SELECT 'tracks:all:1', COALESCE(SUM(e.available), 0) FROM library_tracks e
UNION ALL
  SELECT 'tracks:aurral:0', COALESCE(SUM(((e.sources & 1) != 0)), 0) FROM library_tracks e
UNION ALL
  SELECT 'tracks:aurral:1', COALESCE(SUM(((e.sources & 1) != 0 AND e.available)), 0) FROM library_tracks e
UNION ALL
  SELECT 'tracks:lidarr:0', COALESCE(SUM(((e.sources & 2) != 0)), 0) FROM library_tracks e
UNION ALL
  SELECT 'tracks:lidarr:1', COALESCE(SUM(((e.sources & 2) != 0 AND e.available)), 0) FROM library_tracks e;

DELETE FROM library_genre_stats;
INSERT INTO library_genre_stats (genre_id, artist_count, album_count, track_count, available_artist_count,
  available_album_count, available_track_count)
SELECT genre_id, SUM(kind = 1), SUM(kind = 2), SUM(kind = 3), SUM(kind = 1 AND available), SUM(kind = 2 AND available),
  SUM(kind = 3 AND available)
FROM library_genre_links GROUP BY genre_id;
INSERT INTO library_stats (key, value) SELECT 'genres:all:0', COUNT(*) FROM library_genre_stats;
INSERT INTO library_stats (key, value) SELECT 'genres:all:1', COUNT(*) FROM library_genre_stats WHERE available_track_count > 0;

CREATE TRIGGER library_artists_count_insert AFTER INSERT ON library_artists BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'artists:all:0' THEN 1
    WHEN 'artists:all:1' THEN NEW.available
    WHEN 'artists:aurral:0' THEN ((NEW.sources & 1) != 0)
    WHEN 'artists:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available)
    WHEN 'artists:lidarr:0' THEN ((NEW.sources & 2) != 0)
    WHEN 'artists:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available)
  END
  WHERE key IN ('artists:all:0', 'artists:all:1', 'artists:aurral:0', 'artists:aurral:1', 'artists:lidarr:0', 'artists:lidarr:1');
END;
CREATE TRIGGER library_artists_count_delete AFTER DELETE ON library_artists BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'artists:all:0' THEN -1
    WHEN 'artists:all:1' THEN -OLD.available
    WHEN 'artists:aurral:0' THEN -((OLD.sources & 1) != 0)
    WHEN 'artists:aurral:1' THEN -((OLD.sources & 1) != 0 AND OLD.available)
    WHEN 'artists:lidarr:0' THEN -((OLD.sources & 2) != 0)
    WHEN 'artists:lidarr:1' THEN -((OLD.sources & 2) != 0 AND OLD.available)
  END
  WHERE key IN ('artists:all:0', 'artists:all:1', 'artists:aurral:0', 'artists:aurral:1', 'artists:lidarr:0', 'artists:lidarr:1');
END;
CREATE TRIGGER library_artists_count_update AFTER UPDATE OF available, sources ON library_artists
  WHEN OLD.available != NEW.available OR OLD.sources != NEW.sources BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'artists:all:1' THEN NEW.available - OLD.available
    WHEN 'artists:aurral:0' THEN ((NEW.sources & 1) != 0) - ((OLD.sources & 1) != 0)
    WHEN 'artists:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available) - ((OLD.sources & 1) != 0 AND OLD.available)
    WHEN 'artists:lidarr:0' THEN ((NEW.sources & 2) != 0) - ((OLD.sources & 2) != 0)
    WHEN 'artists:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available) - ((OLD.sources & 2) != 0 AND OLD.available)
  END
  WHERE key IN ('artists:all:1', 'artists:aurral:0', 'artists:aurral:1', 'artists:lidarr:0', 'artists:lidarr:1');
END;
CREATE TRIGGER library_albums_count_insert AFTER INSERT ON library_albums BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'albums:all:0' THEN 1
    WHEN 'albums:all:1' THEN NEW.available
    WHEN 'albums:aurral:0' THEN ((NEW.sources & 1) != 0)
    WHEN 'albums:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available)
    WHEN 'albums:lidarr:0' THEN ((NEW.sources & 2) != 0)
    WHEN 'albums:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available)
  END
  WHERE key IN ('albums:all:0', 'albums:all:1', 'albums:aurral:0', 'albums:aurral:1', 'albums:lidarr:0', 'albums:lidarr:1');
END;
CREATE TRIGGER library_albums_count_delete AFTER DELETE ON library_albums BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'albums:all:0' THEN -1
    WHEN 'albums:all:1' THEN -OLD.available
    WHEN 'albums:aurral:0' THEN -((OLD.sources & 1) != 0)
    WHEN 'albums:aurral:1' THEN -((OLD.sources & 1) != 0 AND OLD.available)
    WHEN 'albums:lidarr:0' THEN -((OLD.sources & 2) != 0)
    WHEN 'albums:lidarr:1' THEN -((OLD.sources & 2) != 0 AND OLD.available)
  END
  WHERE key IN ('albums:all:0', 'albums:all:1', 'albums:aurral:0', 'albums:aurral:1', 'albums:lidarr:0', 'albums:lidarr:1');
END;
CREATE TRIGGER library_albums_count_update AFTER UPDATE OF available, sources ON library_albums
  WHEN OLD.available != NEW.available OR OLD.sources != NEW.sources BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'albums:all:1' THEN NEW.available - OLD.available
    WHEN 'albums:aurral:0' THEN ((NEW.sources & 1) != 0) - ((OLD.sources & 1) != 0)
    WHEN 'albums:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available) - ((OLD.sources & 1) != 0 AND OLD.available)
    WHEN 'albums:lidarr:0' THEN ((NEW.sources & 2) != 0) - ((OLD.sources & 2) != 0)
    WHEN 'albums:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available) - ((OLD.sources & 2) != 0 AND OLD.available)
  END
  WHERE key IN ('albums:all:1', 'albums:aurral:0', 'albums:aurral:1', 'albums:lidarr:0', 'albums:lidarr:1');
END;
CREATE TRIGGER library_tracks_count_insert AFTER INSERT ON library_tracks BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'tracks:all:0' THEN 1
    WHEN 'tracks:all:1' THEN NEW.available
    WHEN 'tracks:aurral:0' THEN ((NEW.sources & 1) != 0)
    WHEN 'tracks:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available)
    WHEN 'tracks:lidarr:0' THEN ((NEW.sources & 2) != 0)
    WHEN 'tracks:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available)
  END
  WHERE key IN ('tracks:all:0', 'tracks:all:1', 'tracks:aurral:0', 'tracks:aurral:1', 'tracks:lidarr:0', 'tracks:lidarr:1');
END;
CREATE TRIGGER library_tracks_count_delete AFTER DELETE ON library_tracks BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'tracks:all:0' THEN -1
    WHEN 'tracks:all:1' THEN -OLD.available
    WHEN 'tracks:aurral:0' THEN -((OLD.sources & 1) != 0)
    WHEN 'tracks:aurral:1' THEN -((OLD.sources & 1) != 0 AND OLD.available)
    WHEN 'tracks:lidarr:0' THEN -((OLD.sources & 2) != 0)
    WHEN 'tracks:lidarr:1' THEN -((OLD.sources & 2) != 0 AND OLD.available)
  END
  WHERE key IN ('tracks:all:0', 'tracks:all:1', 'tracks:aurral:0', 'tracks:aurral:1', 'tracks:lidarr:0', 'tracks:lidarr:1');
END;
CREATE TRIGGER library_tracks_count_update AFTER UPDATE OF available, sources ON library_tracks
  WHEN OLD.available != NEW.available OR OLD.sources != NEW.sources BEGIN
  UPDATE library_stats SET value = value + CASE key
    WHEN 'tracks:all:1' THEN NEW.available - OLD.available
    WHEN 'tracks:aurral:0' THEN ((NEW.sources & 1) != 0) - ((OLD.sources & 1) != 0)
    WHEN 'tracks:aurral:1' THEN ((NEW.sources & 1) != 0 AND NEW.available) - ((OLD.sources & 1) != 0 AND OLD.available)
    WHEN 'tracks:lidarr:0' THEN ((NEW.sources & 2) != 0) - ((OLD.sources & 2) != 0)
    WHEN 'tracks:lidarr:1' THEN ((NEW.sources & 2) != 0 AND NEW.available) - ((OLD.sources & 2) != 0 AND OLD.available)
  END
  WHERE key IN ('tracks:all:1', 'tracks:aurral:0', 'tracks:aurral:1', 'tracks:lidarr:0', 'tracks:lidarr:1');
END;

CREATE TRIGGER library_genre_links_stats_insert AFTER INSERT ON library_genre_links BEGIN
  INSERT INTO library_genre_stats (genre_id, artist_count, album_count, track_count, available_artist_count,
    available_album_count, available_track_count)
  VALUES (NEW.genre_id, NEW.kind = 1, NEW.kind = 2, NEW.kind = 3, NEW.kind = 1 AND NEW.available,
    NEW.kind = 2 AND NEW.available, NEW.kind = 3 AND NEW.available)
  ON CONFLICT (genre_id) DO UPDATE SET artist_count = artist_count + excluded.artist_count,
    album_count = album_count + excluded.album_count, track_count = track_count + excluded.track_count,
    available_artist_count = available_artist_count + excluded.available_artist_count,
    available_album_count = available_album_count + excluded.available_album_count,
    available_track_count = available_track_count + excluded.available_track_count;
END;
CREATE TRIGGER library_genre_links_stats_delete AFTER DELETE ON library_genre_links BEGIN
  UPDATE library_genre_stats SET artist_count = artist_count - (OLD.kind = 1), album_count = album_count - (OLD.kind = 2),
    track_count = track_count - (OLD.kind = 3),
    available_artist_count = available_artist_count - (OLD.kind = 1 AND OLD.available),
    available_album_count = available_album_count - (OLD.kind = 2 AND OLD.available),
    available_track_count = available_track_count - (OLD.kind = 3 AND OLD.available)
  WHERE genre_id = OLD.genre_id;
  DELETE FROM library_genre_stats
  WHERE genre_id = OLD.genre_id AND artist_count = 0 AND album_count = 0 AND track_count = 0;
END;
CREATE TRIGGER library_genre_links_stats_update AFTER UPDATE OF available, kind, genre_id ON library_genre_links BEGIN
  UPDATE library_genre_stats SET artist_count = artist_count - (OLD.kind = 1), album_count = album_count - (OLD.kind = 2),
    track_count = track_count - (OLD.kind = 3),
    available_artist_count = available_artist_count - (OLD.kind = 1 AND OLD.available),
    available_album_count = available_album_count - (OLD.kind = 2 AND OLD.available),
    available_track_count = available_track_count - (OLD.kind = 3 AND OLD.available)
  WHERE genre_id = OLD.genre_id;
  INSERT INTO library_genre_stats (genre_id, artist_count, album_count, track_count, available_artist_count,
    available_album_count, available_track_count)
  VALUES (NEW.genre_id, NEW.kind = 1, NEW.kind = 2, NEW.kind = 3, NEW.kind = 1 AND NEW.available,
    NEW.kind = 2 AND NEW.available, NEW.kind = 3 AND NEW.available)
  ON CONFLICT (genre_id) DO UPDATE SET artist_count = artist_count + excluded.artist_count,
    album_count = album_count + excluded.album_count, track_count = track_count + excluded.track_count,
    available_artist_count = available_artist_count + excluded.available_artist_count,
    available_album_count = available_album_count + excluded.available_album_count,
    available_track_count = available_track_count + excluded.available_track_count;
  DELETE FROM library_genre_stats
  WHERE genre_id = OLD.genre_id AND artist_count = 0 AND album_count = 0 AND track_count = 0;
END;

CREATE TRIGGER library_genre_stats_count_insert AFTER INSERT ON library_genre_stats BEGIN
  UPDATE library_stats SET value = value + CASE key WHEN 'genres:all:0' THEN 1 ELSE NEW.available_track_count > 0 END
  WHERE key IN ('genres:all:0', 'genres:all:1');
END;
CREATE TRIGGER library_genre_stats_count_delete AFTER DELETE ON library_genre_stats BEGIN
  UPDATE library_stats SET value = value - CASE key WHEN 'genres:all:0' THEN 1 ELSE OLD.available_track_count > 0 END
  WHERE key IN ('genres:all:0', 'genres:all:1');
END;
CREATE TRIGGER library_genre_stats_count_update AFTER UPDATE OF available_track_count ON library_genre_stats
  WHEN (OLD.available_track_count > 0) != (NEW.available_track_count > 0) BEGIN
  UPDATE library_stats SET value = value + (NEW.available_track_count > 0) - (OLD.available_track_count > 0)
  WHERE key = 'genres:all:1';
END;
