import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedJobNotifier } from '../../main/notifications.js';
import { RotatingLogFile } from '../../main/serverLog.js';
import { createChildProcessLauncher } from '../../main/serverProcess.js';
import { ServerSupervisor, type ServerAddress } from '../../main/supervisor.js';
import { OFFLINE_UPSTREAMS } from '../helpers/offline.js';

// The desktop shell's supervisor and notifier against the real server, run from its TypeScript sources.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let workDir: string;
let log: RotatingLogFile;
let supervisor: ServerSupervisor;
let address: ServerAddress;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tonearm-shell-'));
  log = new RotatingLogFile({ directory: path.join(workDir, 'logs') });
  supervisor = new ServerSupervisor({
    launcher: createChildProcessLauncher({ execArgv: ['--import', 'tsx'] }),
    modulePath: path.join(repoRoot, 'server', 'index.ts'),
    config: () => ({ port: 0, host: '127.0.0.1', dataDir: path.join(workDir, 'data'), musicDirs: [] }),
    baseEnv: { PATH: process.env.PATH, ...OFFLINE_UPSTREAMS },
    log,
  });
  address = await supervisor.start();
});

afterAll(async () => {
  await supervisor?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('desktop shell with the real server', () => {
  it('reads the address from the ready line and reaches the API there', async () => {
    expect(address.host).toBe('127.0.0.1');
    expect(address.url).toBe(`http://127.0.0.1:${address.port}`);
    const response = await fetch(`${address.url}/api/health/bootstrap`);
    expect(response.status).toBe(200);
  });

  it('is told to stop reconnecting when its token is refused with 4401', async () => {
    const notifier = new BlockedJobNotifier({
      serverUrl: () => address.url,
      getToken: async () => 'not-a-session',
      notify: () => {},
      openReview: () => {},
    });
    const unauthorized = once(notifier, 'unauthorized');
    notifier.start();
    try {
      expect((await unauthorized)[0]).toEqual({ closeCode: 4401 });
    } finally {
      notifier.stop();
    }
  });

  it('stops the server cleanly with SIGTERM', async () => {
    const exited = once(supervisor, 'exited');
    await supervisor.stop();

    expect((await exited)[0]).toEqual({ code: 0, signal: null, expected: true });
    expect(readFileSync(log.path, 'utf8')).toContain('"msg":"shutting down","signal":"SIGTERM"');
  });
});
