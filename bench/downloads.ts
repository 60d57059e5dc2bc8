/**
 * Self-managed downloads throughput (issue 12): BENCH_DOWNLOADS_JOBS (default 1,000) distinct track
 * jobs through the whole pipeline (search → download → verify → tag → file) of an in-process test
 * server against the slskd fake (20 ms latency on every request, files of about 1 MB of real mp3
 * audio, 200 ms transfers), at worker concurrency 3 and 8 (BENCH_DOWNLOADS_CONCURRENCY, e.g. "3,8").
 * Each concurrency gets a fresh server, data folder and fake, so nothing is reused from the run
 * before (existingFileMode stays `reuse`; the tracks are all new). Measures the wall time from the
 * first job created until none is pending or downloading, jobs/minute, the jobs not done, the
 * main-thread event-loop lag (p50/p99, monitorEventLoopDelay) and the peak RSS (sampled every second).
 * The fake runs in a child process by default (bench/downloadsFakes.ts), so the lag and RSS are the
 * server's alone; BENCH_DOWNLOADS_FAKES=inprocess runs it in this process instead (its work then adds
 * to both). Target: lag p99 ≤ 20 ms. Prints a table and writes JSON under bench-results/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { downloads } from '../server/db/downloads.js';
import { startTestServer, TestClock } from '../test/helpers/server.js';
import { benchTracks, LATENCY_MS, startDownloadsFakes, TRACK_SECONDS, type BenchFakes } from './downloadsFakes.js';

const TERMINAL = ['done', 'failed', 'blocked', 'cancelled'] as const;

export interface DownloadsRun {
  concurrency: number;
  jobs: number;
  createMs: number;
  wallSeconds: number;
  jobsPerMinute: number;
  done: number;
  failed: number;
  blocked: number;
  cancelled: number;
  unfinished: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  peakRssMb: number;
  fileBytes: number;
}

/** The fakes in their own process: only the server's loop is measured. */
async function childFakes(count: number, dir: string): Promise<BenchFakes> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'downloadsFakes.ts')], {
    env: { ...process.env, BENCH_DOWNLOADS_JOBS: String(count), BENCH_FAKES_DIR: dir },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`the fakes process exited (${code})`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
  });
  const info = JSON.parse(line) as { url: string; apiKey: string; downloadsDir: string };
  return {
    ...info,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin!.end();
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function runOnce(concurrency: number, count: number, inProcess: boolean): Promise<DownloadsRun> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-downloads-'));
  const slskdDir = path.join(root, 'slskd');
  fs.mkdirSync(slskdDir);
  const fakes = inProcess ? await startDownloadsFakes(count, slskdDir) : await childFakes(count, slskdDir);
  // A clock that runs: the queue's delays and the jobs' timestamps are real ones.
  const clock = new TestClock();
  clock.now = () => Date.now();
  const server = await startTestServer({ clock });
  try {
    const res = await server.api('/api/settings', {
      method: 'POST',
      token: server.admin.token,
      json: {
        downloads: { folderPath: path.join(root, 'library'), worker: { concurrency, durationToleranceSeconds: 30 } },
        integrations: { slskd: { url: fakes.url, apiKey: fakes.apiKey } },
      },
    });
    if (res.status !== 200) throw new Error(`settings: HTTP ${res.status} ${await res.text()}`);

    const svc = server.ctx.downloads;
    const lag = monitorEventLoopDelay({ resolution: 5 });
    let peakRss = process.memoryUsage.rss();
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 1000);
    lag.enable();
    const t0 = performance.now();
    for (const t of benchTracks(count)) {
      svc.create({ userId: 1, ...t, durationMs: TRACK_SECONDS * 1000 });
    }
    const createMs = performance.now() - t0;
    const timeoutMs = Number(process.env.BENCH_DOWNLOADS_TIMEOUT_S ?? 1200) * 1000;
    let counts = downloads.countsByStatus(server.ctx.db, {});
    let lastLog = performance.now();
    for (;;) {
      counts = downloads.countsByStatus(server.ctx.db, {});
      const finished = TERMINAL.reduce((n, s) => n + counts[s], 0);
      if (finished >= count || performance.now() - t0 > timeoutMs) break;
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        console.log(`    ${Math.round((lastLog - t0) / 1000)} s: ${counts.done} done, ${finished - counts.done} other, ${count - finished} to go`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const wallMs = performance.now() - t0;
    lag.disable();
    clearInterval(rssTimer);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    const finished = TERMINAL.reduce((n, s) => n + counts[s], 0);
    const sample = server.ctx.db.prepare("SELECT final_path FROM download_jobs WHERE status = 'done' AND final_path IS NOT NULL LIMIT 1").pluck().get() as string | undefined;
    const failures = server.ctx.db
      .prepare("SELECT status, coalesce(error, block_reason, '') AS why, count(*) AS n FROM download_jobs WHERE status <> 'done' GROUP BY 1, 2 ORDER BY n DESC LIMIT 5")
      .all() as { status: string; why: string; n: number }[];
    for (const f of failures) console.log(`    not done: ${f.n} ${f.status} ${f.why.slice(0, 160)}`);
    return {
      concurrency,
      jobs: count,
      createMs: Math.round(createMs),
      wallSeconds: Math.round(wallMs / 100) / 10,
      jobsPerMinute: Math.round((counts.done / (wallMs / 60_000)) * 10) / 10,
      done: counts.done,
      failed: counts.failed,
      blocked: counts.blocked,
      cancelled: counts.cancelled,
      unfinished: count - finished,
      lagP50Ms: Math.round(lag.percentile(50) / 1e4) / 100,
      lagP99Ms: Math.round(lag.percentile(99) / 1e4) / 100,
      lagMaxMs: Math.round(lag.max / 1e4) / 100,
      peakRssMb: Math.round(peakRss / 1048576),
      fileBytes: sample && fs.existsSync(sample) ? fs.statSync(sample).size : 0,
    };
  } finally {
    await server.stop();
    await fakes.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * BENCH_DOWNLOADS_JOBS is one count for every run, or a list matching BENCH_DOWNLOADS_CONCURRENCY
 * ("300,1000" with "3,8": 300 jobs at concurrency 3, 1,000 at 8).
 */
export async function runDownloadsBench(
  counts = (process.env.BENCH_DOWNLOADS_JOBS ?? '1000').split(',').map(Number),
  concurrencies = (process.env.BENCH_DOWNLOADS_CONCURRENCY ?? '3,8').split(',').map(Number),
): Promise<DownloadsRun[]> {
  const countOf = (i: number) => counts[Math.min(i, counts.length - 1)]!;
  const count = Math.max(...concurrencies.map((_, i) => countOf(i)));
  const inProcess = process.env.BENCH_DOWNLOADS_FAKES === 'inprocess';
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2));
  const where = inProcess ? 'in this process (its work counts in the lag and RSS)' : 'in a child process (lag and RSS are the server’s)';
  console.log(`\nDownloads: up to ${count} track jobs against the slskd fake (${LATENCY_MS} ms latency, ~1 MB files), fake ${where}`);
  const runs: DownloadsRun[] = [];
  for (const [i, c] of concurrencies.entries()) {
    console.log(`  concurrency ${c}, ${countOf(i)} jobs …`);
    runs.push(await runOnce(c, countOf(i), inProcess));
  }
  const load = os.loadavg().map((l) => l.toFixed(2));
  console.log(`\nDownload pipeline: ${runs.map((r) => r.jobs).join(' / ')} jobs, ${os.cpus().length} CPUs, load ${load.join(' ')} (at start ${loadAtStart.join(' ')}), fakes ${inProcess ? 'in-process' : 'in a child process'}\n`);
  console.log('concurrency'.padEnd(12), 'jobs'.padStart(6), 'jobs/min'.padStart(9), 'wall s'.padStart(8), 'done'.padStart(6), 'not done'.padStart(9), 'lag p50'.padStart(8), 'lag p99'.padStart(8), 'lag max'.padStart(8), 'peak RSS MB'.padStart(12), '  target');
  for (const r of runs) {
    console.log(
      String(r.concurrency).padEnd(12), String(r.jobs).padStart(6), String(r.jobsPerMinute).padStart(9), String(r.wallSeconds).padStart(8), String(r.done).padStart(6),
      String(r.jobs - r.done).padStart(9), String(r.lagP50Ms).padStart(8), String(r.lagP99Ms).padStart(8), String(r.lagMaxMs).padStart(8),
      String(r.peakRssMb).padStart(12), `  lag p99 ≤ 20 ms ${r.lagP99Ms <= 20 ? 'ok' : 'MISS'}`,
    );
  }
  console.log(`(file size ${runs[0]?.fileBytes ?? 0} bytes; job creation ${runs.map((r) => `${r.createMs} ms`).join(' / ')})`);
  fs.mkdirSync('bench-results', { recursive: true });
  const out = path.join('bench-results', `downloads-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, JSON.stringify({ latencyMs: LATENCY_MS, trackSeconds: TRACK_SECONDS, fakes: inProcess ? 'in-process' : 'child process', loadAverage: { start: loadAtStart, end: load }, runs }, null, 2));
  console.log(`written ${out}`);
  return runs;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runDownloadsBench();
  // A CLI run ends here (and writes its --cpu-prof profiles), whatever idle handle is left.
  process.exit(0);
}
