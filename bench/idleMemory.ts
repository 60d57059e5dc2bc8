/**
 * Idle memory after a scan (part of `npm run bench`; runnable alone with
 * `node --import tsx bench/idleMemory.ts`). A server process, started as `npm start` starts it, on a
 * fresh data folder with a music folder (watched, as by default), runs one full scan; then it is
 * left idle and its resident memory (VmRSS, with the npm start launcher's own pages) is sampled every second until the idle
 * time is over. The figure is the last sample. Scale with BENCH_SCAN_FILES; the idle time is
 * BENCH_IDLE_SECONDS (default 90: past the scan worker's idle exit after RUN_WORKER_IDLE_MS, 60 s,
 * when the server gives memory back). BENCH_NODE_ARGS adds node flags to the server process (e.g.
 * a preload that traces memory).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeMp3Template, writeTaggedMp3 } from '../test/fixtures/audio.js';
import { ADMIN, startTestServer } from '../test/helpers/server.js';
import { npmStartRss, serverPidOf, spawnNpmStart } from './serverProcess.js';

export interface IdleMemoryOptions {
  files: number;
  /** A music folder holding `files` audio files already; otherwise one is generated. */
  music?: string;
  idleSeconds: number;
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /** Extra node flags for the server process (e.g. a preload that traces memory). */
  nodeArgs?: string[];
  log?: (line: string) => void;
}

export interface IdleMemoryResult {
  files: number;
  scanSeconds: number;
  /** RSS in MB right after the scan, at its peak while idle, and at the end of the idle time. */
  rssAfterScanMb: number;
  rssPeakMb: number;
  idleRssMb: number;
  /** [seconds since the scan ended, RSS MB] */
  samples: [number, number][];
}

/**
 * Writes `files` tagged mp3s as artist/album/track, like a ripped library (500 artists, 2,000
 * albums); returns the audio template for more.
 */
export function generateMusic(dir: string, files: number, scratch: string): Buffer {
  const template = makeMp3Template(scratch);
  for (let i = 0; i < files; i++) {
    const artist = `Scan Artist ${i % 500}`;
    const album = `Scan Album ${i % 2000}`;
    writeTaggedMp3(path.join(dir, artist, album, `${i}.mp3`), template, { title: `Scan Track ${i}`, artist, album, track: (i % 10) + 1, genre: 'Bench' });
  }
  return template;
}

export async function idleMemoryAfterScan(options: IdleMemoryOptions): Promise<IdleMemoryResult> {
  const log = options.log ?? (() => {});
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-idle-'));
  const dataDir = path.join(root, 'data');
  const music = options.music ?? path.join(root, 'music');
  fs.mkdirSync(dataDir);
  try {
    // Onboard the data folder (in this process), then run the server as its own process.
    await (await startTestServer({ dataDir, env: { TONEARM_SCAN_ON_START: 'false' } })).stop();
    if (!options.music) {
      generateMusic(music, options.files, root);
      log(`  ${options.files} files written`);
    }
    const child = spawnNpmStart(options.nodeArgs ?? [], {
      env: {
        ...process.env, TONEARM_DATA_DIR: dataDir, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
        TONEARM_MUSIC_DIRS: music, TONEARM_SCAN_ON_START: 'false', ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += String(d);
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
      });
      const call = async (pathname: string, init: RequestInit = {}, token?: string) => {
        const res = await fetch(url + pathname, {
          ...init,
          headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        });
        if (!res.ok) throw new Error(`${pathname}: HTTP ${res.status}`);
        return res.json() as Promise<Record<string, unknown>>;
      };
      const serverPid = await serverPidOf(child.pid!);
      const { token } = (await call('/api/auth/login', { method: 'POST', body: JSON.stringify(ADMIN) })) as { token: string };
      const t0 = performance.now();
      const { jobId } = (await call('/api/library/refresh', { method: 'POST', body: JSON.stringify({ mode: 'full' }) }, token)) as { jobId: string };
      for (;;) {
        const job = await call(`/api/library/refresh/${jobId}`, {}, token);
        if (job.status === 'completed' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const scanSeconds = Math.round((performance.now() - t0) / 100) / 10;
      log(`  scanned in ${scanSeconds} s; idle for ${options.idleSeconds} s …`);
      const samples: [number, number][] = [];
      const tIdle = performance.now();
      for (;;) {
        const t = Math.round((performance.now() - tIdle) / 1000);
        samples.push([t, npmStartRss(child.pid!, serverPid).rss]);
        if (t >= options.idleSeconds) break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      const values = samples.map((s) => s[1]);
      return {
        files: options.files,
        scanSeconds,
        rssAfterScanMb: values[0]!,
        rssPeakMb: Math.max(...values),
        idleRssMb: values[values.length - 1]!,
        samples,
      };
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await idleMemoryAfterScan({
    files: Number(process.env.BENCH_SCAN_FILES ?? 20_000),
    idleSeconds: Number(process.env.BENCH_IDLE_SECONDS ?? 90),
    log: (line) => console.log(line),
    ...(process.env.BENCH_NODE_ARGS && { nodeArgs: process.env.BENCH_NODE_ARGS.split(' ') }),
  });
  const every = result.samples.filter(([t]) => t % 10 === 0).map(([t, mb]) => `${t}s:${mb}`).join(' ');
  console.log(`files ${result.files}, scan ${result.scanSeconds} s, RSS after scan ${result.rssAfterScanMb} MB, peak ${result.rssPeakMb} MB, idle ${result.idleRssMb} MB, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  samples ${every}`);
}
