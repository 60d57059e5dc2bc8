import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const REQUIRED = { error: 'Onboarding required', code: 'ONBOARDING_REQUIRED' };
const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });

function socketClose(url: string) {
  return new Promise<number>((resolve) => {
    const ws = new WebSocket(url);
    ws.on('close', (code) => resolve(code));
    ws.on('error', () => undefined);
  });
}

describe('before onboarding', () => {
  it('answers 403 ONBOARDING_REQUIRED everywhere but health, onboarding, the folder browser and the image proxy', async () => {
    server = await startTestServer({ onboard: false });
    const s = server;
    const refused: [string, string, unknown?][] = [
      ['GET', '/api/auth/api-key'],
      ['POST', '/api/auth/api-key/rotate'],
      ['GET', '/api/users'],
      ['POST', '/api/users', { username: 'planted', password: 'planted-password', role: 'admin' }],
      ['GET', '/api/settings'],
      ['POST', '/api/settings', { security: { localNetworkBypass: { enabled: true } } }],
      ['POST', '/api/auth/login', { username: 'admin', password: 'whatever-pass' }],
      ['GET', '/api/auth/me'],
      ['GET', '/api/health/ws'],
      ['POST', '/api/health/stream-token'],
      ['GET', '/api/library/artists'],
    ];
    for (const [method, pathname, json] of refused) {
      const res = await s.api(pathname, { method, ...(json !== undefined && { json }) });
      expect([method, pathname, res.status]).toEqual([method, pathname, 403]);
      expect(await res.json()).toMatchObject(REQUIRED);
    }
    // A credential changes nothing: there is nobody it could belong to.
    const withBasic = await s.api('/api/users', { headers: basic('admin', 'whatever-pass') });
    expect(withBasic.status).toBe(403);
    expect((await s.api('/api/settings', { headers: { 'x-api-key': 'a'.repeat(64) } })).status).toBe(403);

    expect((await s.api('/api/health/live')).status).toBe(200);
    const health = await s.api('/api/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ onboardingRequired: true });
    // A stale session token from an earlier install does not turn the public answers into 401.
    expect((await s.api('/api/health/bootstrap', { token: 'stale.token.value' })).status).toBe(200);
    expect((await s.api('/api/openapi.json')).status).toBe(200);
    expect((await s.api(`/api/filesystem/browse?path=${encodeURIComponent(os.tmpdir())}`)).status).toBe(200);
    expect((await s.api(`/api/image-proxy/${'0'.repeat(32)}`)).status).toBe(404);

    const rest = await fetch(`${s.url}/rest/ping?u=admin&p=whatever&v=1.16.1&c=t&f=json`);
    const body = (await rest.json()) as any;
    expect(body['subsonic-response']).toMatchObject({ status: 'failed', error: { code: 40 } });
    expect(await socketClose(`${s.url.replace('http', 'ws')}/ws`)).toBe(4401);

    expect(s.ctx.users.count()).toBe(0);
    expect(s.ctx.kv.get('instance.apiKey')).toBeUndefined();

    const done = await s.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'owner', authPassword: 'owner-password' } });
    expect(done.status).toBe(200);
    const { session } = (await done.json()) as { session: { token: string } };
    const users = (await (await s.api('/api/users', { token: session.token })).json()) as { username: string }[];
    expect(users.map((u) => u.username)).toEqual(['owner']);
    const key = (await (await s.api('/api/auth/api-key', { token: session.token })).json()) as { apiKey: string };
    expect(key.apiKey).toMatch(/^[0-9a-f]{64}$/);
    expect(s.ctx.kv.get('instance.apiKey')).toBe(key.apiKey);
    expect((await s.api('/api/health', { headers: { 'x-api-key': key.apiKey } })).status).toBe(200);
  });
});

describe('a database from an earlier version', () => {
  /** Plants rows as earlier versions allowed, and makes migration 031 run again at the next start. */
  async function plantAndRestart(dataDir: string, onboard: boolean) {
    server = await startTestServer({ dataDir, onboard });
    await server.ctx.users.create({ username: 'planted', password: 'planted-password', role: 'admin' });
    server.ctx.kv.put('instance.apiKey', 'b'.repeat(64));
    server.ctx.db.prepare('DELETE FROM schema_migrations WHERE version = 31').run();
    await server.stop();
    server = await startTestServer({ dataDir, onboard: false });
    return server;
  }

  it('drops accounts and the API key planted before onboarding completed', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-gate-'));
    const s = await plantAndRestart(path.join(root, 'data'), false);
    expect(s.ctx.auth.isOnboarded()).toBe(false);
    expect(s.ctx.users.count()).toBe(0);
    expect(s.ctx.kv.get('instance.apiKey')).toBeUndefined();
    expect((await s.api('/api/settings', { headers: { 'x-api-key': 'b'.repeat(64) } })).status).toBe(403);
    const done = await s.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'owner', authPassword: 'owner-password' } });
    expect(done.status).toBe(200);
    expect(s.ctx.users.list().map((u) => u.username)).toEqual(['owner']);
    expect(s.ctx.kv.get('instance.apiKey')).not.toBe('b'.repeat(64));
  });

  it('never touches an installation that completed onboarding', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-gate-'));
    const s = await plantAndRestart(path.join(root, 'data'), true);
    expect(s.ctx.auth.isOnboarded()).toBe(true);
    expect(s.ctx.users.list().map((u) => u.username).sort()).toEqual([ADMIN.username, 'planted']);
    expect(s.ctx.kv.get('instance.apiKey')).toBe('b'.repeat(64));
  });
});
