-- Playlist status: the last hour's completed and failed downloads are range reads, not a scan of
-- every job.
CREATE INDEX IF NOT EXISTS download_jobs_completed ON download_jobs (status, completed_at);
CREATE INDEX IF NOT EXISTS download_jobs_updated ON download_jobs (status, updated_at);
