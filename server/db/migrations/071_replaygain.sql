-- ReplayGain 2 values of each media file (decisions §12): gains in dB against −18 LUFS, peaks linear.
-- rg_source: 'tags' (read from the file), 'analysis' (measured by the ReplayGain task), NULL (not known
-- yet: the task measures it). rg_album_source likewise for the album pair ('analysis': computed over
-- the album's tracks). rg_error: why the file could not be measured (it is not tried again until it changes).
ALTER TABLE library_media_files ADD COLUMN rg_track_gain REAL;
ALTER TABLE library_media_files ADD COLUMN rg_track_peak REAL;
ALTER TABLE library_media_files ADD COLUMN rg_album_gain REAL;
ALTER TABLE library_media_files ADD COLUMN rg_album_peak REAL;
ALTER TABLE library_media_files ADD COLUMN rg_source TEXT;
ALTER TABLE library_media_files ADD COLUMN rg_album_source TEXT;
ALTER TABLE library_media_files ADD COLUMN rg_error TEXT;
-- What the analysis task still has to measure: an index of exactly those rows.
CREATE INDEX library_media_files_rg_pending ON library_media_files(id)
  WHERE rg_source IS NULL AND rg_error IS NULL AND available = 1 AND source = 'aurral';
-- Measured values not yet written into the file's tags (only when "write ReplayGain tags" is on).
CREATE INDEX library_media_files_rg_measured ON library_media_files(id) WHERE rg_source = 'analysis';
-- Albums whose album gain is still to be computed from their tracks' gains.
CREATE INDEX library_media_files_rg_album_pending ON library_media_files(album_id)
  WHERE rg_album_source IS NULL AND rg_track_gain IS NOT NULL AND available = 1;
