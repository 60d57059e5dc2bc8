import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/connection.js';
import type { InterfaceLister } from '../../server/domain/auth/lanBypass.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { OFFLINE_UPSTREAMS } from './offline.js';

/** A clock tests can move forward (session expiry, stream tokens). */
export class TestClock {
  constructor(public t = Date.now()) {}
  now = () => this.t;
  advance(ms: number) {
    this.t += ms;
  }
}

export interface TestServer extends RunningServer {
  clock: TestClock;
  dataDir: string;
  /** Present when started with `onboard` (the default): the first administrator's session. */
  admin: { username: string; password: string; token: string; headers: Record<string, string> };
  apiKey: string;
  /** fetch relative to the server, JSON in and out. */
  api(pathname: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Environment for the server; every public service points at a closed port (OFFLINE_UPSTREAMS) unless set here, e.g. to a fake's URL. */
  env?: Record<string, string>;
  onboard?: boolean;
  dataDir?: string;
  musicDirs?: string[];
  clock?: TestClock;
  interfaces?: InterfaceLister;
  /** Extra onboarding fields (musicFolders, lidarr, ...). */
  onboarding?: Record<string, unknown>;
  /**
   * The yt-dlp the server runs (e.g. `startYtdlpFake().bin`). Without it the server finds none (a
   * missing path in the data folder), so tests never reach the real YouTube through /usr/bin/yt-dlp.
   */
  ytdlp?: string;
  /**
   * Let the server run every migration on an empty data folder instead of starting from a copy of an
   * already migrated empty database (the default for a data folder the helper makes; a given
   * `dataDir` is always used as it is).
   */
  freshDatabase?: boolean;
}

export const ADMIN = { username: 'admin', password: 'correct horse battery' };

/**
 * An empty database with every migration applied, made once per test process and copied into each
 * new data folder: running the migrations (dozens of committed transactions) took a good part of
 * every server start. The server then opens it as it opens any up-to-date database; nothing else
 * of a data folder (keys, users, settings) is copied, so each server still starts from nothing.
 */
let migratedTemplate: string | undefined;
function migratedDatabase(): string {
  if (migratedTemplate && fs.existsSync(migratedTemplate)) return migratedTemplate;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-test-template-'));
  const file = path.join(dir, 'tonearm.db');
  openDatabase(file).close();
  for (const leftover of [`${file}-wal`, `${file}-shm`]) if (fs.existsSync(leftover)) throw new Error(`template database left ${leftover}`);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return (migratedTemplate = file);
}

/** A real server on 127.0.0.1:0 with its own temporary data directory. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-test-'));
  const ownsDir = !options.dataDir;
  if (ownsDir && options.freshDatabase !== true) fs.copyFileSync(migratedDatabase(), path.join(dataDir, 'tonearm.db'));
  const config = loadConfig({
    ...OFFLINE_UPSTREAMS,
    TONEARM_PORT: '0',
    TONEARM_HOST: '127.0.0.1',
    TONEARM_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    YTDLP_PATH: options.ytdlp ?? path.join(dataDir, 'no-yt-dlp'),
    ...(options.musicDirs && { TONEARM_MUSIC_DIRS: options.musicDirs.join(path.delimiter) }),
    // ffmpeg runs for every untagged fixture file would load the shared machine; tests of it turn it on.
    TONEARM_REPLAYGAIN_ANALYSIS: '0',
    TONEARM_CHECK_RESPONSES: '1',
    ...options.env,
  });
  const clock = options.clock ?? new TestClock();
  const running = await startServer({ config, clock, ...(options.interfaces && { interfaces: options.interfaces }) });
  // Under TONEARM_BASE_PATH every path the tests give is relative to it.
  const base = `http://127.0.0.1:${running.port}${running.ctx.config.basePath}`;

  const api: TestServer['api'] = (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    return fetch(base + pathname, {
      ...init,
      headers,
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    });
  };

  const server: TestServer = {
    ...running,
    url: base,
    clock,
    dataDir,
    api,
    admin: { ...ADMIN, token: '', headers: {} },
    apiKey: '',
    async stop() {
      await running.close();
      if (ownsDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };

  const alreadyOnboarded = running.ctx.auth.isOnboarded();
  if (options.onboard !== false && !alreadyOnboarded) {
    const res = await api('/api/onboarding/complete', {
      method: 'POST',
      json: { authUser: ADMIN.username, authPassword: ADMIN.password, ...options.onboarding },
    });
    if (res.status !== 200) throw new Error(`onboarding failed: ${res.status} ${await res.text()}`);
  }
  // A password login even right after onboarding (whose answer carries a session too): it makes this
  // address one the administrator signed in from, which the failed-login limiter treats differently.
  if (options.onboard !== false || alreadyOnboarded) {
    const login = await api('/api/auth/login', { method: 'POST', json: ADMIN });
    if (login.status === 200) {
      const { token } = (await login.json()) as { token: string };
      server.admin.token = token;
      server.admin.headers = { authorization: `Bearer ${token}` };
      const key = (await (await api('/api/auth/api-key', { token })).json()) as { apiKey: string };
      server.apiKey = key.apiKey;
    }
  }
  return server;
}
