/**
 * Job-queue throughput: 10,000 no-op jobs (BENCH_JOBS_COUNT) through one queue on a fresh database
 * file, measured from the first enqueue to the last completion. Target ≥ 1,000 jobs/s.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../server/db/connection.js';
import { jobsRepository } from '../server/db/jobs.js';
import { JobQueue } from '../server/jobs/queue.js';
import { createLogger } from '../server/log.js';

export async function runJobsBench(count = Number(process.env.BENCH_JOBS_COUNT ?? 10_000)): Promise<{ jobsPerSecond: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-jobs-'));
  const db = openDatabase(path.join(dir, 'tonearm.db'));
  const repo = jobsRepository(db);
  const queue = new JobQueue({ repo, clock: { now: () => Date.now() }, log: createLogger('silent') });
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  queue.register('bench-noop', {
    concurrency: 8,
    handler: () => {
      if (++done === count) finished();
    },
  });
  // The queue's timers are unref'd (a server's listener keeps its process alive); hold this one open.
  const keepAlive = setInterval(() => {}, 1000);
  queue.start();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) queue.enqueue('bench-noop', { i });
  const enqueueMs = performance.now() - t0;
  await all;
  const totalMs = performance.now() - t0;
  clearInterval(keepAlive);
  await queue.stop();
  const settled = (db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status = 'done'").get() as { n: number }).n;
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const jobsPerSecond = Math.round(count / (totalMs / 1000));
  console.log(`\nJob queue: ${count} no-op jobs (enqueue ${Math.round(enqueueMs)} ms, all done in ${Math.round(totalMs)} ms, ${settled} recorded done)`);
  console.log('jobs/s'.padEnd(40), String(jobsPerSecond).padStart(8), ''.padStart(17), `  ≥ 1000 ${jobsPerSecond >= 1000 ? 'ok' : 'MISS'}`);
  return { jobsPerSecond };
}

if (import.meta.url === `file://${process.argv[1]}`) await runJobsBench();
