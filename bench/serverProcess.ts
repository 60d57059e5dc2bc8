/**
 * A Tonearm server as its own process, started as `npm start` starts it (node --import tsx
 * server/index.ts), onboarded over HTTP, for the benchmarks that measure the process from outside
 * (bench/versus.ts, bench/memory.ts): its resident memory is read from /proc.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { ADMIN } from '../test/helpers/server.js';

/** The node flags of `npm start` (package.json), so the benchmarks measure the server as it runs. */
export const NPM_START_NODE_ARGS = ['--max-semi-space-size=4'];

/** The administrator of every benchmark data folder (the seeded ones of bench/library.ts too). */
export const BENCH_ADMIN = ADMIN;

export interface TonearmProcess {
  url: string;
  pid: number;
  token: string;
  api(pathname: string, init?: { method?: string; json?: unknown }): Promise<any>;
  /** Runs a scan of the music folders (`quick` or `full`) to its end; seconds. */
  scan(mode: 'quick' | 'full'): Promise<number>;
  stop(): Promise<void>;
}

export interface Rss {
  /** VmRSS, RssAnon (heaps, malloc arenas), RssFile (mapped files: code, the mmapped database) in MB. */
  rss: number;
  anon: number;
  file: number;
}

/** Resident memory of a process from /proc/<pid>/status. */
export function rssOf(pid: number): Rss {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key: string) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile') + mb('RssShmem') };
}

/**
 * Starts the server on `dataDir` (onboarding it when new) with `musicDirs`; no start-up scan, so
 * every scan is one the caller asks for. `env` adds to or overrides the environment.
 */
export async function startTonearm(options: { dataDir: string; musicDirs?: string[]; env?: Record<string, string>; nodeArgs?: string[] }): Promise<TonearmProcess> {
  const child = spawn(process.execPath, [...NPM_START_NODE_ARGS, ...(options.nodeArgs ?? []), '--import', 'tsx', 'server/index.ts'], {
    env: {
      ...process.env, TONEARM_DATA_DIR: options.dataDir, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
      // A benchmark is one client making many thousands of requests: no per-client request limit.
      TONEARM_SCAN_ON_START: 'false', RATE_LIMIT_MAX: '100000000', ...(options.musicDirs && { TONEARM_MUSIC_DIRS: options.musicDirs.join(':') }), ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  let token = '';
  const api = async (pathname: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(url + pathname, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${pathname}: HTTP ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  try {
    // Accepted only until onboarding completes: on an existing data folder it fails, and that is fine.
    await api('/api/onboarding/complete', { method: 'POST', json: { authUser: BENCH_ADMIN.username, authPassword: BENCH_ADMIN.password } }).catch(() => null);
    token = ((await api('/api/auth/login', { method: 'POST', json: BENCH_ADMIN })) as { token: string }).token;
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
  return {
    url,
    pid: child.pid!,
    token,
    api,
    async scan(mode) {
      const t0 = performance.now();
      const { jobId } = (await api('/api/library/refresh', { method: 'POST', json: { mode } })) as { jobId: string };
      for (;;) {
        const job = (await api(`/api/library/refresh/${jobId}`)) as { status: string; error?: string };
        if (job.status === 'failed') throw new Error(`scan failed: ${job.error ?? ''}`);
        if (job.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 200));
      }
      return (performance.now() - t0) / 1000;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
