/**
 * A Tonearm server as its own process, started as `npm start` starts it (scripts/start.mjs, which
 * runs node --import tsx server/index.ts as its child with npm start's node flags and, on Linux,
 * MALLOC_ARENA_MAX), onboarded over HTTP, for the benchmarks that measure the process from outside
 * (bench/versus.ts, bench/memory.ts): its resident memory is read from /proc, and the launcher's
 * own pages count with it.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { ADMIN } from '../test/helpers/server.js';

/**
 * Starts the server as `npm start` does, without npm: node scripts/start.mjs (the launcher), with
 * `nodeArgs` passed on to the server process. The returned process is the launcher.
 */
export function spawnNpmStart(nodeArgs: string[], options: SpawnOptions): ChildProcess {
  return spawn(process.execPath, ['scripts/start.mjs', ...nodeArgs], options);
}

/** The server process under an npm start launcher: its only child (/proc/<pid>/task/<pid>/children). */
export async function serverPidOf(launcherPid: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const children = fs.readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, 'utf8').trim();
    if (children) return Number(children.split(' ')[0]);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no server process under ${launcherPid}`);
}

/** The administrator of every benchmark data folder (the seeded ones of bench/library.ts too). */
export const BENCH_ADMIN = ADMIN;

export interface TonearmProcess {
  url: string;
  /** The server process (the launcher's child). */
  pid: number;
  /** Resident memory as npm start runs it: the server's plus the launcher's own (npmStartRss). */
  memory(): Rss;
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
  /** With a launcher: the pages only it holds (Private_Clean + Private_Dirty), included in `rss`. */
  launcher?: number;
}

/** Resident memory of a process from /proc/<pid>/status. */
export function rssOf(pid: number): Rss {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key: string) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile') + mb('RssShmem') };
}

/**
 * Memory of a server run by npm start's launcher: the server's resident memory plus what only the
 * launcher holds. The launcher's other resident pages (node's code, shared libraries) are the same
 * physical pages as the server's, so adding its whole VmRSS would count them twice.
 */
export function npmStartRss(launcherPid: number, serverPid: number): Rss {
  const server = rssOf(serverPid);
  const rollup = fs.readFileSync(`/proc/${launcherPid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
  const launcher = Math.round((kb('Private_Clean') + kb('Private_Dirty')) / 1024);
  return { ...server, rss: server.rss + launcher, launcher };
}

/**
 * Starts the server on `dataDir` (onboarding it when new) with `musicDirs`; no start-up scan, so
 * every scan is one the caller asks for. `env` adds to or overrides the environment.
 */
export async function startTonearm(options: { dataDir: string; musicDirs?: string[]; env?: Record<string, string>; nodeArgs?: string[] }): Promise<TonearmProcess> {
  const child = spawnNpmStart(options.nodeArgs ?? [], {
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
  const pid = await serverPidOf(child.pid!);
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
    pid,
    memory: () => npmStartRss(child.pid!, pid),
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
