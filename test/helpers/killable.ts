import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { OFFLINE_UPSTREAMS } from './offline.js';
import { ADMIN } from './server.js';

/**
 * The real server as a child process (`server/index.ts` through tsx, in its own process group), for
 * tests that kill it with SIGKILL and start it again on the same data folder: what
 * test/downloads/recovery.test.ts and test/library/replaygain-kill.test.ts do, shared.
 */
const repo = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  url: string;
  /** SIGKILL to the whole process group (a container stop without grace); resolves once it is gone. */
  kill(): Promise<void>;
}

export function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: repo,
    detached: true,
    env: { ...process.env, ...OFFLINE_UPSTREAMS, LOG_LEVEL: 'warn', TONEARM_HOST: '127.0.0.1', TONEARM_PORT: '0', TONEARM_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const kill = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(-proc.pid!, 'SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m) resolve({ url: m[1]!, kill });
    });
    proc.on('exit', () => reject(new Error(`server exited: ${err}`)));
  });
}

/** Completes onboarding with the test administrator and returns a session token. */
export async function onboard(url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${url}/api/onboarding/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authUser: ADMIN.username, authPassword: ADMIN.password, ...extra }),
  });
  if (res.status !== 200) throw new Error(`onboarding answered ${res.status}: ${await res.text()}`);
  return login(url);
}

export async function login(url: string, user: { username: string; password: string } = ADMIN): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) });
  return ((await res.json()) as { token: string }).token;
}

export async function call(url: string, token: string, p: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url + p, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.json !== undefined && { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A query on the data folder's database from outside the server ([] before it is migrated). */
export function query<T>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const file = path.join(dataDir, 'tonearm.db');
  if (!fs.existsSync(file)) return [];
  const d = new Database(file, { timeout: 5000, readonly: true });
  try {
    return d.prepare(sql).all(...params) as T[];
  } catch {
    return [];
  } finally {
    d.close();
  }
}
