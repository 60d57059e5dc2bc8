-- Playlist status and flow playlists: a flow's downloaded files are found in the library by path
-- (per done job, on every status computation and every /rest read of a flow), and the per-flow and
-- per-playlist job counts group by status without visiting the rows.
CREATE INDEX IF NOT EXISTS library_media_files_path ON library_media_files (path);
CREATE INDEX IF NOT EXISTS download_jobs_playlist_status ON download_jobs (playlist_type, playlist_id, status);
