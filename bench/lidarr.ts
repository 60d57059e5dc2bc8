import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../server/db/connection.js';
import { jobsRepository } from '../server/db/jobs.js';
import { scanRuns } from '../server/db/libraryScanRuns.js';
import { JobQueue } from '../server/jobs/queue.js';
import { createLogger } from '../server/log.js';
import { LidarrClient } from '../server/integrations/lidarr/index.js';
import { indexLidarrLibrary } from '../server/library/lidarrIndexer.js';
import { LidarrIndexService } from '../server/library/lidarrIndexService.js';
import { startLidarrFake } from '../test/fakes/lidarr/index.js';

/**
 * Lidarr indexing benchmark: a fake Lidarr with `artists` × `albumsPerArtist` × `tracksPerAlbum`
 * (default 8,000 / 80,000 / 800,000, every track with a file), indexed into a fresh database the
 * way the server does it (worker thread, own connection). Measures the full index, a no-op
 * re-index (target ≤ 10 s) and one artist's webhook re-index (target ≤ 1 s), with Lidarr requests.
 * The fake runs in this process's main thread; the indexer in its worker, as in production.
 */
export interface LidarrBenchOptions {
  artists?: number;
  albumsPerArtist?: number;
  tracksPerAlbum?: number;
  /** Where to write the JSON result; default bench-results/ at the repository root. */
  outDir?: string;
  log?: (line: string) => void;
}

export interface LidarrBenchRow {
  step: string;
  seconds: number;
  requests: number;
  target: string;
  ok: boolean | null;
}

export interface LidarrBenchResult {
  name: 'lidarr';
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  library: { artists: number; albums: number; tracks: number; files: number };
  rows: LidarrBenchRow[];
  canonical: { artists: number; albums: number; tracks: number };
  file: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));

export async function runLidarrBench(options: LidarrBenchOptions = {}): Promise<LidarrBenchResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const artists = options.artists ?? 8_000;
  const albumsPerArtist = options.albumsPerArtist ?? 10;
  const tracksPerAlbum = options.tracksPerAlbum ?? 10;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-lidarr-'));
  // Lidarr's root folder exists here, the files do not: every file costs a real (failing) stat.
  const root = path.join(dir, 'music');
  fs.mkdirSync(root);
  const fake = await startLidarrFake({ rootFolderPath: root });
  const rows: LidarrBenchRow[] = [];
  try {
    let t = performance.now();
    const seeded = fake.seedLibrary({ artists, albumsPerArtist, tracksPerAlbum, withFiles: true });
    log(`seeded fake Lidarr: ${seeded.artists} artists, ${seeded.albums} albums, ${seeded.tracks} tracks in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const dbPath = path.join(dir, 'tonearm.db');
    const db = openDatabase(dbPath);
    const jobs = new JobQueue({ repo: jobsRepository(db), clock: { now: () => Date.now() }, log: createLogger('silent') });
    jobs.start();
    const service = new LidarrIndexService({
      db,
      jobs,
      dbPath,
      target: () => ({ baseUrl: fake.url, apiKey: fake.apiKey, pathMappings: [] }),
      log: { info: () => {}, warn: (msg, meta) => log(`warn: ${msg} ${JSON.stringify(meta)}`) },
    });
    const timed = async (step: string, target: string, limitSeconds: number | null, run: () => Promise<number>) => {
      fake.state.resetCounts();
      const started = performance.now();
      const runId = await run();
      const seconds = (performance.now() - started) / 1000;
      const status = scanRuns.get(db, runId)?.status;
      if (status && status !== 'completed') throw new Error(`${step}: run ${runId} ended ${status}: ${scanRuns.get(db, runId)?.error}`);
      const row = { step, seconds: Math.round(seconds * 1000) / 1000, requests: fake.state.requestCount, target, ok: limitSeconds === null ? null : seconds <= limitSeconds };
      rows.push(row);
      log(`${step}: ${row.seconds} s, ${row.requests} requests`);
    };
    const viaWorker = (request: () => number) => async () => {
      const id = request();
      await service.whenIdle();
      return id;
    };

    await timed('full index (worker)', '—', null, viaWorker(() => service.requestFull('bench')));
    await timed('no-op re-index (worker)', '≤ 10 s', 10, viaWorker(() => service.requestFull('bench')));
    // One artist changed, as after a Download webhook: the server queues exactly this. The index
    // worker is long-lived, so this run finds it started by the runs above.
    const artistId = Math.ceil(artists / 2);
    await timed('one artist, webhook re-index (worker)', '≤ 1 s', 1, viaWorker(() => service.requestArtists([artistId], 'bench')));
    const warmSeconds = rows[rows.length - 1]!.seconds;
    // The first run after a server start (or after the worker ended idle) also starts the worker:
    // a second service on the same database has none yet.
    const cold = new LidarrIndexService({
      db,
      jobs,
      queue: 'lidarr-index-cold',
      dbPath,
      target: () => ({ baseUrl: fake.url, apiKey: fake.apiKey, pathMappings: [] }),
      log: { info: () => {}, warn: (msg, meta) => log(`warn: ${msg} ${JSON.stringify(meta)}`) },
    });
    await timed('one artist, webhook re-index (worker, incl. worker start)', '≤ 1 s', 1, async () => {
      const id = cold.requestArtists([artistId], 'bench');
      await cold.whenIdle();
      return id;
    });
    await cold.stop();
    const coldRow = rows[rows.length - 1]!;
    rows.push({ step: 'index worker start (incl. minus warm)', seconds: Math.round((coldRow.seconds - warmSeconds) * 1000) / 1000, requests: 0, target: '(info)', ok: null });
    // The same run in-process, without the worker's start-up (module loading under tsx dominates it).
    const client = new LidarrClient({ baseUrl: fake.url, apiKey: fake.apiKey });
    await timed('one artist, webhook re-index (indexer only)', '≤ 1 s', 1, async () => {
      const runId = scanRuns.enqueue(db, 'quick', 'bench', Date.now(), 'lidarr');
      scanRuns.start(db, runId, [`lidarr:artist/${artistId}`], Date.now());
      await indexLidarrLibrary(db, client, { runId, pathMappings: [], artistIds: [artistId] });
      scanRuns.finish(db, runId, 'completed', null, Date.now());
      return runId;
    });
    await jobs.stop();
    await service.stop();

    const count = (table: string) => (db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number);
    const canonical = { artists: count('library_artists'), albums: count('library_albums'), tracks: count('library_tracks') };
    db.close();

    const result: Omit<LidarrBenchResult, 'file'> = {
      name: 'lidarr',
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(os.totalmem() / 1024 ** 3), node: process.version },
      library: seeded,
      rows,
      canonical,
    };
    const outDir = options.outDir ?? path.join(here, '..', 'bench-results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `lidarr-${result.date.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    printTable(result, log);
    log(`written ${file}`);
    return { ...result, file };
  } finally {
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(result: Omit<LidarrBenchResult, 'file'>, log: (line: string) => void): void {
  const { library, canonical } = result;
  log('');
  log(`Lidarr index: ${library.artists} artists, ${library.albums} albums, ${library.tracks} tracks (${library.files} files)`);
  log(`canonical store afterwards: ${canonical.artists} artists, ${canonical.albums} albums, ${canonical.tracks} tracks`);
  const header = ['step', 'seconds', 'Lidarr requests', 'target', 'met'];
  const lines = result.rows.map((r) => [r.step, r.seconds.toFixed(3), String(r.requests), r.target, r.ok === null ? '' : r.ok ? 'yes' : 'NO']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  log(fmt(header));
  log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) log(fmt(l));
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const arg = (name: string) => {
    const found = process.argv.find((a) => a.startsWith(`--${name}=`));
    return found ? Number(found.split('=')[1]) : undefined;
  };
  await runLidarrBench({ artists: arg('artists'), albumsPerArtist: arg('albums'), tracksPerAlbum: arg('tracks') });
}
