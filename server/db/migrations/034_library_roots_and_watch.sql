-- Lidarr files are served only from inside Lidarr's root folders (as this computer sees them, after
-- the path mappings); the indexer records each artist's. Clearing the fingerprints makes the next
-- index run (at start-up) fill it for every artist.
ALTER TABLE lidarr_artist_index ADD COLUMN root_folder TEXT;
UPDATE lidarr_artist_index SET fingerprint = NULL;

-- The folder watcher's settle time went from 120 s to 10 s. The settings document stores every
-- value with its defaults filled in, so 120000 is what every install that never chose a value has:
-- it moves to the new default. Other values were a user's choice and stay (clamped to the new 1 h cap).
UPDATE settings SET value = json_set(value, '$.library.watchDebounceMs', 10000)
  WHERE key = 'settings' AND json_extract(value, '$.library.watchDebounceMs') = 120000;
UPDATE settings SET value = json_set(value, '$.library.watchDebounceMs', 3600000)
  WHERE key = 'settings' AND json_extract(value, '$.library.watchDebounceMs') > 3600000;
