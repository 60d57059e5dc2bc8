/**
 * Memory at rest (issue 25; `npm run bench:memory`, not part of `npm test`). A Tonearm server
 * process, started as `npm start` starts it (watcher on), goes through the states below; after each
 * one it is left idle for BENCH_IDLE_SECONDS (90) and its resident memory is read from /proc (target
 * ≤ 200 MB in every idle state); RSS is sampled every half second throughout for the peaks (target
 * ≤ 300 MB during the scan). States, in order, on one process and a generated library of
 * BENCH_MEMORY_FILES (20,000) small tagged MP3s:
 *
 * - scan: a full scan of the fresh library;
 * - mixed: 3,000 mixed /rest requests (browse, search, song details, whole-song streams) by 8 clients;
 * - rescans: four forced re-reads (full scans) in a row;
 * - load: 60 s at 200 requests/s of the same mix, open loop;
 *
 * then, on a second process, a library of BENCH_MEMORY_TRACKS (1,000,000; 0 skips it) tracks seeded
 * straight into SQLite (bench/library.ts: rows written through the store's writer, no files; reused
 * from BENCH_SEED_CACHE when set): the idle RSS after start, then after 3,000 mixed requests without
 * streams. BENCH_MEMORY_STATES picks states (e.g. `scan,load`); BENCH_MEMORY_ENV adds server
 * environment (`K=V,K=V`; `MALLOC_ARENA_MAX=0` for glibc's default arenas instead of npm start's 2) and
 * BENCH_NODE_ARGS node flags, for trying levers. The server runs under npm start's launcher
 * (scripts/start.mjs), and each figure adds the launcher's own pages to the server's RSS.
 * ReplayGain analysis is off, so that the work has an end. Writes JSON under bench-results/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateMusic } from './idleMemory.js';
import { seededLibrary } from './library.js';
import { catalogOf, closedLoop, mixedCase, openLoop, type RestTarget } from './restLoad.js';
import { BENCH_ADMIN, startTonearm, type Rss, type TonearmProcess } from './serverProcess.js';

const FILES = Number(process.env.BENCH_MEMORY_FILES ?? 20_000);
const TRACKS = Number(process.env.BENCH_MEMORY_TRACKS ?? 1_000_000);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 90);
const STATES = (process.env.BENCH_MEMORY_STATES ?? 'scan,mixed,rescans,load,seeded').split(',').map((s) => s.trim());
const EXTRA_ENV = Object.fromEntries((process.env.BENCH_MEMORY_ENV ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const NODE_ARGS = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];

interface StateRow {
  state: string;
  workSeconds: number;
  /** Requests answered with a status other than 200, for the request states. */
  errors?: number;
  peak: Rss;
  idle: Rss;
}

/** Samples a server's RSS every 500 ms; `phase()` returns the peak since the last call. */
function sampler(server: TonearmProcess) {
  let peak: Rss = server.memory();
  const timer = setInterval(() => {
    try {
      const now = server.memory();
      if (now.rss > peak.rss) peak = now;
    } catch {
      // the process has ended
    }
  }, 500);
  return {
    phase(): Rss {
      const p = peak;
      peak = server.memory();
      return p;
    },
    stop: () => clearInterval(timer),
  };
}

async function idle(server: TonearmProcess): Promise<Rss> {
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  return server.memory();
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-memory-'));
  const rows: StateRow[] = [];
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2));
  const show = (r: StateRow) =>
    console.log(`  ${r.state}: work ${r.workSeconds.toFixed(1)} s${r.errors ? ` (${r.errors} requests failed)` : ''}, peak ${r.peak.rss} MB, idle ${r.idle.rss} MB (anon ${r.idle.anon}, file ${r.idle.file}) after ${IDLE_SECONDS} s${r.idle.launcher !== undefined ? ` (launcher's own ${r.idle.launcher})` : ''}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const state = async (server: TonearmProcess, s: ReturnType<typeof sampler>, name: string, work: () => Promise<unknown>) => {
    s.phase();
    const t0 = performance.now();
    const result = await work();
    const workSeconds = (performance.now() - t0) / 1000;
    const peak = s.phase();
    const errors = (result as { errors?: number } | undefined)?.errors;
    const row = { state: name, workSeconds, peak, idle: await idle(server), ...(errors !== undefined && { errors }) };
    rows.push(row);
    show(row);
  };
  const env = { TONEARM_REPLAYGAIN_ANALYSIS: 'false', ...EXTRA_ENV };
  try {
    const generated = STATES.some((s) => s !== 'seeded');
    if (generated) {
      const music = path.join(root, 'music');
      console.log(`generating ${FILES} tagged MP3s …`);
      generateMusic(music, FILES, root);
      const server = await startTonearm({ dataDir: path.join(root, 'data'), musicDirs: [music], env, nodeArgs: NODE_ARGS });
      const s = sampler(server);
      try {
        console.log(`server started: ${server.memory().rss} MB`);
        const t: RestTarget = { url: server.url, ...BENCH_ADMIN };
        // The later states need a library, so the scan always runs; it is reported when asked for.
        if (STATES.includes('scan')) await state(server, s, `fresh scan of ${FILES} files`, () => server.scan('full'));
        else await server.scan('full');
        const catalog = await catalogOf(t);
        if (STATES.includes('mixed')) await state(server, s, '3,000 mixed requests', () => closedLoop(t, mixedCase(catalog), 8, 3000));
        if (STATES.includes('rescans')) {
          await state(server, s, 'four forced rescans in a row', async () => {
            for (let i = 0; i < 4; i++) await server.scan('full');
          });
        }
        if (STATES.includes('load')) await state(server, s, '60 s at 200 requests/s', () => openLoop(t, mixedCase(catalog), 200, 60));
      } finally {
        s.stop();
        await server.stop();
      }
    }
    if (STATES.includes('seeded') && TRACKS > 0) {
      const dataDir = path.join(root, 'seeded');
      fs.mkdirSync(dataDir);
      await seededLibrary(dataDir, TRACKS);
      const server = await startTonearm({ dataDir, env, nodeArgs: NODE_ARGS });
      const s = sampler(server);
      try {
        const t: RestTarget = { url: server.url, ...BENCH_ADMIN };
        await state(server, s, `${TRACKS} seeded tracks, at start`, async () => {});
        const catalog = await catalogOf(t, ['kalo', 'mira', 'Björk', '東京', 'neto']);
        await state(server, s, `${TRACKS} seeded tracks, 3,000 requests`, () => closedLoop(t, mixedCase(catalog, { stream: false }), 8, 3000));
      } finally {
        s.stop();
        await server.stop();
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  console.log(`\nTonearm memory: ${FILES} generated files, ${os.cpus().length} CPUs, load at start ${loadAtStart.join(' ')}, at end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}${Object.keys(EXTRA_ENV).length ? `, env ${JSON.stringify(EXTRA_ENV)}` : ''}\n`);
  console.log('state'.padEnd(42), 'peak MB'.padStart(8), `idle MB`.padStart(8), 'anon'.padStart(6), 'file'.padStart(6), '  target');
  for (const r of rows) {
    const scan = r.state.startsWith('fresh scan');
    const ok = r.idle.rss <= 200 && (!scan || r.peak.rss <= 300);
    console.log(r.state.padEnd(42), String(r.peak.rss).padStart(8), String(r.idle.rss).padStart(8), String(r.idle.anon).padStart(6), String(r.idle.file).padStart(6), `  idle ≤ 200${scan ? ', peak ≤ 300' : ''} ${ok ? 'ok' : 'MISS'}`);
  }
  fs.mkdirSync('bench-results', { recursive: true });
  const file = path.join('bench-results', `memory-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ files: FILES, tracks: TRACKS, idleSeconds: IDLE_SECONDS, env: EXTRA_ENV, nodeArgs: NODE_ARGS, loadAtStart, rows }, null, 2));
  console.log(`\nwritten ${file}`);
}

await main();
