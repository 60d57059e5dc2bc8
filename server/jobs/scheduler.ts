import { Cron } from 'croner';
import type { JobsRepository } from '../db/jobs.js';
import type { Logger } from '../log.js';
import { JobLinks, type JobLinkSpec } from './links.js';
import type { Job, JobQueue } from './queue.js';

/** The queue of scheduled tasks that bring their own handler. */
export const SCHEDULED_QUEUE = 'scheduled-task';

export interface TaskDefinition {
  name: string;
  /** `every` in milliseconds, or a cron expression (5 or 6 fields, the server's time zone). */
  every?: number;
  cron?: string;
  /**
   * No schedule: the task's queue gets jobs from the code that needs them (a library scan when a file
   * is filed); jobs enqueued under the task's name show on the tasks screen as its runs.
   */
  onDemand?: boolean;
  /** Runs on SCHEDULED_QUEUE; omit it and name `queue` to enqueue onto a queue with its own handler. */
  handler?: (job: Job) => unknown;
  queue?: string;
  priority?: number;
  payload?: unknown;
  /** Also due right after the very first start (otherwise the first run is one period away). */
  runOnFirstStart?: boolean;
  /** What is left for the task to do, in words, for the tasks screen (e.g. "120 files left to measure"). */
  detail?: () => string | null;
}

export interface TaskState {
  name: string;
  queue: string;
  schedule: string;
  nextRunAt: string | null;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  lastDurationMs: number | null;
  lastStatus: string | null;
  lastError: string | null;
  running: boolean;
  detail: string | null;
}

/** The one task that gives rows left without a job (JobLinks) their jobs. */
export const REPAIR_TASK = 'job-links-repair';
/**
 * How often REPAIR_TASK runs; each domain also repairs at its start and when it knows of orphans.
 * Rows written by another process (a restored or hand-edited database) wait at most this long.
 */
export const REPAIR_EVERY_MS = 10_000;

/** The schedule shown for a task that runs when asked (onDemand). */
export const ON_DEMAND = 'on demand';

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/**
 * Recurring tasks on the job queue. Each task's next fire time is stored, so a fire missed while the
 * server was down runs once at the next start (never once per missed period), and a task whose
 * previous run is still queued or running is not stacked.
 */
export class Scheduler {
  private readonly tasks = new Map<string, TaskDefinition & { schedule: string; cronJob: Cron | null }>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private readonly links: JobLinks<unknown>[] = [];

  constructor(
    private readonly queue: JobQueue,
    private readonly repo: JobsRepository,
    private readonly clock: { now(): number },
    private readonly log: Logger,
  ) {
    queue.register(SCHEDULED_QUEUE, {
      concurrency: 2,
      maxAttempts: 3,
      backoff: { baseMs: 60_000, maxMs: 3600_000 },
      handler: (job) => {
        const task = job.name ? this.tasks.get(job.name) : undefined;
        if (!task?.handler) throw new Error(`no handler for scheduled task ${job.name}`);
        return task.handler(job);
      },
    });
  }

  define(task: TaskDefinition): void {
    if (this.tasks.has(task.name)) throw new Error(`task ${task.name} is already defined`);
    const schedules = [task.every !== undefined, task.cron !== undefined, task.onDemand === true].filter(Boolean).length;
    if (schedules !== 1) throw new Error(`task ${task.name} needs exactly one of every, cron or onDemand`);
    if (!task.handler && !task.queue) throw new Error(`task ${task.name} needs a handler or a queue`);
    const cronJob = task.cron ? new Cron(task.cron, { paused: true }) : null;
    const schedule = task.onDemand ? ON_DEMAND : (task.cron ?? `@every ${formatInterval(task.every!)}`);
    this.tasks.set(task.name, { ...task, schedule, cronJob });
    if (this.started) this.install(this.tasks.get(task.name)!, this.clock.now());
  }

  /**
   * Rows that each need a queue job (JobLinks): written with it, and repaired by REPAIR_TASK (defined
   * with the first link) and whenever the domain calls repair().
   */
  link<Row>(spec: JobLinkSpec<Row>): JobLinks<Row> {
    const links = new JobLinks(this.queue, spec, this.log);
    this.links.push(links as JobLinks<unknown>);
    if (this.links.length === 1) {
      // Its own queue, so long scheduled tasks never hold it up.
      this.queue.register(REPAIR_TASK, { concurrency: 1, maxAttempts: 3, backoff: { baseMs: 1000, maxMs: REPAIR_EVERY_MS }, handler: () => this.repairLinks() });
      this.define({ name: REPAIR_TASK, every: REPAIR_EVERY_MS, queue: REPAIR_TASK });
    }
    return links;
  }

  private repairLinks(): void {
    let failure: unknown = null;
    for (const l of this.links) {
      try {
        const count = l.repair();
        if (count > 0) this.log.info('rows without a job were given one', { rows: l.spec.name, count });
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure) throw failure;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    const now = this.clock.now();
    for (const task of this.tasks.values()) this.install(task, now);
    this.tick();
  }

  stop(): void {
    this.started = false;
    for (const l of this.links) l.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Queues a task now, outside its schedule (its next fire stays); false while a run is queued or running. */
  runNow(name: string): boolean {
    const task = this.tasks.get(name);
    if (!task) throw new Error(`no task ${name}`);
    if (task.onDemand) throw new Error(`task ${name} runs on demand: its jobs come from the code that needs them`);
    return this.queue.enqueue(task.queue ?? SCHEDULED_QUEUE, task.payload ?? {}, { name, priority: task.priority ?? 0, dedupeKey: `task:${name}` }).created;
  }

  /** Every defined task with its stored state, for GET /api/settings/tasks. */
  list(): TaskState[] {
    const rows = new Map(this.repo.tasks().map((r) => [r.name, r]));
    return [...this.tasks.values()].map((t) => {
      const r = rows.get(t.name);
      return {
        name: t.name,
        queue: t.queue ?? SCHEDULED_QUEUE,
        schedule: t.schedule,
        nextRunAt: iso(r?.next_run_at ?? null),
        lastStartedAt: iso(r?.last_started_at ?? null),
        lastFinishedAt: iso(r?.last_finished_at ?? null),
        lastDurationMs: r?.last_duration_ms ?? null,
        lastStatus: r?.last_status ?? null,
        lastError: r?.last_error ?? null,
        running: r?.last_status === 'running',
        detail: detail(t),
      };
    });
  }

  /** Enqueues every due task once and moves its next fire past now. */
  tick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.started) return;
    const now = this.clock.now();
    let earliest = Infinity;
    for (const task of this.tasks.values()) {
      if (task.onDemand) continue;
      const row = this.repo.task(task.name);
      let next = row?.next_run_at ?? this.nextFire(task, now);
      if (next <= now) {
        try {
          const { created } = this.queue.enqueue(task.queue ?? SCHEDULED_QUEUE, task.payload ?? {}, {
            name: task.name,
            priority: task.priority ?? 0,
            dedupeKey: `task:${task.name}`,
          });
          if (!created) this.log.info('scheduled task still queued or running; this fire is skipped', { task: task.name });
        } catch (err) {
          this.log.error('scheduled task could not be queued', { task: task.name, err });
        }
        next = this.nextFire(task, now);
        this.repo.setNextRun(task.name, next);
      }
      earliest = Math.min(earliest, next);
    }
    // Re-check at least once a minute so a changed system clock is noticed.
    const wait = Math.max(50, Math.min(60_000, earliest - now));
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }

  private install(task: TaskDefinition & { schedule: string; cronJob: Cron | null }, now: number): void {
    if (task.onDemand) {
      this.repo.upsertTask({ name: task.name, queue: task.queue ?? SCHEDULED_QUEUE, schedule: task.schedule, nextRunAt: null });
      return;
    }
    const existing = this.repo.task(task.name);
    const first = task.runOnFirstStart && !existing ? now : this.nextFire(task, now);
    this.repo.upsertTask({ name: task.name, queue: task.queue ?? SCHEDULED_QUEUE, schedule: task.schedule, nextRunAt: first });
  }

  private nextFire(task: { every?: number; cronJob: Cron | null }, now: number): number {
    if (task.every !== undefined) return now + task.every;
    const next = task.cronJob!.nextRun(new Date(now));
    return next ? next.getTime() : Number.MAX_SAFE_INTEGER;
  }
}

function detail(task: TaskDefinition): string | null {
  try {
    return task.detail?.() ?? null;
  } catch {
    return null;
  }
}

function formatInterval(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
