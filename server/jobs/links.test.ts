import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../db/connection.js';
import { jobsRepository } from '../db/jobs.js';
import { createLogger } from '../log.js';
import { JobQueue } from './queue.js';
import { REPAIR_TASK, Scheduler } from './scheduler.js';

const log = createLogger('silent');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Row {
  id: number;
  note: string;
}

function setup(clock = { now: () => Date.now() }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-links-'));
  const db: Db = openDatabase(path.join(dir, 'tonearm.db'));
  db.exec('CREATE TABLE outbox (id INTEGER PRIMARY KEY, note TEXT NOT NULL, job_id INTEGER, done INTEGER NOT NULL DEFAULT 0)');
  const repo = jobsRepository(db);
  const queue = new JobQueue({ repo, clock, log, pollMs: 20 });
  const scheduler = new Scheduler(queue, repo, clock, log);
  cleanups.push(() => {
    scheduler.stop();
    return queue.stop(500).then(() => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
  });
  const busy = new Set<number>();
  let active = true;
  const handled: number[] = [];
  queue.register<{ rowId: number }>('outbox', {
    handler: (job) => {
      handled.push(job.payload.rowId);
      db.prepare('UPDATE outbox SET done = 1 WHERE id = ?').run(job.payload.rowId);
    },
  });
  const links = scheduler.link<Row>({
    name: 'test rows',
    queue: 'outbox',
    orphans: () =>
      db
        .prepare(
          `SELECT id, note FROM outbox o WHERE done = 0
           AND NOT EXISTS (SELECT 1 FROM jobs q WHERE q.id = o.job_id AND q.status IN ('pending', 'running')) ORDER BY id`,
        )
        .all() as Row[],
    job: (row) => ({ payload: { rowId: row.id }, options: { dedupeKey: `row:${row.id}` } }),
    link: (row, jobId) => void db.prepare('UPDATE outbox SET job_id = ? WHERE id = ?').run(jobId, row.id),
    busy: (row) => busy.has(row.id),
    active: () => active,
  });
  const insert = (note: string) => db.prepare('INSERT INTO outbox (note) VALUES (?) RETURNING id, note').get(note) as Row;
  const jobOf = (id: number) => db.prepare('SELECT job_id FROM outbox WHERE id = ?').pluck().get(id) as number | null;
  return { db, queue, scheduler, links, insert, jobOf, busy, handled, setActive: (v: boolean) => (active = v) };
}

describe('rows and their jobs (JobLinks)', () => {
  it('writes rows with their jobs in one transaction: a failure leaves neither', () => {
    const { db, links, insert, jobOf } = setup();
    const [a, b] = links.write(() => [insert('a'), insert('b')], (rows) => rows);
    expect(jobOf(a!.id)).not.toBeNull();
    expect(jobOf(b!.id)).not.toBeNull();
    expect(() =>
      links.write(
        () => insert('c'),
        () => {
          throw new Error('no job for you');
        },
      ),
    ).toThrow('no job for you');
    expect(db.prepare("SELECT COUNT(*) FROM outbox WHERE note = 'c'").pluck().get()).toBe(0);
  });

  it('repairs rows without a live job, except busy ones and while inactive; repairSoon coalesces', async () => {
    const { queue, links, insert, jobOf, busy, handled, setActive } = setup();
    const a = insert('a');
    const b = insert('b');
    busy.add(b.id);
    setActive(false);
    expect(links.repair()).toBe(0);
    setActive(true);
    expect(links.repair()).toBe(1);
    expect([jobOf(a.id) !== null, jobOf(b.id)]).toEqual([true, null]);
    // A second pass finds a's job pending: nothing to do.
    expect(links.repair()).toBe(0);
    busy.delete(b.id);
    links.repairSoon();
    links.repairSoon();
    await new Promise((r) => setImmediate(r));
    expect(jobOf(b.id)).not.toBeNull();
    queue.start();
    for (let i = 0; i < 200 && handled.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(handled.sort()).toEqual([a.id, b.id].sort());
  });

  it('one scheduled task on its own queue repairs every link', async () => {
    let t = Date.now();
    const clock = { now: () => t };
    const { db, queue, scheduler, insert, jobOf, handled } = setup(clock);
    expect(scheduler.list().find((task) => task.name === REPAIR_TASK)).toMatchObject({ queue: REPAIR_TASK, schedule: '@every 10s' });
    queue.start();
    scheduler.start();
    const row = insert('written by another process');
    t += 10_000;
    scheduler.tick();
    for (let i = 0; i < 300 && handled.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(handled).toEqual([row.id]);
    expect(jobOf(row.id)).not.toBeNull();
    expect(db.prepare("SELECT COUNT(*) FROM jobs WHERE queue = ? AND status = 'done'").pluck().get(REPAIR_TASK)).toBe(1);
  });
});
