-- Replaces 020's (available, id) indexes: the planner took them for any `available = 1` filter and
-- then sorted, slowing ordered pages. Partial indexes on id serve only the id-order walks of /rest
-- (search3 "" paging, random seeks) and leave other plans alone.
DROP INDEX IF EXISTS subsonic_artists_available;
DROP INDEX IF EXISTS subsonic_albums_available;
DROP INDEX IF EXISTS subsonic_tracks_available;
CREATE INDEX subsonic_artists_listed ON library_artists(id) WHERE available = 1 AND album_count > 0;
CREATE INDEX subsonic_albums_listed ON library_albums(id) WHERE available = 1;
CREATE INDEX subsonic_tracks_listed ON library_tracks(id) WHERE available = 1;
