/**
 * Scan benchmark (issue 25; part of `npm run bench`, runnable alone with `npm run bench:scan`).
 * Generates BENCH_SCAN_FILES (default 10,000) small tagged MP3s (bench/idleMemory.ts's generator),
 * then for each of BENCH_SCAN_REPEAT runs (default 3), on a fresh data folder with a server started
 * in this process: a fresh full scan (files/s) and a forced re-read of the same files (a second
 * `full` scan, seconds), each with the server's main-thread event-loop delay sampled (p99) and the
 * wall time from the request until the run reports completed. BENCH_SCAN_MUSIC reuses (or keeps)
 * a generated music folder. CPU seconds of the process (all threads) are recorded beside the wall
 * times, and the idle server's event-loop delay before each run, as a control on a loaded machine.
 * The server runs with npm start's node flags and MALLOC_ARENA_MAX (the benchmark runs itself again
 * with them when started without). TONEARM_SCAN_READ_THREAD=false measures without the scan's second read thread (on by default, used
 * only while a core is idle beside the scan; see README). Prints the runs and their medians, writes JSON under bench-results/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { generateMusic } from './idleMemory.js';
import { readThreadEnabled } from '../server/library/scanReadThread.js';
import { asNpmStart } from './asNpmStart.js';

export interface ScanBenchRun {
  /** Event-loop delay p99 of the idle server just before the scans: what the machine's load alone causes. */
  idleLagP99Ms: number;
  freshSeconds: number;
  /** CPU seconds of this process (server main thread, scan worker, thread pool) during the scan. */
  freshCpuSeconds: number;
  freshFilesPerSecond: number;
  freshLagP99Ms: number;
  rereadSeconds: number;
  rereadCpuSeconds: number;
  rereadFilesPerSecond: number;
  rereadLagP99Ms: number;
}

export interface ScanBenchResult {
  files: number;
  /** TONEARM_SCAN_READ_THREAD was on (the default). */
  readThread: boolean;
  runs: ScanBenchRun[];
  median: ScanBenchRun;
  loadAverage: { start: string[]; end: string[] };
}

async function waitForScan(server: TestServer, jobId: string): Promise<void> {
  for (;;) {
    const res = await server.api(`/api/library/refresh/${jobId}`, { headers: server.admin.headers });
    const j = (await res.json()) as { status: string; error?: string | null };
    if (j.status === 'failed') throw new Error(`scan ${jobId} failed: ${j.error ?? ''}`);
    if (j.status === 'completed') return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Event-loop delay p99 (ms) of this process over `ms` of doing nothing. */
async function idleLag(ms: number): Promise<number> {
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  await new Promise((r) => setTimeout(r, ms));
  lag.disable();
  return Math.round(lag.percentile(99) / 1e4) / 100;
}

/** One full scan: wall and CPU seconds, and the main thread's event-loop delay p99 (ms) meanwhile. */
async function timedFullScan(server: TestServer): Promise<{ seconds: number; cpuSeconds: number; lagP99Ms: number }> {
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const res = await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'full' }, headers: server.admin.headers });
  const { jobId } = (await res.json()) as { jobId: string };
  await waitForScan(server, jobId);
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  lag.disable();
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, lagP99Ms: Math.round(lag.percentile(99) / 1e4) / 100 };
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runScanBench(options: { files?: number; repeat?: number; music?: string } = {}): Promise<ScanBenchResult> {
  const files = options.files ?? Number(process.env.BENCH_SCAN_FILES ?? 10_000);
  const repeat = options.repeat ?? Number(process.env.BENCH_SCAN_REPEAT ?? 3);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scanbench-'));
  const music = options.music ?? process.env.BENCH_SCAN_MUSIC ?? path.join(root, 'music');
  const start = os.loadavg().map((l) => l.toFixed(2));
  const runs: ScanBenchRun[] = [];
  try {
    const marker = path.join(music, `.generated-${files}`);
    if (!fs.existsSync(marker)) {
      console.log(`generating ${files} tagged mp3s in ${music} …`);
      generateMusic(music, files, root);
      fs.writeFileSync(marker, '');
    }
    for (let i = 0; i < repeat; i++) {
      const dataDir = path.join(root, `data-${i}`);
      fs.mkdirSync(dataDir);
      const server = await startTestServer({ dataDir, musicDirs: [music], env: { TONEARM_SCAN_ON_START: 'false', TONEARM_LIBRARY_WATCH: 'false' } });
      try {
        const idleLagP99Ms = await idleLag(3000);
        const fresh = await timedFullScan(server);
        const reread = await timedFullScan(server);
        const run = {
          idleLagP99Ms,
          freshSeconds: round(fresh.seconds),
          freshCpuSeconds: round(fresh.cpuSeconds),
          freshFilesPerSecond: Math.round(files / fresh.seconds),
          freshLagP99Ms: fresh.lagP99Ms,
          rereadSeconds: round(reread.seconds),
          rereadCpuSeconds: round(reread.cpuSeconds),
          rereadFilesPerSecond: Math.round(files / reread.seconds),
          rereadLagP99Ms: reread.lagP99Ms,
        };
        runs.push(run);
        console.log(`  run ${i + 1}: idle lag p99 ${run.idleLagP99Ms} ms; fresh ${run.freshSeconds} s = ${run.freshFilesPerSecond} files/s (CPU ${run.freshCpuSeconds} s, lag p99 ${run.freshLagP99Ms} ms); forced re-read ${run.rereadSeconds} s (CPU ${run.rereadCpuSeconds} s, lag p99 ${run.rereadLagP99Ms} ms); load ${os.loadavg()[0]!.toFixed(2)}`);
      } finally {
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const med = Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, median(runs.map((r) => r[k as keyof ScanBenchRun]))])) as unknown as ScanBenchRun;
  const end = os.loadavg().map((l) => l.toFixed(2));
  console.log(`\nscan benchmark: ${files} small tagged mp3s, ${repeat} runs, ${os.cpus().length} CPUs, load ${end.join(' ')} (at start ${start.join(' ')})`);
  console.log(`  idle server       lag p99 ${med.idleLagP99Ms} ms (the machine's load alone)`);
  console.log(`  fresh scan        median ${med.freshFilesPerSecond} files/s (${med.freshSeconds} s, CPU ${med.freshCpuSeconds} s = ${Math.round(files / med.freshCpuSeconds)} files per CPU-second)   target ≥ 4000 files/s ${med.freshFilesPerSecond >= 4000 ? 'ok' : 'MISS'}`);
  console.log(`  fresh scan        lag p99 ${med.freshLagP99Ms} ms   target ≤ 20 ms ${med.freshLagP99Ms <= 20 ? 'ok' : 'MISS'}`);
  console.log(`  forced re-read    median ${med.rereadSeconds} s (${med.rereadFilesPerSecond} files/s, CPU ${med.rereadCpuSeconds} s)`);
  console.log(`  forced re-read    lag p99 ${med.rereadLagP99Ms} ms   target ≤ 20 ms ${med.rereadLagP99Ms <= 20 ? 'ok' : 'MISS'}`);
  const result = { files, readThread: readThreadEnabled(), runs, median: med, loadAverage: { start, end } };
  fs.mkdirSync('bench-results', { recursive: true });
  const out = path.join('bench-results', `scan-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
  console.log(`written ${out}`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await asNpmStart();
  await runScanBench();
}
