import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../db/connection.js';
import { jobsRepository, type JobRow } from '../db/jobs.js';
import { createLogger, type Logger } from '../log.js';
import { JobQueue, PermanentJobError, RetryJobError, type Job } from './queue.js';
import { Scheduler } from './scheduler.js';

const log = createLogger('silent');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function database(): { db: Db; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-jobs-'));
  const file = path.join(dir, 'tonearm.db');
  const db = openDatabase(file);
  cleanups.push(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { db, file };
}

function queueOn(db: Db, clock = { now: () => Date.now() }) {
  const repo = jobsRepository(db);
  const queue = new JobQueue({ repo, clock, log, pollMs: 20 });
  cleanups.push(() => queue.stop(500));
  return { repo, queue };
}

const row = (db: Db, id: number) => db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow;
const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('job queue', () => {
  it('writes a row and its job in one transaction, and hands the result or the cause of a permanent error to whenDone', async () => {
    const { db } = database();
    const { queue } = queueOn(db);
    db.exec('CREATE TABLE work_rows (id INTEGER PRIMARY KEY, note TEXT)');
    queue.register<{ rowId: number; fail?: boolean }>('linked', {
      handler: (job) => {
        if (job.payload.fail) throw new PermanentJobError('wrapped', { cause: new RangeError('the real reason') });
        return { doubled: job.payload.rowId * 2 };
      },
    });
    const insert = (note: string) => (db.prepare('INSERT INTO work_rows (note) VALUES (?) RETURNING id').get(note) as { id: number }).id;
    // The job cannot be written (a bad payload): the row goes too.
    expect(() => queue.enqueueWith(() => insert('lost'), () => ({ queue: 'linked', payload: 1n }))).toThrow();
    expect(db.prepare('SELECT COUNT(*) AS n FROM work_rows').get()).toEqual({ n: 0 });
    const rowId = queue.enqueueWith(() => insert('kept'), (id) => ({ queue: 'linked', payload: { rowId: id }, options: { dedupeKey: 'one' } }));
    const { id, created } = queue.enqueue('linked', { rowId: 99 }, { dedupeKey: 'one' });
    expect(created).toBe(false);
    const failing = queue.enqueue('linked', { rowId, fail: true }).id;
    queue.start();
    await expect(queue.whenDone(id)).resolves.toEqual({ doubled: rowId * 2 });
    await expect(queue.whenDone(failing)).rejects.toThrow(RangeError);
    await expect(queue.whenDone(failing)).rejects.toThrow('wrapped');
  });

  it('runs jobs in priority order with the queue concurrency and passes the payload', async () => {
    const { db } = database();
    const { queue } = queueOn(db);
    const seen: number[] = [];
    let active = 0;
    let peak = 0;
    queue.register<{ n: number }>('work', {
      concurrency: 2,
      handler: async (job) => {
        active++;
        peak = Math.max(peak, active);
        seen.push(job.payload.n);
        await new Promise((r) => setTimeout(r, 15));
        active--;
      },
    });
    const ids = [5, 1, 3, 2, 4].map((n) => queue.enqueue('work', { n }, { priority: n }).id);
    queue.start();
    await until(() => ids.every((id) => row(db, id).status === 'done'));
    expect(peak).toBe(2);
    expect(seen.slice(0, 2).sort()).toEqual([1, 2]);
    expect(seen).toHaveLength(5);
    expect(db.prepare("SELECT COUNT(*) AS n FROM job_runs WHERE status = 'succeeded'").get()).toEqual({ n: 5 });
  });

  it('retries with exponential backoff and ends dead with the last error', async () => {
    const { db } = database();
    const { queue } = queueOn(db);
    const attempts: number[] = [];
    queue.register('flaky', {
      maxAttempts: 3,
      backoff: { baseMs: 40, maxMs: 1000 },
      handler: (job: Job) => {
        attempts.push(Date.now());
        throw new Error(`attempt ${job.attempt} failed`);
      },
    });
    const { id } = queue.enqueue('flaky', {});
    queue.start();
    await until(() => row(db, id).status === 'dead');
    expect(row(db, id)).toMatchObject({ attempts: 3, last_error: 'attempt 3 failed' });
    // 40 ms then 80 ms (±20 % jitter) between attempts.
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(30);
    expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(60);
  });

  it('ends a job at once on a permanent error and honours a requested retry delay', async () => {
    const { db } = database();
    const { queue } = queueOn(db);
    let calls = 0;
    queue.register('p', { handler: () => { throw new PermanentJobError('bad input'); } });
    queue.register<{ when: number[] }>('r', {
      handler: () => {
        calls++;
        if (calls === 1) throw new RetryJobError('rate limited', 120);
      },
    });
    const p = queue.enqueue('p', {}).id;
    const started = Date.now();
    const r = queue.enqueue('r', { when: [] }).id;
    queue.start();
    await until(() => row(db, p).status === 'dead' && row(db, r).status === 'done');
    expect(row(db, p)).toMatchObject({ attempts: 1, last_error: 'bad input' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(calls).toBe(2);
  });

  it('keeps one pending or running job per dedupe key and runs delayed jobs when due', async () => {
    const { db } = database();
    const { queue } = queueOn(db);
    let runs = 0;
    queue.register('d', { handler: () => void runs++ });
    // Due well after the check below, even on a loaded machine where a 30 ms timer fires late.
    const a = queue.enqueue('d', {}, { dedupeKey: 'k', delayMs: 1500 });
    const b = queue.enqueue('d', {}, { dedupeKey: 'k' });
    expect(b).toEqual({ id: a.id, created: false });
    queue.start();
    await new Promise((r) => setTimeout(r, 30));
    expect(row(db, a.id).status).toBe('pending');
    await until(() => row(db, a.id).status === 'done');
    expect(queue.enqueue('d', {}, { dedupeKey: 'k' }).created).toBe(true);
    await until(() => runs === 2);
  });

  it('releases a running job at shutdown without counting the attempt, and runs it at the next start', async () => {
    const { db } = database();
    const first = queueOn(db);
    first.queue.register('slow', { handler: (job: Job) => new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(new Error('stopped')))) });
    const { id } = first.queue.enqueue('slow', {});
    first.queue.start();
    await until(() => row(db, id).status === 'running');
    await first.queue.stop(500);
    expect(row(db, id)).toMatchObject({ status: 'pending', attempts: 0, claimed_by: null });

    const second = queueOn(db);
    second.queue.register('slow', { handler: () => undefined });
    second.queue.start();
    await until(() => row(db, id).status === 'done');
    expect(row(db, id).attempts).toBe(1);
  });

  it('runs a job exactly once after its process was killed with -9 between claim and completion', async () => {
    const { db, file } = database();
    const marker = path.join(path.dirname(file), 'claimed');
    const { id } = jobsRepository(db).enqueue(
      { queue: 'survivor', name: null, payload: '{"album":42}', priority: 0, runAt: Date.now(), maxAttempts: 5, dedupeKey: null },
      Date.now(),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/fixtures/job-child.ts'), file, 'survivor', marker], { stdio: 'ignore' });
    cleanups.push(() => child.kill('SIGKILL'));
    await until(() => fs.existsSync(marker), 20_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(row(db, id)).toMatchObject({ status: 'running', attempts: 1 });

    const { queue } = queueOn(db);
    const runs: unknown[] = [];
    queue.register('survivor', { handler: (job: Job) => void runs.push(job.payload) });
    queue.start();
    await until(() => row(db, id).status === 'done');
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toEqual([{ album: 42 }]);
    expect(row(db, id).attempts).toBe(2);
    const history = db.prepare('SELECT attempt, status FROM job_runs WHERE job_id = ? ORDER BY attempt').all(id);
    expect(history).toEqual([
      { attempt: 1, status: 'abandoned' },
      { attempt: 2, status: 'succeeded' },
    ]);
  }, 30_000);
});

describe('scheduler', () => {
  it('runs a fire missed while the server was down once, not once per missed period', async () => {
    const { db } = database();
    const clock = { t: Date.parse('2026-11-23T10:00:00Z'), now() { return this.t; } };
    const runs: string[] = [];
    const boot = () => {
      const { queue, repo } = queueOn(db, clock);
      const scheduler = new Scheduler(queue, repo, clock, log);
      scheduler.define({ name: 'hourly', every: 3600_000, handler: (job) => void runs.push(job.name!) });
      scheduler.define({ name: 'nightly', cron: '0 3 * * *', handler: (job) => void runs.push(job.name!) });
      cleanups.push(() => scheduler.stop());
      return { queue, scheduler };
    };
    const first = boot();
    first.queue.start();
    first.scheduler.start();
    expect(first.scheduler.list().map((t) => [t.name, t.schedule, t.nextRunAt])).toEqual([
      ['hourly', '@every 1h', '2026-11-23T11:00:00.000Z'],
      ['nightly', '0 3 * * *', new Date(new Date(clock.t).setHours(27, 0, 0, 0)).toISOString()],
    ]);
    await first.queue.stop();
    first.scheduler.stop();

    clock.t += 5 * 3600_000 + 60_000; // down for five hours: five hourly fires missed
    const second = boot();
    second.queue.start();
    second.scheduler.start();
    await until(() => runs.includes('hourly'));
    await new Promise((r) => setTimeout(r, 150));
    expect(runs.filter((r) => r === 'hourly')).toHaveLength(1);
    const hourly = second.scheduler.list().find((t) => t.name === 'hourly')!;
    expect(hourly).toMatchObject({ lastStatus: 'succeeded', running: false, nextRunAt: new Date(clock.t + 3600_000).toISOString() });
    expect(hourly.lastDurationMs).toBeGreaterThanOrEqual(0);
  });

  it('does not stack a fire on a run that is still going', async () => {
    const { db } = database();
    const clock = { t: Date.now(), now() { return this.t; } };
    const { queue, repo } = queueOn(db, clock);
    const scheduler = new Scheduler(queue, repo, clock, log);
    cleanups.push(() => scheduler.stop());
    let started = 0;
    let finish!: () => void;
    scheduler.define({ name: 'long', every: 1000, runOnFirstStart: true, handler: () => { started++; return new Promise<void>((r) => (finish = r)); } });
    queue.start();
    scheduler.start();
    await until(() => started === 1);
    clock.t += 5000;
    scheduler.tick();
    await new Promise((r) => setTimeout(r, 60));
    expect(started).toBe(1);
    finish();
    await until(() => scheduler.list()[0]!.lastStatus === 'succeeded');
  });
  it('does not ask for the write lock while nothing is due (a scan holding it does not stall the event loop)', async () => {
    const { db, file } = database();
    const errors: string[] = [];
    const recording: Logger = { ...log, error: (msg: string) => void errors.push(msg) };
    const repo = jobsRepository(db);
    const queue = new JobQueue({ repo, clock: { now: () => Date.now() }, log: recording, pollMs: 20 });
    cleanups.push(() => queue.stop(500));
    let ran = 0;
    queue.register('idle', { handler: () => void ran++ });
    queue.start();
    // Another connection (a scan worker) holds the write lock; this one must not wait for it at all.
    db.pragma('busy_timeout = 0');
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const pumped = repo.nextRunAt;
    let reads = 0;
    repo.nextRunAt = (q) => (reads++, pumped(q));
    await until(() => reads >= 5);
    expect(errors).toEqual([]);
    // Once the lock is free, a due job is claimed and run as before.
    other.exec('COMMIT');
    other.close();
    db.pragma('busy_timeout = 5000');
    queue.enqueue('idle', {});
    await until(() => ran === 1);
    expect(errors).toEqual([]);
  });
});
