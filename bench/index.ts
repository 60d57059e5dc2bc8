/**
 * Library benchmark (`npm run bench`; not part of `npm test`). Seeds a synthetic library through the
 * store, measures canonical pages, artists and lookups over HTTP on loopback, scans generated audio
 * files while sampling main-thread event-loop lag, compares streaming with a raw file read, and
 * records the idle RSS of a server process on the seeded database and of one after scanning the
 * generated files (bench/idleMemory.ts). Scale with BENCH_TRACKS and BENCH_SCAN_FILES; the idle time
 * before that last sample is BENCH_IDLE_SECONDS. Prints a table and writes JSON under bench-results/.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ADMIN, startTestServer, type TestServer } from '../test/helpers/server.js';
import { writeTaggedMp3 } from '../test/fixtures/audio.js';
import { generateMusic, idleMemoryAfterScan } from './idleMemory.js';
import { runDiscoveryBench } from './discovery.js';
import { runNewsBench } from './news.js';
import { runFlowsBench } from './flows.js';
import { runInboxBench } from './inbox.js';
import { runDownloadJobsBench } from './downloadJobs.js';
import { runDownloadsBench } from './downloads.js';
import { runJobsBench } from './jobs.js';
import { runScanBench } from './scan.js';
import { asNpmStart } from './asNpmStart.js';
import { runScrobblingBench } from './scrobbling.js';
import { runPlaybackBench } from './playback.js';
import { runImportsBench } from './imports.js';
import { runMetadataBench } from './metadata.js';
import { runLidarrBench } from './lidarr.js';
import { benchSubsonic } from './subsonic.js';
import { libraryShape, seededLibrary } from './library.js';
import { npmStartRss, serverPidOf, spawnNpmStart } from './serverProcess.js';

const TRACKS = Number(process.env.BENCH_TRACKS ?? 1_000_000);
const { albums: ALBUMS, artists: ARTISTS, genres: GENRES } = libraryShape(TRACKS);
const SCAN_FILES = Number(process.env.BENCH_SCAN_FILES ?? 20_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 60);
/** Idle time before the idle-RSS-after-scan sample (past the run worker's one-minute idle exit). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 90);

interface Row { case: string; p50: number; p95: number; p99: number; target: string; pass: boolean | null }
const rows: Row[] = [];
const extra: Record<string, number> = {};

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

/** The seeded database for this size (BENCH_SEED_CACHE reuses one; see bench/library.ts). */
async function seededDatabase(dataDir: string): Promise<void> {
  const seeded = await seededLibrary(dataDir, TRACKS);
  if (seeded) Object.assign(extra, seeded);
}

async function measure(server: TestServer, label: string, url: string | (() => [string, RequestInit]), targetMs: number): Promise<void> {
  const call = async () => {
    const [u, init] = typeof url === 'string' ? [url, {}] : url();
    const t = performance.now();
    const res = await fetch(server.url + u, { ...init, headers: { ...server.admin.headers, ...(init.headers as Record<string, string>) } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${label}: HTTP ${res.status}`);
    return performance.now() - t;
  };
  for (let i = 0; i < 5; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) times.push(await call());
  const row = { case: label, p50: pct(times, 0.5), p95: pct(times, 0.95), p99: pct(times, 0.99), target: `p95 ≤ ${targetMs} ms`, pass: false };
  row.pass = row.p95 <= targetMs;
  rows.push(row);
  console.log(`  ${label}: p50 ${row.p50} p95 ${row.p95} p99 ${row.p99} ms${row.pass ? '' : '  MISS'}`);
}

async function waitForScan(server: TestServer, jobId: string): Promise<void> {
  for (;;) {
    const j = (await (await server.api(`/api/library/refresh/${jobId}`, { headers: server.admin.headers })).json()) as { status: string };
    if (j.status === 'completed' || j.status === 'failed') return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const loadAtStart = os.loadavg().map((l) => l.toFixed(2));

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-'));
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir);
  const music = path.join(root, 'music');
  try {
    // 1. A server creates and onboards the database; then the library is seeded into it.
    await seededDatabase(dataDir);

    // 2. Page reads over HTTP.
    let server = await startTestServer({ dataDir });
    const genreJson = (await (await server.api('/api/library/canonical?kind=genres&pageSize=1&sort=count', { headers: server.admin.headers })).json()) as { items: { name: string; artistCount: number; albumCount: number; trackCount: number }[] };
    const top = genreJson.items[0]!;
    const genre = { items: [{ name: top.name, counts: { artists: top.artistCount, albums: top.albumCount, tracks: top.trackCount } }] };
    const genreName = encodeURIComponent(genre.items[0]!.name);
    const sorts = { artists: ['name', 'newest'], albums: ['name', 'newest', 'year', 'artist'], tracks: ['name', 'newest', 'artist', 'album'] } as const;
    const opposite = (sort: string) => (['newest', 'added', 'count'].includes(sort) ? 'asc' : 'desc');
    for (const [kind, list] of Object.entries(sorts)) {
      const pages = Math.ceil((kind === 'tracks' ? TRACKS : kind === 'albums' ? ALBUMS : ARTISTS) / 100);
      for (const sort of list) {
        await measure(server, `${kind} sort=${sort}`, `/api/library/canonical?kind=${kind}&pageSize=100&sort=${sort}`, 25);
        await measure(server, `${kind} sort=${sort} ${opposite(sort)}`, `/api/library/canonical?kind=${kind}&pageSize=100&sort=${sort}&direction=${opposite(sort)}`, 25);
        await measure(server, `${kind} sort=${sort} last page`, `/api/library/canonical?kind=${kind}&pageSize=100&sort=${sort}&page=${pages}`, 25);
        await measure(server, `${kind} sort=${sort} genre filter`, `/api/library/canonical?kind=${kind}&pageSize=100&sort=${sort}&genre=${genreName}`, 25);
      }
      const genrePages = Math.ceil(genre.items[0]!.counts[kind as 'tracks'] / 100);
      await measure(server, `${kind} genre filter last page`, `/api/library/canonical?kind=${kind}&pageSize=100&genre=${genreName}&page=${genrePages}`, 25);
      await measure(server, `${kind} search "kalo"`, `/api/library/canonical?kind=${kind}&pageSize=100&query=kalo`, 50);
      await measure(server, `${kind} search "kalo" newest`, `/api/library/canonical?kind=${kind}&pageSize=100&query=kalo&sort=newest`, 50);
      await measure(server, `${kind} search "東京"`, `/api/library/canonical?kind=${kind}&pageSize=100&query=${encodeURIComponent('東京')}`, 50);
      await measure(server, `${kind} search "bjork" (Björk)`, `/api/library/canonical?kind=${kind}&pageSize=100&query=bjork`, 50);
    }
    await measure(server, 'genres', '/api/library/canonical?kind=genres&pageSize=100', 25);
    await measure(server, 'artists first page (limit 50)', '/api/library/artists?limit=50', 25);
    await measure(server, 'artists limit=10000', '/api/library/artists?limit=10000', 300);
    const mbids = Array.from({ length: 100 }, (_, i) => `bench-artist-${(i * 97) % ARTISTS}`);
    await measure(server, 'lookup/batch 100 mbids', () => ['/api/library/lookup/batch', { method: 'POST', body: JSON.stringify({ mbids }), headers: { 'content-type': 'application/json' } }], 25);
    await server.stop();

    // Artist pages from the metadata layer on the same 1M-track library (BENCH_METADATA=0 skips it).
    if (process.env.BENCH_METADATA !== '0') Object.assign(extra, await runMetadataBench(dataDir, REPEAT));

    // 3. Idle RSS of a real server process on the seeded database.
    extra.idleRssMb = await idleRss(dataDir);

    // 4. Scanning generated files, with event-loop lag sampled on the server's main thread.
    const template = generateMusic(music, SCAN_FILES, root);
    const big = path.join(music, 'Big', 'Big', 'big.mp3');
    const repeats = Math.ceil((50 * 1024 * 1024) / template.length);
    writeTaggedMp3(big, Buffer.concat(Array.from({ length: repeats }, () => template)), { title: 'Big', artist: 'Big', album: 'Big', track: 1 });
    // No start-up scan: the measured full scan is the only one.
    server = await startTestServer({ dataDir, musicDirs: [music], env: { TONEARM_SCAN_ON_START: 'false' } });
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const tScan = performance.now();
    const full = (await (await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'full' }, headers: server.admin.headers })).json()) as { jobId: string };
    await waitForScan(server, full.jobId);
    const scanSeconds = (performance.now() - tScan) / 1000;
    lag.disable();
    extra.scanFilesPerSecond = Math.round((SCAN_FILES + 1) / scanSeconds);
    extra.scanLagP99Ms = Math.round(lag.percentile(99) / 1e4) / 100;
    let t = performance.now();
    const noop = (await (await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'quick' }, headers: server.admin.headers })).json()) as { jobId: string };
    await waitForScan(server, noop.jobId);
    extra.noopRescanSeconds = Math.round((performance.now() - t) / 10) / 100;
    // One changed file, as the watcher reports it: time from the write until search finds the new
    // title, less the debounce (the quiet time the watcher waits on purpose).
    const debounceMs = 1000;
    await server.api('/api/settings', { method: 'POST', json: { library: { watchDebounceMs: debounceMs } }, headers: server.admin.headers });
    await server.ctx.library.scans.whenWatching();
    const changed = path.join(music, 'Scan Artist 1', 'Scan Album 1', '1.mp3');
    writeTaggedMp3(changed, template, { title: 'Changed Watched', artist: 'Scan Artist 1', album: 'Scan Album 1', track: 2 });
    t = performance.now();
    for (;;) {
      const found = (await (await server.api('/api/library/canonical?kind=tracks&pageSize=1&query=changed%20watched', { headers: server.admin.headers })).json()) as { total: number };
      if (found.total > 0) break;
      if (performance.now() - t > 120_000) throw new Error('the watcher never picked up the changed file');
      await new Promise((r) => setTimeout(r, 10));
    }
    extra.oneChangedFileSeconds = Math.round((performance.now() - t - debounceMs) / 10) / 100;
    // The same through a requested quick scan, which walks every folder.
    writeTaggedMp3(changed, template, { title: 'Changed Requested', artist: 'Scan Artist 1', album: 'Scan Album 1', track: 3 });
    t = performance.now();
    const one = (await (await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'quick' }, headers: server.admin.headers })).json()) as { jobId: string };
    await waitForScan(server, one.jobId);
    extra.requestedQuickScanOneChangedSeconds = Math.round((performance.now() - t) / 10) / 100;

    // 5. The Subsonic API on the same 1M-track library (plus the scanned files, whose real audio
    // gives the cached-transcode case a song to transcode).
    const restQuery = new URLSearchParams({ u: ADMIN.username, p: ADMIN.password, v: '1.16.1', c: 'bench', f: 'json', query: 'Scan Track 7', songCount: '1', artistCount: '0', albumCount: '0' });
    const found = (await (await fetch(`${server.url}/rest/search3?${restQuery}`)).json()) as { 'subsonic-response': { error?: unknown; searchResult3?: { song?: { id: string }[] } } };
    if (!found['subsonic-response'].searchResult3) throw new Error(`/rest search3 failed: ${JSON.stringify(found['subsonic-response'].error)}`);
    const transcodeSongId = found['subsonic-response'].searchResult3.song?.[0]?.id;
    console.log('measuring /rest …');
    for (const row of await benchSubsonic({ url: server.url, username: ADMIN.username, password: ADMIN.password, ...(transcodeSongId && { transcodeSongId }) })) {
      rows.push(row);
      console.log(`  ${row.case}: p50 ${row.p50} p95 ${row.p95} p99 ${row.p99} ms${row.pass === false ? '  MISS' : ''}`);
    }

    // 6. Streaming a 50 MB file against a raw read of it. The server runs in its own process (as in
    // production), so the client reading the response does not share its event loop.
    const bigTrack = (await (await server.api('/api/library/canonical?kind=tracks&pageSize=1&query=big', { headers: server.admin.headers })).json()) as { items: { id: number }[] };
    await server.stop();
    const child = await startServerProcess(dataDir);
    try {
      const login = (await (await fetch(`${child.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })).json()) as { token: string };
      const size = fs.statSync(big).size;
      const rawTimes: number[] = [];
      const httpTimes: number[] = [];
      for (let i = 0; i < 7; i++) {
        let s = performance.now();
        await new Promise<void>((resolve, reject) => fs.createReadStream(big).on('data', () => {}).on('end', resolve).on('error', reject));
        rawTimes.push(performance.now() - s);
        s = performance.now();
        const received = await new Promise<number>((resolve, reject) => {
          http.get(`${child.url}/api/library/canonical-stream/${bigTrack.items[0]!.id}`, { headers: { authorization: `Bearer ${login.token}` } }, (res) => {
            let n = 0;
            res.on('data', (chunk: Buffer) => (n += chunk.length)).on('end', () => resolve(n)).on('error', reject);
          }).on('error', reject);
        });
        if (received !== size) throw new Error(`streamed ${received} of ${size} bytes`);
        httpTimes.push(performance.now() - s);
      }
      extra.rawReadMBps = Math.round(size / 1048576 / (pct(rawTimes, 0.5) / 1000));
      extra.streamMBps = Math.round(size / 1048576 / (pct(httpTimes, 0.5) / 1000));
    } finally {
      await child.stop();
    }

    // 7. Memory at rest: a server process on a fresh data folder scans the same music folder, then
    // idles for IDLE_SECONDS (past the scan worker's idle exit) with its RSS sampled every second.
    console.log(`idle memory after scanning ${SCAN_FILES} files (${IDLE_SECONDS} s idle) …`);
    const idle = await idleMemoryAfterScan({ files: SCAN_FILES + 1, music, idleSeconds: IDLE_SECONDS });
    extra.rssAfterScanMb = idle.rssAfterScanMb;
    extra.idleRssAfterScanMb = idle.idleRssMb;
    extra.idleScanFilesPerSecond = Math.round((SCAN_FILES + 1) / idle.scanSeconds);
    console.log(`  RSS ${idle.rssAfterScanMb} MB after the scan, ${idle.idleRssMb} MB after ${IDLE_SECONDS} s idle`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }

  const checks = [
    ['scan files/s', extra.scanFilesPerSecond!, '≥ 500', extra.scanFilesPerSecond! >= 500],
    ['no-op rescan s', extra.noopRescanSeconds!, '≤ 5', extra.noopRescanSeconds! <= 5],
    ['one changed file s (watcher, after debounce)', extra.oneChangedFileSeconds!, '≤ 1', extra.oneChangedFileSeconds! <= 1],
    ['requested quick scan, one changed file s', extra.requestedQuickScanOneChangedSeconds!, '(info)', null],
    ['event-loop lag p99 ms during scan', extra.scanLagP99Ms!, '≤ 20', extra.scanLagP99Ms! <= 20],
    ['stream / raw throughput %', Math.round((extra.streamMBps! / extra.rawReadMBps!) * 100), '≥ 80', extra.streamMBps! / extra.rawReadMBps! >= 0.8],
    [`idle RSS MB (${TRACKS}-track db, at start)`, extra.idleRssMb!, '≤ 300', extra.idleRssMb! <= 300],
    [`idle RSS MB after a ${SCAN_FILES}-file scan`, extra.idleRssAfterScanMb!, `≤ 200 (${IDLE_SECONDS} s idle)`, extra.idleRssAfterScanMb! <= 200],
  ] as const;
  const load = os.loadavg().map((l) => l.toFixed(2));
  console.log(`\nTonearm library benchmark: ${TRACKS} tracks, ${SCAN_FILES} scanned files, ${os.cpus().length} CPUs, load ${load.join(' ')} (at start ${loadAtStart.join(' ')})\n`);
  console.log('case'.padEnd(40), 'p50'.padStart(8), 'p95'.padStart(8), 'p99'.padStart(8), '  target');
  for (const r of rows) console.log(r.case.padEnd(40), String(r.p50).padStart(8), String(r.p95).padStart(8), String(r.p99).padStart(8), `  ${r.target} ${r.pass ? 'ok' : 'MISS'}`);
  for (const [label, value, target, pass] of checks) console.log(label.padEnd(40), String(value).padStart(8), ''.padStart(17), `  ${target} ${pass === null ? '' : pass ? 'ok' : 'MISS'}`);
  fs.mkdirSync('bench-results', { recursive: true });
  const out = path.join('bench-results', `library-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, JSON.stringify({ tracks: TRACKS, albums: ALBUMS, artists: ARTISTS, genres: GENRES, scanFiles: SCAN_FILES, loadAverage: { start: loadAtStart, end: load }, pages: rows, ...extra }, null, 2));
  console.log(`\nwritten ${out}`);

  // Lidarr indexing (8,000 artists / 80,000 albums / 800,000 tracks by default); BENCH_LIDARR=0 skips it.
  if (process.env.BENCH_LIDARR !== '0') {
    console.log('\nLidarr indexing benchmark …');
    const scale = Number(process.env.BENCH_LIDARR_ARTISTS ?? 8000);
    // It prints its own table and writes its own JSON file.
    await runLidarrBench({ artists: scale });
  }
  // Scanning (issue 25): fresh scan files/s and a forced re-read of 10,000 small MP3s, with the
  // event-loop p99 during both (BENCH_SCAN_BENCH_FILES sets the count); BENCH_SCAN=0 skips it.
  if (process.env.BENCH_SCAN !== '0') await runScanBench({ files: Number(process.env.BENCH_SCAN_BENCH_FILES ?? 10_000) });
  // Job queue throughput (10,000 no-op jobs); BENCH_JOBS=0 skips it.
  if (process.env.BENCH_JOBS !== '0') await runJobsBench();
  // Self-managed downloads (issue 12): the job list with 100,000 stored jobs, then 1,000 track jobs
  // through the pipeline against the slskd fake at concurrency 3 and 8; BENCH_DOWNLOADS=0 skips both.
  if (process.env.BENCH_DOWNLOADS !== '0') {
    await runDownloadJobsBench();
    await runDownloadsBench();
  }
  // Discovery (issue 13): a full refresh for 10,000 library and 2,000 history artists; BENCH_DISCOVERY=0 skips it.
  if (process.env.BENCH_DISCOVERY !== '0') await runDiscoveryBench();
  // Artist news (issue 13): GET /api/news with 50,000 stored articles; BENCH_NEWS=0 skips it.
  if (process.env.BENCH_NEWS !== '0') await runNewsBench();
  // Flows (issue 14): planning a 100-track flow from a warm discovery cache; BENCH_FLOWS=0 skips it.
  if (process.env.BENCH_FLOWS !== '0') await runFlowsBench();
  // Inbox (issue 13): GET /api/inbox from a stored inbox of several thousand items; BENCH_INBOX=0 skips it.
  if (process.env.BENCH_INBOX !== '0') await runInboxBench();
  // Scrobble forwarding (issue 15): what the outbox adds to /rest/scrobble; BENCH_SCROBBLE=0 skips it.
  if (process.env.BENCH_SCROBBLE !== '0') await runScrobblingBench();
  // Playback destinations (issue 15): a 500-track playlist published to the Navidrome fake, supysonic and the Plex fake
  // (BENCH_PLAYBACK_TRACKS sets the count); BENCH_PLAYBACK=0 skips it.
  if (process.env.BENCH_PLAYBACK !== '0') await runPlaybackBench();
  // Playlist imports (issue 15): preview of a 10,000-track Spotify playlist; BENCH_IMPORTS=0 skips it.
  if (process.env.BENCH_IMPORTS !== '0') await runImportsBench();
}

/** Starts `server/index.ts` as its own process on the seeded data (no scans, no watcher). */
async function startServerProcess(dataDir: string): Promise<{ url: string; rssMb(): number; stop(): Promise<void> }> {
  const child = spawnNpmStart([], {
    env: {
      ...process.env, TONEARM_DATA_DIR: dataDir, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
      TONEARM_SCAN_ON_START: 'false', TONEARM_LIBRARY_WATCH: 'false',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  const pid = await serverPidOf(child.pid!);
  return {
    url,
    rssMb: () => npmStartRss(child.pid!, pid).rss,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Resident memory of a server process on the seeded database, once idle. */
async function idleRss(dataDir: string): Promise<number> {
  const child = await startServerProcess(dataDir);
  await new Promise((r) => setTimeout(r, 3000));
  const rss = child.rssMb();
  await child.stop();
  return rss;
}

// The in-process servers run as npm start runs the server (its node flags and malloc setting).
await asNpmStart();
await main();
