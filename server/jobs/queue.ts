import crypto from 'node:crypto';
import type { JobRow, JobsRepository } from '../db/jobs.js';
import type { Logger } from '../log.js';

/** What a handler gets: the decoded payload, its attempt, and a signal raised at shutdown. */
export interface Job<P = unknown> {
  id: number;
  queue: string;
  name: string | null;
  payload: P;
  attempt: number;
  maxAttempts: number;
  signal: AbortSignal;
}

export interface QueueOptions<P> {
  /** Jobs of this queue running at once in this process. */
  concurrency?: number;
  /** A claim lapses this long after its last renewal; a process that died loses its jobs after it. */
  visibilityTimeoutMs?: number;
  maxAttempts?: number;
  /** Exponential backoff between attempts: base × 2^(attempt-1), capped, with ±20 % jitter. */
  backoff?: { baseMs: number; maxMs: number };
  handler: (job: Job<P>) => unknown;
}

export interface EnqueueOptions {
  name?: string;
  /** Lower runs first (default 0). */
  priority?: number;
  runAt?: number;
  delayMs?: number;
  maxAttempts?: number;
  /** While a job with this key is pending or running in the queue, enqueue returns that job. */
  dedupeKey?: string;
}

/**
 * Thrown by a handler: the job is dead at once, however many attempts remain. Its `cause`, when it
 * has one, is what whenDone() rejects with (the error the caller would have seen running the work itself).
 */
export class PermanentJobError extends Error {}
/** Thrown by a handler: retry after this delay instead of the backoff (e.g. an upstream's Retry-After). */
export class RetryJobError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

interface RegisteredQueue {
  name: string;
  options: Required<Omit<QueueOptions<unknown>, 'handler'>> & Pick<QueueOptions<unknown>, 'handler'>;
  active: Map<number, { job: JobRow; abort: AbortController; done: Promise<void> }>;
  timer: NodeJS.Timeout | null;
  pumping: boolean;
}

const DEFAULTS = { concurrency: 1, visibilityTimeoutMs: 10 * 60_000, maxAttempts: 5, backoff: { baseMs: 30_000, maxMs: 3600_000 } };
const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

export interface JobQueueDeps {
  repo: JobsRepository;
  clock: { now(): number };
  log: Logger;
  /** Longest idle sleep of a queue loop; due jobs enqueued by another connection are seen within it. */
  pollMs?: number;
}

/**
 * Durable background work on SQLite: named queues with a concurrency each, claims that lapse when
 * their process dies, exponential backoff and a dead state with the last error.
 */
export class JobQueue {
  /** This process's claim identity: jobs claimed under another identity belong to a process that died. */
  readonly instanceId = crypto.randomBytes(8).toString('hex');
  private readonly queues = new Map<string, RegisteredQueue>();
  private running = false;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly pollMs: number;
  /** Callers of whenDone(), per job id. */
  private readonly waiters = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }[]>();

  constructor(private readonly deps: JobQueueDeps) {
    this.pollMs = deps.pollMs ?? 1000;
  }

  register<P>(name: string, options: QueueOptions<P>): void {
    if (this.queues.has(name)) throw new Error(`queue ${name} is already registered`);
    this.queues.set(name, {
      name,
      options: { ...DEFAULTS, ...options } as RegisteredQueue['options'],
      active: new Map(),
      timer: null,
      pumping: false,
    });
    if (this.running) this.wake(name);
  }

  enqueue<P>(queue: string, payload: P, options: EnqueueOptions = {}): { id: number; created: boolean } {
    const now = this.deps.clock.now();
    const registered = this.queues.get(queue);
    const result = this.deps.repo.enqueue(
      {
        queue,
        name: options.name ?? null,
        payload: JSON.stringify(payload ?? null),
        priority: options.priority ?? 0,
        runAt: options.runAt ?? now + (options.delayMs ?? 0),
        maxAttempts: options.maxAttempts ?? registered?.options.maxAttempts ?? DEFAULTS.maxAttempts,
        dedupeKey: options.dedupeKey ?? null,
      },
      now,
    );
    if (result.created) this.wake(queue);
    return result;
  }

  /** Runs `fn` in one transaction with the queue's writes (a savepoint inside another transaction). */
  transaction<T>(fn: () => T): T {
    return this.deps.repo.atomically(fn);
  }

  /**
   * Writes a domain row and the job that carries it out in one transaction: `write` makes the row,
   * `job` says which job it needs (null: none, e.g. the request merged into a row already queued).
   * A crash leaves both or neither, so no row waits for a job that was never written.
   */
  enqueueWith<T>(write: () => T, job: (row: T) => { queue: string; payload: unknown; options?: EnqueueOptions } | null): T {
    return this.transaction(() => {
      const row = write();
      const wanted = job(row);
      if (wanted) this.enqueue(wanted.queue, wanted.payload, wanted.options);
      return row;
    });
  }

  /**
   * Resolves with what the handler returned once job `id` is done in this process; rejects when it
   * ends dead or cancelled, or is released at shutdown. An attempt that will be retried keeps waiting.
   */
  whenDone<T = unknown>(id: number): Promise<T> {
    const row = this.deps.repo.byId(id);
    if (!row) return Promise.reject(new Error(`no job ${id}`));
    if (row.status === 'dead' || row.status === 'cancelled') return Promise.reject(new Error(row.last_error ?? `job ${id} ${row.status}`));
    return new Promise<T>((resolve, reject) => {
      const list = this.waiters.get(id) ?? [];
      list.push({ resolve: resolve as (value: unknown) => void, reject });
      this.waiters.set(id, list);
    });
  }

  private notify(id: number, outcome: { value: unknown } | { error: unknown }): void {
    const list = this.waiters.get(id);
    if (!list) return;
    this.waiters.delete(id);
    for (const w of list) {
      if ('value' in outcome) w.resolve(outcome.value);
      else w.reject(outcome.error);
    }
  }

  /** Cancels a job that has not started; a running job is left to finish. */
  cancel(id: number): boolean {
    const cancelled = this.deps.repo.cancel(id, this.deps.clock.now());
    if (cancelled) this.notify(id, { error: new Error(`job ${id} cancelled`) });
    return cancelled;
  }

  /** Whether the queues' loops run (start() was called and the queue is not stopped). */
  get started(): boolean {
    return this.running;
  }

  /** Recovers work a dead process left claimed, then starts every queue's loop. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.recoverLapsed();
    this.sweeper = setInterval(() => {
      try {
        this.recoverLapsed();
      } catch (err) {
        // The database busy past its timeout (a long write elsewhere): the next sweep tries again.
        this.deps.log.warn('job queue sweep failed', { err });
      }
    }, Math.max(1000, this.pollMs * 5));
    this.sweeper.unref();
    for (const name of this.queues.keys()) this.wake(name);
  }

  /** Runs the queue's loop soon (coalesced); called on enqueue and when a job ends. */
  wake(name: string): void {
    const q = this.queues.get(name);
    if (!q || !this.running) return;
    if (q.timer) clearTimeout(q.timer);
    q.timer = setTimeout(() => this.pump(q), 0);
    q.timer.unref();
  }

  /**
   * Stops claiming, raises every running job's signal and waits up to `graceMs` for them; jobs still
   * running then are released (their attempt does not count) and run again at the next start.
   */
  async stop(graceMs = 3000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.sweeper) clearInterval(this.sweeper);
    const inFlight: Promise<void>[] = [];
    for (const q of this.queues.values()) {
      if (q.timer) clearTimeout(q.timer);
      q.timer = null;
      for (const entry of q.active.values()) {
        entry.abort.abort();
        inFlight.push(entry.done);
      }
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(inFlight), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    const now = this.deps.clock.now();
    for (const q of this.queues.values()) for (const { job } of q.active.values()) this.deps.repo.release(job, this.instanceId, now);
    for (const id of [...this.waiters.keys()]) this.notify(id, { error: new Error('the server is stopping') });
  }

  /** Jobs running in this process, per queue. */
  activeCounts(): Record<string, number> {
    return Object.fromEntries([...this.queues.values()].map((q) => [q.name, q.active.size]));
  }

  /**
   * Gives back jobs whose claim lapsed (their process died or hung) and that this process is not
   * running; returns how many. Also closes run records left open by such jobs.
   */
  recoverLapsed(): number {
    const now = this.deps.clock.now();
    let recovered = 0;
    for (const job of this.deps.repo.lapsed(this.instanceId, now)) {
      if (this.queues.get(job.queue)?.active.has(job.id)) continue;
      const status = this.deps.repo.reclaim(job, now, `claim lapsed (${job.claimed_by === this.instanceId ? 'expired' : 'process ended'})`);
      if (!status) continue;
      recovered++;
      this.deps.log.warn('job recovered after a lapsed claim', { jobId: job.id, queue: job.queue, status });
      if (status === 'pending') this.wake(job.queue);
    }
    return recovered + this.deps.repo.clearStaleRuns(now);
  }

  private pump(q: RegisteredQueue): void {
    q.timer = null;
    if (!this.running || q.pumping) return;
    q.pumping = true;
    // When nothing was claimed, the first read already says when the next job is due.
    let next: number | null | undefined;
    try {
      // A read first: claiming is a write, and an idle queue that wrote on every poll would wait for
      // SQLite's write lock (on the event loop) whenever a scan worker holds it, for nothing.
      const due = this.deps.repo.nextRunAt(q.name);
      next = due;
      while (due !== null && due <= this.deps.clock.now() && this.running && q.active.size < q.options.concurrency) {
        const job = this.deps.repo.claim(q.name, this.instanceId, this.deps.clock.now(), q.options.visibilityTimeoutMs);
        next = undefined;
        if (!job) break;
        this.run(q, job);
      }
    } catch (err) {
      next = undefined;
      this.deps.log.error('job queue claim failed', { queue: q.name, err });
    } finally {
      q.pumping = false;
    }
    if (this.running && q.active.size < q.options.concurrency) this.sleep(q, next);
  }

  /** Sleeps until the queue's next delayed job is due (`known`, else read), at most pollMs. */
  private sleep(q: RegisteredQueue, known?: number | null): void {
    const next = known === undefined ? this.deps.repo.nextRunAt(q.name) : known;
    const wait = next === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, next - this.deps.clock.now()));
    if (q.timer) clearTimeout(q.timer);
    q.timer = setTimeout(() => this.pump(q), Math.max(wait, 5));
    q.timer.unref();
  }

  private run(q: RegisteredQueue, row: JobRow): void {
    const abort = new AbortController();
    const { visibilityTimeoutMs } = q.options;
    const heartbeat = setInterval(() => {
      try {
        this.deps.repo.renew(row.id, this.instanceId, this.deps.clock.now() + visibilityTimeoutMs);
      } catch (err) {
        // Renewed a third of the timeout early: a beat lost to a busy database is made up by the next.
        this.deps.log.warn('job claim renewal failed', { jobId: row.id, err });
      }
    }, Math.max(250, Math.floor(visibilityTimeoutMs / 3)));
    heartbeat.unref();
    const done = (async () => {
      let outcome: { error: unknown } | null = null;
      let value: unknown;
      try {
        const job: Job = {
          id: row.id,
          queue: row.queue,
          name: row.name,
          payload: JSON.parse(row.payload),
          attempt: row.attempts,
          maxAttempts: row.max_attempts,
          signal: abort.signal,
        };
        value = await q.options.handler(job);
      } catch (error) {
        outcome = { error };
      } finally {
        clearInterval(heartbeat);
      }
      // A job that gave up because of shutdown is released (its attempt does not count); one that
      // finished during the grace period still settles.
      if (abort.signal.aborted && outcome) {
        try {
          this.deps.repo.release(row, this.instanceId, this.deps.clock.now());
        } catch (err) {
          this.deps.log.error('job release failed', { jobId: row.id, queue: q.name, err });
        }
        return;
      }
      this.settle(q, row, outcome, value);
    })();
    q.active.set(row.id, { job: row, abort, done });
    void done.finally(() => {
      q.active.delete(row.id);
      if (this.running) this.wake(q.name);
    });
  }

  private settle(q: RegisteredQueue, row: JobRow, outcome: { error: unknown } | null, value: unknown): void {
    const now = this.deps.clock.now();
    try {
      if (!outcome) {
        this.deps.repo.settle(row, this.instanceId, now, { status: 'done' }, null);
        this.notify(row.id, { value });
        return;
      }
      const { error } = outcome;
      const message = describe(error);
      const exhausted = row.attempts >= row.max_attempts;
      if (error instanceof PermanentJobError || exhausted) {
        this.deps.repo.settle(row, this.instanceId, now, { status: 'dead' }, message);
        this.deps.log.warn('job failed for good', { jobId: row.id, queue: q.name, attempts: row.attempts, error: message });
        this.notify(row.id, { error: error instanceof PermanentJobError && error.cause !== undefined ? error.cause : error });
        return;
      }
      const delay = error instanceof RetryJobError ? error.retryAfterMs : backoffDelay(q.options.backoff, row.attempts);
      this.deps.repo.settle(row, this.instanceId, now, { status: 'retry', runAt: now + delay }, message);
      this.deps.log.info('job will be retried', { jobId: row.id, queue: q.name, attempt: row.attempts, delayMs: delay, error: message });
    } catch (err) {
      // The database refused the write (closing, disk full): the claim lapses and the job runs again.
      this.deps.log.error('job result not recorded', { jobId: row.id, queue: q.name, err });
    }
  }
}

export function backoffDelay(backoff: { baseMs: number; maxMs: number }, attempt: number): number {
  const raw = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(raw * (0.8 + Math.random() * 0.4));
}
