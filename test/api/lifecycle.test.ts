import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE_UPSTREAMS } from '../helpers/offline.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';

const repo = path.resolve(import.meta.dirname, '../..');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-life-'));
const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Runs the real entry point as `npm start` does, and collects its output. */
function runServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: repo,
    env: { ...process.env, ...OFFLINE_UPSTREAMS, LOG_LEVEL: 'warn', TONEARM_HOST: '127.0.0.1', TONEARM_PORT: '0', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /^listening on (http:\/\/\S+)$/m.exec(stdout);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`exited before ready: ${stderr}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('process lifecycle', () => {
  it('prints the ready line, answers liveness, and stops cleanly on SIGTERM within 5 s', async () => {
    const dataDir = tmp();
    const run = runServer({ TONEARM_DATA_DIR: dataDir });
    const url = await run.ready;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${url}/api/health/live`)).json()).toEqual({ status: 'ok' });
    const started = Date.now();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    const mode = fs.statSync(path.join(dataDir, 'secrets', 'session.key')).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('stops with one clear line naming a bad environment variable', async () => {
    const run = runServer({ TONEARM_PORT: 'eighty', TONEARM_DATA_DIR: tmp() });
    expect(await run.exited).toBe(2);
    expect(run.output().stderr.trim().split('\n')).toHaveLength(1);
    expect(run.output().stderr).toMatch(/^tonearm: invalid TONEARM_PORT="eighty": /);
  });

  it('refuses a database written by a newer version and leaves it untouched', async () => {
    const dataDir = tmp();
    const first = await startTestServer({ dataDir });
    await first.stop();
    const dbFile = path.join(dataDir, 'tonearm.db');
    const db = new Database(dbFile);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, ?, 0)').run('from_the_future');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = sha(dbFile);
    const run = runServer({ TONEARM_DATA_DIR: dataDir });
    expect(await run.exited).toBe(3);
    expect(run.output().stderr).toMatch(/newer Tonearm \(schema 999/);
    expect(sha(dbFile)).toBe(before);
  });

  it('refuses a corrupt database and leaves it untouched', async () => {
    const dataDir = tmp();
    const dbFile = path.join(dataDir, 'tonearm.db');
    fs.writeFileSync(dbFile, Buffer.alloc(8192, 7));
    const before = sha(dbFile);
    const run = runServer({ TONEARM_DATA_DIR: dataDir });
    expect(await run.exited).toBe(3);
    expect(run.output().stderr).toMatch(/cannot be read .*may be corrupt/);
    expect(sha(dbFile)).toBe(before);
  });

  it('keeps users, sessions and the API key across a restart', async () => {
    const dataDir = tmp();
    const first = await startTestServer({ dataDir });
    const { token } = first.admin;
    const apiKey = first.apiKey;
    await first.stop();
    server = await startTestServer({ dataDir });
    expect(server.ctx.auth.isOnboarded()).toBe(true);
    expect((await server.api('/api/auth/me', { token })).status).toBe(200);
    expect((await server.api('/api/health/ws', { headers: { 'x-api-key': apiKey } })).status).toBe(200);
    expect((await server.api('/api/auth/login', { method: 'POST', json: ADMIN })).status).toBe(200);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
