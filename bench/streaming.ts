/**
 * Streaming benchmark (issue 25; `npm run bench:streaming`, also part of `npm run bench`): every path
 * that sends a file (the staging preview's from a held download the benchmark puts in the database), against the minimal Node server of bench/referenceStream.mjs reading the same
 * 50 MB FLAC in the same run, alternating (the ratio is the median of each read over the reference
 * read just before it), each in its own process. Then 8 players streaming it at
 * once while `/api/health/live` is sampled (target p99 ≤ 20 ms). BENCH_STREAM_MB sizes the file,
 * BENCH_STREAM_READS the reads per path.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { inTransaction, openWorkerConnection } from '../server/db/connection.js';
import { downloads } from '../server/db/downloads.js';

const MB = Number(process.env.BENCH_STREAM_MB ?? 50);
const READS = Number(process.env.BENCH_STREAM_READS ?? 20);
const ADMIN = { username: 'admin', password: 'bench password 1' };

function start(args: string[], env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** Reads a URL to the end; bytes and milliseconds. */
function read(url: string, headers: Record<string, string> = {}): Promise<{ bytes: number; ms: number }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ bytes, ms: performance.now() - t }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The liveness prober: GET every 10 ms until stdin closes, then the answer times as JSON. */
const PROBE = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const lags = [];
let on = true;
process.stdin.on('end', () => (on = false)).resume();
const once = () => new Promise((resolve, reject) => {
  const t = performance.now();
  http.get(process.argv[1], { agent }, (res) => { res.resume(); res.on('end', () => resolve(performance.now() - t)); }).on('error', reject);
});
(async () => {
  await once();
  process.stdout.write('ready\\n');
  while (on) { lags.push(await once()); await new Promise((r) => setTimeout(r, 10)); }
  process.stdout.write(JSON.stringify(lags));
  agent.destroy();
})();
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-stream-'));
  const music = path.join(root, 'music', 'Bench Artist', 'Bench Album');
  fs.mkdirSync(music, { recursive: true });
  const big = path.join(music, '01 Big.flac');
  // White noise barely compresses: about 10 MB of FLAC per minute of stereo 44.1 kHz.
  console.log(`making a ${MB} MB FLAC …`);
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `anoisesrc=d=${Math.ceil(MB * 13)}:c=white:a=0.5`, '-ac', '2', '-ar', '44100', '-sample_fmt', 's16',
    '-metadata', 'title=Big', '-metadata', 'artist=Bench Artist', '-metadata', 'album=Bench Album', '-fs', String(MB * 1024 * 1024), big]);
  const size = fs.statSync(big).size;
  const data = path.join(root, 'data');
  const ref = await start([path.join(import.meta.dirname, 'referenceStream.mjs'), big]);
  const tonearm = await start(['--import', 'tsx', 'server/index.ts'], {
    TONEARM_DATA_DIR: data, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', LOG_LEVEL: 'silent', TONEARM_MUSIC_DIRS: path.join(root, 'music'), TONEARM_LIBRARY_WATCH: 'false',
    // Streaming alone: no ReplayGain measurement of the new file competing for the CPU.
    TONEARM_REPLAYGAIN_ANALYSIS: 'false',
  });
  try {
    const api = async (p: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
      const res = await fetch(tonearm.url + p, {
        method: init.method ?? 'GET',
        headers: { 'content-type': 'application/json', ...(init.token && { authorization: `Bearer ${init.token}` }) },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      });
      return res.json() as Promise<any>;
    };
    await api('/api/onboarding/complete', { method: 'POST', json: { authUser: ADMIN.username, authPassword: ADMIN.password } });
    const { token } = await api('/api/auth/login', { method: 'POST', json: ADMIN });
    await api('/api/settings', { method: 'POST', token, json: { sharing: { enabled: true } } });
    let track: { id: number } | undefined;
    for (let i = 0; i < 600 && !track; i++) {
      track = (await api('/api/library/canonical?kind=tracks&pageSize=1', { token })).items?.[0];
      if (!track) await new Promise((r) => setTimeout(r, 100));
    }
    if (!track) throw new Error('the file was not scanned');
    const q = new URLSearchParams({ u: ADMIN.username, p: ADMIN.password, v: '1.16.1', c: 'bench', f: 'json' });
    const rest = async (method: string, params: Record<string, string>) =>
      (await (await fetch(`${tonearm.url}/rest/${method}?${q}&${new URLSearchParams(params)}`)).json()) as any;
    const song = (await rest('search3', { query: 'Big', songCount: '1', artistCount: '0', albumCount: '0' }))['subsonic-response'].searchResult3.song[0];
    const share = (await rest('createShare', { id: song.id }))['subsonic-response'].shares.share[0];
    const auth = { authorization: `Bearer ${token}` };
    // A download held for review, its file in the staging folder (as the pipeline leaves one).
    const held = path.join(data, 'downloads', '.staging', 'bench', '01 Big.flac');
    fs.mkdirSync(path.dirname(held), { recursive: true });
    fs.copyFileSync(big, held);
    const store = openWorkerConnection(path.join(data, 'tonearm.db'));
    const heldJob = inTransaction(store, () => {
      const job = downloads.insert(store, { userId: null, artistName: 'Bench Artist', trackName: 'Big', albumName: 'Bench Album' }, Date.now());
      return downloads.update(store, job.id, { status: 'blocked', blockReason: 'bench', stagingPath: held, blockedAt: Date.now() }, Date.now())!;
    });
    store.close();
    const paths: [string, string, Record<string, string>, number][] = [
      ['/rest/stream?format=raw', `${tonearm.url}/rest/stream?${q}&id=${song.id}&format=raw`, {}, size],
      ['/rest/download', `${tonearm.url}/rest/download?${q}&id=${song.id}`, {}, size],
      ['/rest/download (album zip)', `${tonearm.url}/rest/download?${q}&id=${song.albumId}`, {}, -1],
      ['/api/library/canonical-stream', `${tonearm.url}/api/library/canonical-stream/${track.id}`, auth, size],
      ['/share/<id>/<track>', `${share.url}/${song.id}`, {}, size],
      ['/api/playlists/staging-stream', `${tonearm.url}/api/playlists/staging-stream/${heldJob.id}`, auth, size],
    ];
    console.log(`\nstreaming a ${(size / 1048576).toFixed(1)} MB FLAC, ${READS} reads per path, alternating with the reference (${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    console.log('path'.padEnd(34), 'MB/s'.padStart(8), 'reference'.padStart(10), 'ratio'.padStart(7), '  target ≥ 90 %');
    const results: Record<string, unknown>[] = [];
    for (const [label, url, headers, expected] of paths) {
      const mine: number[] = [];
      const theirs: number[] = [];
      await read(url, headers); // warm the page cache and the route
      for (let i = 0; i < READS; i++) {
        const r = await read(ref.url + '/');
        theirs.push(r.bytes / 1048576 / (r.ms / 1000));
        const m = await read(url, headers);
        if (expected > 0 && m.bytes !== expected) throw new Error(`${label}: read ${m.bytes} of ${expected} bytes`);
        mine.push(m.bytes / 1048576 / (m.ms / 1000));
      }
      // Each read of a path is paired with the reference read just before it: the ratio is the median
      // of those pairs, so the host's speed drifting during the run (a shared machine) cancels out.
      const ratio = median(mine.map((m, i) => m / theirs[i]!));
      results.push({ path: label, MBps: Math.round(median(mine)), referenceMBps: Math.round(median(theirs)), ratio: Math.round(ratio * 100) });
      console.log(label.padEnd(34), String(Math.round(median(mine))).padStart(8), String(Math.round(median(theirs))).padStart(10), `${Math.round(ratio * 100)} %`.padStart(7), ratio >= 0.9 ? '  ok' : '  MISS');
    }

    // 8 players at once, while the liveness probe is timed every 10 ms from its own process, so the
    // figure is the server's answer time and not this process's loop, busy reading 8 streams.
    const probe = spawn(process.execPath, ['-e', PROBE, `${tonearm.url}/api/health/live`], { stdio: ['pipe', 'pipe', 'inherit'] });
    let probeOut = '';
    probe.stdout!.on('data', (d: Buffer) => (probeOut += String(d)));
    const probeDone = new Promise((r) => probe.once('exit', r));
    await new Promise<void>((r) => probe.stdout!.once('data', () => r())); // "ready"
    const t = performance.now();
    const all = await Promise.all(Array.from({ length: 8 }, () => read(`${tonearm.url}/rest/stream?${q}&id=${song.id}&format=raw`)));
    const seconds = (performance.now() - t) / 1000;
    probe.stdin!.end();
    await probeDone;
    const lags = JSON.parse(probeOut.slice(probeOut.indexOf('\n') + 1)) as number[];
    const total = all.reduce((n, r) => n + r.bytes, 0);
    const p99 = Math.round(pct(lags, 0.99) * 10) / 10;
    console.log(`\n8 concurrent streams: ${Math.round(total / 1048576 / seconds)} MB/s in all; /api/health/live p50 ${Math.round(pct(lags, 0.5) * 10) / 10} ms, p99 ${p99} ms (target ≤ 20) ${p99 <= 20 ? 'ok' : 'MISS'} over ${lags.length} probes`);
    fs.mkdirSync('bench-results', { recursive: true });
    fs.writeFileSync(path.join('bench-results', `streaming-${Date.now()}.json`), JSON.stringify({ sizeBytes: size, reads: READS, results, concurrent: { streams: 8, MBps: total / 1048576 / seconds, liveP99Ms: p99 } }, null, 2));
  } finally {
    await stop(tonearm.child);
    await stop(ref.child);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
