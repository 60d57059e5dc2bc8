import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

let server: TestServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe.skipIf(process.platform === 'win32')('files at rest', () => {
  it('creates the data folder 0700 and the database, its WAL and the keys 0600 even with umask 0', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-modes-'));
    const dataDir = path.join(root, 'nested', 'data');
    const music = path.join(root, 'Music');
    fs.mkdirSync(music, { mode: 0o755 });
    fs.chmodSync(music, 0o755);
    const old = process.umask(0);
    try {
      server = await startTestServer({ dataDir, musicDirs: [music] });
    } finally {
      process.umask(old);
    }
    const db = path.join(dataDir, 'tonearm.db');
    expect(fs.existsSync(`${db}-wal`)).toBe(true);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'secrets'))).toBe(0o700);
    for (const f of [db, `${db}-wal`, `${db}-shm`, path.join(dataDir, 'secrets', 'session.key'), path.join(dataDir, 'secrets', 'encryption.key')])
      expect([f, mode(f)]).toEqual([f, 0o600]);
    // The user's music folder is left as it was.
    expect(mode(music)).toBe(0o755);
  });

  it('tightens files an earlier version left readable', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-modes-'));
    const dataDir = path.join(root, 'data');
    server = await startTestServer({ dataDir });
    await server.stop();
    server = undefined;
    const db = path.join(dataDir, 'tonearm.db');
    const keys = [path.join(dataDir, 'secrets', 'session.key'), path.join(dataDir, 'secrets', 'encryption.key')];
    for (const f of [db, ...keys]) fs.chmodSync(f, 0o644);
    fs.chmodSync(path.join(dataDir, 'secrets'), 0o755);

    server = await startTestServer({ dataDir });
    expect(mode(path.join(dataDir, 'secrets'))).toBe(0o700);
    for (const f of [db, `${db}-wal`, `${db}-shm`, ...keys]) expect([f, mode(f)]).toEqual([f, 0o600]);
  });
});
