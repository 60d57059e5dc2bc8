-- Jellyfin as a playback destination (issue 27 §4). Each Tonearm user may have a Jellyfin user of
-- their own: their playlists become that user's Jellyfin playlists (named without the owner
-- prefix); everyone else's go to the Jellyfin user chosen in playback.jellyfin.userId.
CREATE TABLE jellyfin_users (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  jellyfin_user_id TEXT NOT NULL,
  -- the name Jellyfin gave when it was chosen, for display while Jellyfin is unreachable
  jellyfin_user_name TEXT,
  updated_at INTEGER NOT NULL
);

-- Destinations that tell a track's MusicBrainz recording id (Jellyfin's provider ids, OpenSubsonic's
-- musicBrainzId) match by it after the path and before artist, album and title: a new method.
CREATE TABLE playback_track_matches_new (
  destination TEXT NOT NULL,
  account TEXT NOT NULL,
  track_id INTEGER NOT NULL REFERENCES library_tracks(id) ON DELETE CASCADE,
  remote_id TEXT NOT NULL,
  method TEXT NOT NULL CHECK (method IN ('path', 'mbid', 'tags')),
  matched_at INTEGER NOT NULL,
  PRIMARY KEY (destination, account, track_id)
);
INSERT INTO playback_track_matches_new (destination, account, track_id, remote_id, method, matched_at)
  SELECT destination, account, track_id, remote_id, method, matched_at FROM playback_track_matches;
DROP TABLE playback_track_matches;
ALTER TABLE playback_track_matches_new RENAME TO playback_track_matches;
