-- Quality upgrades look up the upgrade jobs of a track before queueing another one; upgrade jobs
-- are a small part of all jobs, so a partial index keeps that lookup off the whole table.
CREATE INDEX download_jobs_upgrades ON download_jobs (playlist_type, playlist_id) WHERE upgrade = 1;
