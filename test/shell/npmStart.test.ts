import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm start` is `node scripts/start.mjs`: a launcher that runs the server as its child, with npm
// start's node flags and, on Linux, glibc's arenas limited (MALLOC_ARENA_MAX cannot be set later).
describe('npm start', () => {
  it.runIf(process.platform === 'linux')('runs the server with two malloc arenas, the young-generation flag and V8 helper threads one fewer than the cores; a stop reaches the server', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-npmstart-'));
    const { MALLOC_ARENA_MAX: _, ...inherited } = process.env;
    const launcher = spawn(process.execPath, ['scripts/start.mjs'], {
      env: { ...inherited, TONEARM_DATA_DIR: dataDir, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', LOG_LEVEL: 'silent', TONEARM_SCAN_ON_START: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    let server = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        launcher.stdout!.on('data', (d: Buffer) => {
          out += String(d);
          if (out.includes('listening on ')) resolve();
        });
        launcher.once('exit', (code) => reject(new Error(`launcher exited with ${code}: ${out}`)));
      });
      server = Number(fs.readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8').trim());
      const environ = fs.readFileSync(`/proc/${server}/environ`, 'utf8').split('\0');
      expect(environ).toContain('MALLOC_ARENA_MAX=2');
      // V8's helper threads one fewer than the cores, at most 4 (1 on a 2-core machine).
      const pool = `--v8-pool-size=${Math.max(1, Math.min(4, os.availableParallelism() - 1))}`;
      expect(fs.readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--max-semi-space-size=4', pool, 'server/index.ts']));

      launcher.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(fs.existsSync(`/proc/${server}`)).toBe(false);
    } finally {
      launcher.kill('SIGKILL');
      // A failed expectation must not leave the server running (killing the launcher does not end it).
      if (server > 0) {
        try {
          process.kill(server, 'SIGKILL');
        } catch {
          // Ended already.
        }
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')('keeps a MALLOC_ARENA_MAX the environment sets', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-npmstart-'));
    const launcher = spawn(process.execPath, ['scripts/start.mjs'], {
      env: { ...process.env, MALLOC_ARENA_MAX: '4', TONEARM_DATA_DIR: dataDir, TONEARM_PORT: '0', TONEARM_HOST: '127.0.0.1', LOG_LEVEL: 'silent', TONEARM_SCAN_ON_START: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve) => {
        let out = '';
        launcher.stdout!.on('data', (d: Buffer) => {
          out += String(d);
          if (out.includes('listening on ')) resolve();
        });
      });
      const server = Number(fs.readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8').trim());
      expect(fs.readFileSync(`/proc/${server}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=4');
      launcher.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      launcher.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
