import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startLidarrFake, type LidarrFake, type LidarrFakeOptions } from '../fakes/lidarr/index.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/server.js';

export type Json = Record<string, any>;

export interface Setup {
  fake: LidarrFake;
  server: TestServer;
  /** Lidarr's root folder, a real temporary directory (imports write files there). */
  root: string;
  dir: string;
  call(method: string, pathname: string, json?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Resolves when the Lidarr indexer has nothing queued or running. */
  indexed(): Promise<void>;
  /** Points the fake's own webhooks (grab, import, deletes) at this server with the API key. */
  hookUp(): void;
  close(): Promise<void>;
}

/** A Lidarr fake with a real root folder, and a server onboarded with it. */
export async function setup(
  fakeOptions: LidarrFakeOptions = {},
  serverOptions: TestServerOptions & { lidarr?: Json } = {},
): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-lidarr-'));
  const root = path.join(dir, 'music');
  fs.mkdirSync(root);
  const fake = await startLidarrFake({ rootFolderPath: root, commandStartMs: 5, commandRunMs: 10, importAfterMs: 50, ...fakeOptions });
  const server = await startTestServer({
    ...serverOptions,
    onboarding: { lidarr: { url: fake.url, apiKey: fake.apiKey, ...serverOptions.lidarr }, ...serverOptions.onboarding },
  });
  const call: Setup['call'] = async (method, pathname, json, headers = server.admin.headers) => {
    const res = await server.api(pathname, { method, headers, ...(json !== undefined && { json }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const setupObject: Setup = {
    fake,
    server,
    root,
    dir,
    call,
    async indexed() {
      // A run may queue another (webhook during a run): wait until both are done.
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 20));
        await server.ctx.lidarr.index.whenIdle();
      }
    },
    hookUp() {
      fake.state.webhook = { url: `${server.url}/api/webhooks/lidarr?api_key=${server.apiKey}` };
    },
    async close() {
      await server.stop();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await setupObject.indexed();
  return setupObject;
}

export async function until<T>(probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A WebSocket on /ws with a session, collecting messages. */
export async function openSocket(server: TestServer, channels: string[]): Promise<{ messages: Json[]; close(): void }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws?token=${server.admin.token}`);
  const messages: Json[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Json));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'subscribe', channels }));
  await until(() => messages.some((m) => m.type === 'subscribed'));
  return { messages, close: () => ws.close() };
}

/** A user account with the given permissions and its session headers. */
export async function makeUser(s: Setup, username: string, permissions: Json): Promise<Record<string, string>> {
  const password = 'a long enough password';
  const created = await s.call('POST', '/api/users', { username, password, role: 'user', permissions });
  if (created.status !== 201 && created.status !== 200) throw new Error(`user not created: ${created.status} ${JSON.stringify(created.body)}`);
  const login = await s.call('POST', '/api/auth/login', { username, password }, {});
  return { authorization: `Bearer ${login.body.token}` };
}
