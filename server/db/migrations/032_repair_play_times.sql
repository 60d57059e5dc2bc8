-- Repairs play times that no date can show. Until input was range-checked, a Subsonic scrobble
-- (or POST /api/play-events) could store a `time` such as 99999999999999999, and every answer that
-- reports when a song was played then failed for that user (search3, getAlbum, getSong, ...) and
-- GET /api/play-events failed for everyone. The valid range is the one the code now enforces
-- (server/domain/timestamps.ts): whole milliseconds from 1970 to 9999-12-31T23:59:59.999Z.
--
-- Clamped, not dropped: the play itself did happen (the client did scrobble the song), only its
-- time is garbage, so the event keeps counting. It takes created_at, the server's clock when the
-- scrobble arrived, which is the closest truthful time we have.
UPDATE play_events
SET played_at = created_at
WHERE typeof(played_at) <> 'integer' OR played_at < 0 OR played_at > 253402300799999;

-- The per-song and per-album "last played" kept the garbage through MAX(): take the latest
-- (repaired) play event of that user for that song or album instead, or the repair time when no
-- event is left. Play counts stay as they are.
UPDATE subsonic_play_stats
SET last_played_at = COALESCE(
  CASE entity_kind
    WHEN 'track' THEN (
      SELECT MAX(e.played_at) FROM play_events e
      WHERE e.user_id = subsonic_play_stats.user_id AND e.track_id = subsonic_play_stats.entity_id)
    ELSE (
      SELECT MAX(e.played_at) FROM play_events e JOIN library_tracks t ON t.id = e.track_id
      WHERE e.user_id = subsonic_play_stats.user_id AND t.album_id = subsonic_play_stats.entity_id)
  END,
  CAST(strftime('%s', 'now') AS INTEGER) * 1000)
WHERE typeof(last_played_at) <> 'integer' OR last_played_at < 0 OR last_played_at > 253402300799999;
