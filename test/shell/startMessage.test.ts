import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startNotes } from '../../server/startNotes.js';
import { OFFLINE_UPSTREAMS } from '../helpers/offline.js';

// Issue 24 §10: the first start says where to finish set-up, after the ready line the desktop supervisor parses.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let child: ChildProcess | undefined;
let workDir: string | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('the first start', () => {
  it('prints the ready line unchanged, then where to finish set-up', async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'tonearm-start-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, ...OFFLINE_UPSTREAMS, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', TONEARM_DATA_DIR: workDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const lines = await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no set-up line in 30 s:\n${out}`)), 30_000);
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const all = out.split('\n').filter(Boolean);
        if (all.some((l) => l.includes('to finish set-up'))) {
          clearTimeout(timer);
          resolve(all);
        }
      });
      child!.once('exit', (code) => reject(new Error(`server exited (${code}):\n${out}`)));
    });
    const ready = lines.findIndex((l) => /^listening on http:\/\/127\.0\.0\.1:\d+$/.test(l));
    expect(ready).toBeGreaterThanOrEqual(0);
    const url = lines[ready]!.slice('listening on '.length);
    expect(lines[ready + 1]).toBe(`open ${url} to finish set-up`);
    // Only on every interface is the wizard open to the network.
    expect(out).not.toContain('anyone on your network');
  }, 40_000);

  it('on every interface names this computer and warns that the wizard is open to the network; nothing once set up', () => {
    expect(startNotes({ url: 'http://0.0.0.0:3001', host: '0.0.0.0', onboarded: false })).toEqual([
      'open http://localhost:3001 to finish set-up',
      'until set-up is finished, anyone on your network can open the set-up wizard and create the administrator: finish it now, or start with TONEARM_HOST=127.0.0.1 until you have',
    ]);
    expect(startNotes({ url: 'http://[::]:3001', host: '::', onboarded: false })[0]).toBe('open http://localhost:3001 to finish set-up');
    expect(startNotes({ url: 'http://0.0.0.0:3001', host: '0.0.0.0', onboarded: true })).toEqual([]);
  });
});
