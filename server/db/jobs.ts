import { inTransaction, type Db } from './connection.js';

export type JobStatus = 'pending' | 'running' | 'done' | 'dead' | 'cancelled';

export interface JobRow {
  id: number;
  queue: string;
  name: string | null;
  payload: string;
  priority: number;
  run_at: number;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  claimed_by: string | null;
  claim_expires_at: number | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface NewJob {
  queue: string;
  name: string | null;
  payload: string;
  priority: number;
  runAt: number;
  maxAttempts: number;
  dedupeKey: string | null;
}

export interface ScheduledTaskRow {
  name: string;
  queue: string;
  schedule: string;
  next_run_at: number | null;
  last_job_id: number | null;
  last_started_at: number | null;
  last_finished_at: number | null;
  last_duration_ms: number | null;
  last_status: string | null;
  last_error: string | null;
}

export interface QueueCounts {
  queue: string;
  pending: number;
  running: number;
  dead: number;
}

/** SQL of the durable job queue (server/jobs). Every multi-step change runs in one transaction. */
export function jobsRepository(db: Db) {
  const insert = db.prepare(
    `INSERT INTO jobs (queue, name, payload, priority, run_at, max_attempts, dedupe_key, created_at, updated_at)
     VALUES (@queue, @name, @payload, @priority, @runAt, @maxAttempts, @dedupeKey, @now, @now)
     ON CONFLICT (queue, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
     RETURNING id`,
  );
  const byDedupe = db.prepare(
    "SELECT id FROM jobs WHERE queue = ? AND dedupe_key = ? AND status IN ('pending', 'running')",
  );
  const byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  const claim = db.prepare(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, claimed_by = @worker,
       claim_expires_at = @expires, updated_at = @now
     WHERE id = (SELECT id FROM jobs WHERE queue = @queue AND status = 'pending' AND run_at <= @now
                 ORDER BY priority, run_at, id LIMIT 1)
     RETURNING *`,
  );
  const startRun = db.prepare(
    `INSERT INTO job_runs (job_id, queue, name, attempt, worker_id, status, started_at)
     VALUES (@id, @queue, @name, @attempts, @worker, 'running', @now)`,
  );
  const markTaskStarted = db.prepare(
    `UPDATE scheduled_tasks SET last_job_id = @id, last_started_at = @now, last_status = 'running' WHERE name = @name`,
  );
  const endRun = db.prepare(
    `UPDATE job_runs SET status = @status, error = @error, ended_at = @now, duration_ms = @now - started_at
     WHERE job_id = @id AND attempt = @attempt AND status = 'running'`,
  );
  const markTaskEnded = db.prepare(
    `UPDATE scheduled_tasks SET last_finished_at = @now, last_duration_ms = @now - last_started_at,
       last_status = @status, last_error = @error
     WHERE name = @name AND last_job_id = @id`,
  );
  const finish = db.prepare(
    `UPDATE jobs SET status = @status, claimed_by = NULL, claim_expires_at = NULL, last_error = @error,
       updated_at = @now, finished_at = @now
     WHERE id = @id AND claimed_by = @worker AND status = 'running'`,
  );
  const retry = db.prepare(
    `UPDATE jobs SET status = 'pending', claimed_by = NULL, claim_expires_at = NULL, last_error = @error,
       run_at = @runAt, updated_at = @now
     WHERE id = @id AND claimed_by = @worker AND status = 'running'`,
  );
  const release = db.prepare(
    `UPDATE jobs SET status = 'pending', claimed_by = NULL, claim_expires_at = NULL, attempts = attempts - 1, updated_at = @now
     WHERE id = @id AND claimed_by = @worker AND status = 'running'`,
  );
  const renew = db.prepare(
    `UPDATE jobs SET claim_expires_at = @expires WHERE id = @id AND claimed_by = @worker AND status = 'running'`,
  );
  const lapsed = db.prepare(
    `SELECT * FROM jobs WHERE status = 'running' AND (claim_expires_at < @now OR claimed_by <> @worker)`,
  );
  const reclaim = db.prepare(
    `UPDATE jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
       claimed_by = NULL, claim_expires_at = NULL, last_error = @error, run_at = @now, updated_at = @now,
       finished_at = CASE WHEN attempts >= max_attempts THEN @now END
     WHERE id = @id AND status = 'running' AND claimed_by IS @claimedBy
     RETURNING status`,
  );
  const nextRunAt = db.prepare(`SELECT MIN(run_at) AS t FROM jobs WHERE queue = ? AND status = 'pending'`);
  const cancel = db.prepare(
    `UPDATE jobs SET status = 'cancelled', updated_at = @now, finished_at = @now WHERE id = @id AND status = 'pending'`,
  );
  const pruneJobs = db.prepare(`DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ? AND status IN ('done', 'cancelled')`);
  const pruneRuns = db.prepare(`DELETE FROM job_runs WHERE started_at < ? AND status <> 'running'`);
  const counts = db.prepare(
    `SELECT queue,
            SUM(status = 'pending') AS pending, SUM(status = 'running') AS running, SUM(status = 'dead') AS dead
     FROM jobs WHERE status IN ('pending', 'running', 'dead') GROUP BY queue ORDER BY queue`,
  );
  const taskByName = db.prepare('SELECT * FROM scheduled_tasks WHERE name = ?');
  const upsertTask = db.prepare(
    `INSERT INTO scheduled_tasks (name, queue, schedule, next_run_at) VALUES (@name, @queue, @schedule, @nextRunAt)
     ON CONFLICT (name) DO UPDATE SET queue = excluded.queue, schedule = excluded.schedule,
       next_run_at = CASE WHEN scheduled_tasks.schedule = excluded.schedule THEN scheduled_tasks.next_run_at ELSE excluded.next_run_at END`,
  );
  const setNextRun = db.prepare('UPDATE scheduled_tasks SET next_run_at = ? WHERE name = ?');
  const allTasks = db.prepare('SELECT * FROM scheduled_tasks ORDER BY name');
  const staleRuns = db.prepare(
    `UPDATE job_runs SET status = 'abandoned', error = 'abandoned: the job is no longer running', ended_at = @now
     WHERE status = 'running' AND NOT EXISTS (
       SELECT 1 FROM jobs j WHERE j.id = job_runs.job_id AND j.status = 'running' AND j.attempts = job_runs.attempt)`,
  );
  const staleTasks = db.prepare(
    `UPDATE scheduled_tasks SET last_status = 'abandoned', last_finished_at = @now
     WHERE last_status = 'running' AND NOT EXISTS (
       SELECT 1 FROM jobs j WHERE j.id = scheduled_tasks.last_job_id AND j.status IN ('pending', 'running'))`,
  );

  return {
    /** Runs `fn` in one transaction (a savepoint inside another): a domain row and its job, both or neither. */
    atomically: <T>(fn: () => T): T => inTransaction(db, fn),
    /** Inserts a job; with a dedupe key already pending or running, returns that job's id instead. */
    enqueue(job: NewJob, now: number): { id: number; created: boolean } {
      const row = insert.get({ ...job, now }) as { id: number } | undefined;
      if (row) return { id: row.id, created: true };
      const existing = byDedupe.get(job.queue, job.dedupeKey) as { id: number };
      return { id: existing.id, created: false };
    },
    byId: (id: number) => byId.get(id) as JobRow | undefined,
    /** Claims the next due job of a queue and opens its run record, in one transaction. */
    claim: db.transaction((queue: string, worker: string, now: number, visibilityMs: number): JobRow | undefined => {
      const job = claim.get({ queue, worker, now, expires: now + visibilityMs }) as JobRow | undefined;
      if (!job) return undefined;
      startRun.run({ id: job.id, queue, name: job.name, attempts: job.attempts, worker, now });
      if (job.name) markTaskStarted.run({ id: job.id, name: job.name, now });
      return job;
    }),
    /** Ends an attempt: done, dead (no attempts left or a permanent error), or back to pending at `retryAt`. */
    settle: db.transaction(
      (job: JobRow, worker: string, now: number, outcome: { status: 'done' | 'dead' | 'cancelled' } | { status: 'retry'; runAt: number }, error: string | null) => {
        const changed =
          outcome.status === 'retry'
            ? retry.run({ id: job.id, worker, now, error, runAt: outcome.runAt }).changes
            : finish.run({ id: job.id, worker, now, status: outcome.status, error }).changes;
        if (changed === 0) return false;
        const runStatus = outcome.status === 'done' ? 'succeeded' : outcome.status === 'cancelled' ? 'abandoned' : 'failed';
        endRun.run({ id: job.id, attempt: job.attempts, status: runStatus, error, now });
        if (job.name) markTaskEnded.run({ id: job.id, name: job.name, now, status: runStatus, error });
        return true;
      },
    ),
    /** Gives a claimed job back untouched (shutdown): the attempt does not count. */
    release: db.transaction((job: JobRow, worker: string, now: number) => {
      if (release.run({ id: job.id, worker, now }).changes === 0) return;
      endRun.run({ id: job.id, attempt: job.attempts, status: 'abandoned', error: 'released at shutdown', now });
      if (job.name) markTaskEnded.run({ id: job.id, name: job.name, now, status: 'abandoned', error: 'released at shutdown' });
    }),
    /** A lapsed claim goes back to pending (or dead when its attempts are used up); its run is abandoned. */
    reclaim: db.transaction((job: JobRow, now: number, error: string): JobStatus | null => {
      const row = reclaim.get({ id: job.id, claimedBy: job.claimed_by, now, error }) as { status: JobStatus } | undefined;
      if (!row) return null;
      endRun.run({ id: job.id, attempt: job.attempts, status: 'abandoned', error, now });
      if (job.name) markTaskEnded.run({ id: job.id, name: job.name, now, status: 'abandoned', error });
      return row.status;
    }),
    renew: (id: number, worker: string, expires: number) => renew.run({ id, worker, expires }).changes > 0,
    /** Running jobs whose claim lapsed, or that another (dead) process instance claimed. */
    lapsed: (worker: string, now: number) => lapsed.all({ worker, now }) as JobRow[],
    nextRunAt: (queue: string) => (nextRunAt.get(queue) as { t: number | null }).t,
    cancel: (id: number, now: number) => cancel.run({ id, now }).changes > 0,
    prune: db.transaction((before: number) => pruneJobs.run(before).changes + pruneRuns.run(before).changes),
    counts: () => counts.all() as QueueCounts[],
    task: (name: string) => taskByName.get(name) as ScheduledTaskRow | undefined,
    upsertTask: (t: { name: string; queue: string; schedule: string; nextRunAt: number | null }) => void upsertTask.run(t),
    setNextRun: (name: string, at: number) => void setNextRun.run(at, name),
    tasks: () => allTasks.all() as ScheduledTaskRow[],
    /** Run records and task states left "running" by work that no longer runs. */
    clearStaleRuns: db.transaction((now: number) => staleRuns.run({ now }).changes + staleTasks.run({ now }).changes),
  };
}
export type JobsRepository = ReturnType<typeof jobsRepository>;

/** Pending jobs of a queue that wait for a later time become due now; returns how many. */
export function makePendingJobsDue(db: Db, queue: string, now: number): number {
  return db.prepare(`UPDATE jobs SET run_at = ? WHERE queue = ? AND status = 'pending' AND run_at > ?`).run(now, queue, now).changes;
}
