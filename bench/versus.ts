/**
 * Tonearm against a peer (issue 25; `npm run bench:versus`, not part of `npm test`): Debian's
 * supysonic and Tonearm, back to back on the same generated library of BENCH_VERSUS_FILES (10,000)
 * small tagged MP3s plus one BENCH_VERSUS_STREAM_MB (50) MB MP3, each in its own process, measured
 * from outside over HTTP the same way:
 *
 * - scan, no-op rescan and forced re-read of every file (supysonic: `supysonic-cli folder scan
 *   --foreground`, then again, then with `--force`; Tonearm: POST /api/library/refresh full, quick,
 *   full);
 * - search3, getAlbumList2, getAlbum, getArtists, getRandomSongs: BENCH_VERSUS_REQUESTS (200) requests
 *   by 1 and by 8 clients, requests/s and p95;
 * - /rest/stream?format=raw of the big file (median MB/s of 5 reads);
 * - a mixed player-like load, BENCH_VERSUS_MIXED (1,000) requests by 8 clients;
 * - idle RSS of the serving process BENCH_VERSUS_IDLE_SECONDS (90) after the last request.
 *
 * supysonic's WSGI app runs on werkzeug's threaded server (Debian packages none of the servers
 * supysonic-server knows: gunicorn, waitress, gevent), its watcher and daemon off; Tonearm runs with
 * its watcher and ReplayGain analysis off to match. When supysonic is missing and cannot be
 * installed, the benchmark says so and exits 0.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { writeTaggedMp3 } from '../test/fixtures/audio.js';
import { generateMusic } from './idleMemory.js';
import { catalogOf, closedLoop, mixedCase, restCall, restCases, streamThroughput, type LoadResult, type RestTarget } from './restLoad.js';
import { BENCH_ADMIN, rssOf, startTonearm } from './serverProcess.js';

const FILES = Number(process.env.BENCH_VERSUS_FILES ?? 10_000);
const REQUESTS = Number(process.env.BENCH_VERSUS_REQUESTS ?? 200);
const MIXED = Number(process.env.BENCH_VERSUS_MIXED ?? 1000);
const STREAM_MB = Number(process.env.BENCH_VERSUS_STREAM_MB ?? 50);
const IDLE_SECONDS = Number(process.env.BENCH_VERSUS_IDLE_SECONDS ?? 90);
const PYTHON = '/usr/bin/python3';
const CLI = '/usr/bin/supysonic-cli';

/** Why supysonic cannot run here (after trying to install it), or null. */
function supysonicMissing(): string | null {
  if (!fs.existsSync(CLI)) {
    const root = process.getuid?.() === 0;
    const apt = (args: string[]) => spawnSync(root ? 'apt-get' : 'sudo', root ? args : ['-n', 'apt-get', ...args], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (process.env.TONEARM_TEST_INSTALL !== 'false') {
      console.log('supysonic is not installed; trying apt-get install supysonic …');
      apt(['update', '-qq']);
      apt(['install', '-y', '-qq', 'supysonic']);
    }
    if (!fs.existsSync(CLI)) return 'supysonic is not installed and apt-get could not install it';
  }
  const r = spawnSync(PYTHON, ['-c', 'import supysonic.web, werkzeug.serving'], { encoding: 'utf8' });
  return r.status === 0 ? null : `supysonic's Python modules do not load: ${r.stderr.trim().split('\n').pop()}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

interface Side {
  name: string;
  scanSeconds: number;
  noopSeconds: number;
  forcedSeconds: number;
  cases: Record<string, { c1: LoadResult; c8: LoadResult }>;
  streamMBps: number;
  mixed: LoadResult;
  idleRssMb: number;
}

/** Everything measured over /rest, the same for both servers. */
async function measureRest(name: string, t: RestTarget, rssMb: () => number, bigBytes: number): Promise<Omit<Side, 'scanSeconds' | 'noopSeconds' | 'forcedSeconds'>> {
  const catalog = await catalogOf(t);
  const cases: Side['cases'] = {};
  for (const [label, make] of Object.entries(restCases(catalog))) {
    await closedLoop(t, make, 1, 5); // warm-up
    const c1 = await closedLoop(t, make, 1, REQUESTS);
    const c8 = await closedLoop(t, make, 8, REQUESTS);
    cases[label] = { c1, c8 };
    console.log(`  ${name} ${label}: ${c1.perSecond} req/s (p95 ${c1.p95} ms) by 1 client, ${c8.perSecond} req/s (p95 ${c8.p95} ms) by 8${c1.errors + c8.errors ? `, ${c1.errors + c8.errors} errors` : ''}`);
  }
  const big = ((await restCall(t, 'search3', { query: 'Big', artistCount: 0, albumCount: 0, songCount: 1 })).searchResult3?.song as { id: string }[] | undefined)?.[0];
  if (!big) throw new Error(`${name}: the big file is not in the library`);
  const streamMBps = await streamThroughput(t, big.id, bigBytes, 5);
  console.log(`  ${name} stream: ${streamMBps} MB/s`);
  const mixed = await closedLoop(t, mixedCase(catalog), 8, MIXED);
  console.log(`  ${name} mixed: ${mixed.perSecond} req/s, p95 ${mixed.p95} ms${mixed.errors ? `, ${mixed.errors} errors` : ''}`);
  console.log(`  ${name}: idle ${IDLE_SECONDS} s …`);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  return { name, cases, streamMBps, mixed, idleRssMb: rssMb() };
}

async function runSupysonic(dir: string, music: string, bigBytes: number): Promise<Side> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'supysonic.conf'), [
    '[base]', `database_uri = sqlite:///${path.join(dir, 'supysonic.db')}`,
    '[webapp]', `cache_dir = ${path.join(dir, 'cache')}`, 'mount_webui = off', 'log_level = WARNING',
    '[daemon]', `socket = ${path.join(dir, 'daemon.sock')}`, 'run_watcher = no', 'log_level = WARNING', '',
  ].join('\n'));
  // supysonic reads ./supysonic.conf and ~/.supysonic: cwd and HOME are its folder.
  const env = { ...process.env, HOME: dir };
  const cli = (...args: string[]) => {
    const t0 = performance.now();
    const r = spawnSync(CLI, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`supysonic-cli ${args.join(' ')}: ${r.stderr || r.stdout}`);
    return (performance.now() - t0) / 1000;
  };
  cli('user', 'add', BENCH_ADMIN.username, '--password', BENCH_ADMIN.password);
  cli('user', 'setroles', '--admin', BENCH_ADMIN.username);
  cli('folder', 'add', 'music', music);
  console.log('supysonic: scanning …');
  const scanSeconds = cli('folder', 'scan', '--foreground', 'music');
  const noopSeconds = cli('folder', 'scan', '--foreground', 'music');
  const forcedSeconds = cli('folder', 'scan', '--foreground', '--force', 'music');
  console.log(`  supysonic scan ${scanSeconds.toFixed(1)} s, no-op ${noopSeconds.toFixed(1)} s, forced ${forcedSeconds.toFixed(1)} s`);
  const port = await freePort();
  const server: ChildProcess = spawn(PYTHON, ['-c', [
    'import sys, logging',
    'from werkzeug.serving import run_simple',
    'from supysonic.web import create_application',
    'logging.getLogger("werkzeug").setLevel(logging.ERROR)',
    'run_simple("127.0.0.1", int(sys.argv[1]), create_application(), threaded=True)',
  ].join('\n'), String(port)], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr!.on('data', (d: Buffer) => (stderr = (stderr + String(d)).slice(-4000)));
  const exited = new Promise((r) => server.once('exit', r));
  try {
    const t: RestTarget = { url: `http://127.0.0.1:${port}`, ...BENCH_ADMIN };
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`supysonic exited: ${stderr}`);
      if (await restCall(t, 'ping').then(() => true, () => false)) break;
      if (i > 300) throw new Error(`supysonic did not answer: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { scanSeconds, noopSeconds, forcedSeconds, ...(await measureRest('supysonic', t, () => rssOf(server.pid!).rss, bigBytes)) };
  } finally {
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
}

async function runTonearm(dataDir: string, music: string, bigBytes: number): Promise<Side> {
  fs.mkdirSync(dataDir, { recursive: true });
  const server = await startTonearm({ dataDir, musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: 'false', TONEARM_REPLAYGAIN_ANALYSIS: 'false' } });
  try {
    console.log('Tonearm: scanning …');
    const scanSeconds = await server.scan('full');
    const noopSeconds = await server.scan('quick');
    const forcedSeconds = await server.scan('full');
    console.log(`  Tonearm scan ${scanSeconds.toFixed(1)} s, no-op ${noopSeconds.toFixed(1)} s, forced ${forcedSeconds.toFixed(1)} s`);
    return { scanSeconds, noopSeconds, forcedSeconds, ...(await measureRest('Tonearm', { url: server.url, ...BENCH_ADMIN }, () => server.memory().rss, bigBytes)) };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const missing = supysonicMissing();
  if (missing) {
    console.log(`bench:versus skipped: ${missing}.`);
    return;
  }
  const version = spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'supysonic'], { encoding: 'utf8' }).stdout || 'unknown version';
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-versus-'));
  const music = path.join(root, 'music');
  try {
    console.log(`generating ${FILES} tagged MP3s and one ${STREAM_MB} MB MP3 …`);
    const template = generateMusic(music, FILES, root);
    const big = path.join(music, 'Big', 'Big', 'big.mp3');
    writeTaggedMp3(big, Buffer.concat(Array.from({ length: Math.ceil((STREAM_MB * 1048576) / template.length) }, () => template)), { title: 'Big', artist: 'Big', album: 'Big', track: 1 });
    const bigBytes = fs.statSync(big).size;
    const supy = await runSupysonic(path.join(root, 'supysonic'), music, bigBytes);
    const tonearm = await runTonearm(path.join(root, 'tonearm'), music, bigBytes);

    // Tonearm's advantage: how many times faster, more or smaller it is (above 1: Tonearm ahead).
    const rows: [string, number, number, string, 'lower' | 'higher'][] = [
      ['scan (s)', tonearm.scanSeconds, supy.scanSeconds, 's', 'lower'],
      ['no-op rescan (s)', tonearm.noopSeconds, supy.noopSeconds, 's', 'lower'],
      ['forced re-read (s)', tonearm.forcedSeconds, supy.forcedSeconds, 's', 'lower'],
      [`idle RSS (MB, ${IDLE_SECONDS} s idle)`, tonearm.idleRssMb, supy.idleRssMb, 'MB', 'lower'],
    ];
    for (const label of Object.keys(tonearm.cases)) {
      for (const c of ['c1', 'c8'] as const) {
        rows.push([`${label} ×${c === 'c1' ? 1 : 8} (req/s)`, tonearm.cases[label]![c].perSecond, supy.cases[label]![c].perSecond, 'req/s', 'higher']);
        rows.push([`${label} ×${c === 'c1' ? 1 : 8} p95 (ms)`, tonearm.cases[label]![c].p95, supy.cases[label]![c].p95, 'ms', 'lower']);
      }
    }
    rows.push(['stream raw (MB/s)', tonearm.streamMBps, supy.streamMBps, 'MB/s', 'higher']);
    rows.push(['mixed ×8 (req/s)', tonearm.mixed.perSecond, supy.mixed.perSecond, 'req/s', 'higher']);
    rows.push(['mixed ×8 p95 (ms)', tonearm.mixed.p95, supy.mixed.p95, 'ms', 'lower']);
    const fmt = (n: number) => (n >= 100 ? String(Math.round(n)) : n.toFixed(n >= 10 ? 1 : 2));
    console.log(`\nTonearm vs supysonic ${version}: ${FILES} files + one ${(bigBytes / 1048576).toFixed(0)} MB file, ${os.cpus().length} CPUs, load at start ${loadAtStart.join(' ')}, at end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log('(ratio: how many times better Tonearm is; above 1 Tonearm is ahead)\n');
    console.log('measure'.padEnd(34), 'Tonearm'.padStart(10), 'supysonic'.padStart(10), 'ratio'.padStart(8));
    const out = rows.map(([label, mine, theirs, , better]) => {
      const ratio = better === 'lower' ? theirs / Math.max(mine, 1e-9) : mine / Math.max(theirs, 1e-9);
      console.log(label.padEnd(34), fmt(mine).padStart(10), fmt(theirs).padStart(10), `${ratio.toFixed(2)}×`.padStart(8));
      return { measure: label, tonearm: mine, supysonic: theirs, ratio: Math.round(ratio * 100) / 100 };
    });
    const errors = [tonearm, supy].flatMap((s) => [s.mixed, ...Object.values(s.cases).flatMap((c) => [c.c1, c.c8])].map((r) => r.errors)).reduce((a, b) => a + b, 0);
    if (errors) console.log(`\n${errors} requests were answered with a status other than 200`);
    fs.mkdirSync('bench-results', { recursive: true });
    const file = path.join('bench-results', `versus-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify({ files: FILES, supysonic: version, loadAtStart, rows: out, tonearm, supysonicDetail: supy }, null, 2));
    console.log(`\nwritten ${file}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
