-- Durable background work (server/jobs): one table of jobs, the scheduled tasks and a log of runs.
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  -- the scheduled task that enqueued it, or a caller's label
  name TEXT,
  payload TEXT NOT NULL DEFAULT '{}',
  -- lower runs first
  priority INTEGER NOT NULL DEFAULT 0,
  run_at INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'dead', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  -- the process instance holding the claim, and when the claim lapses unless renewed
  claimed_by TEXT,
  claim_expires_at INTEGER,
  last_error TEXT,
  -- at most one pending or running job per (queue, dedupe_key)
  dedupe_key TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX jobs_ready ON jobs (queue, priority, run_at, id) WHERE status = 'pending';
CREATE INDEX jobs_running ON jobs (claim_expires_at) WHERE status = 'running';
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE UNIQUE INDEX jobs_dedupe ON jobs (queue, dedupe_key)
  WHERE dedupe_key IS NOT NULL AND status IN ('pending', 'running');

CREATE TABLE scheduled_tasks (
  name TEXT PRIMARY KEY,
  queue TEXT NOT NULL,
  schedule TEXT NOT NULL,
  next_run_at INTEGER,
  last_job_id INTEGER,
  last_started_at INTEGER,
  last_finished_at INTEGER,
  last_duration_ms INTEGER,
  last_status TEXT,
  last_error TEXT
);

CREATE TABLE job_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL,
  queue TEXT NOT NULL,
  name TEXT,
  attempt INTEGER NOT NULL,
  worker_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'abandoned')),
  error TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  duration_ms INTEGER
);
CREATE INDEX job_runs_job ON job_runs (job_id);
CREATE INDEX job_runs_running ON job_runs (status) WHERE status = 'running';
CREATE INDEX job_runs_started ON job_runs (started_at);
