import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../server/domain/settings/schema.js';
import { startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let fake: SlskdFake;

beforeAll(async () => {
  server = await startTestServer();
  fake = await startSlskdFake();
});
afterAll(async () => {
  await server.stop();
  await fake.close();
});

async function call(method: string, pathname: string, json?: unknown, token = server.admin.token) {
  const res = await server.api(pathname, { method, token, ...(json !== undefined && { json }) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

const save = (slskd: Record<string, unknown>) => call('POST', '/api/settings', { integrations: { slskd } });
const test = (body?: unknown) => call('POST', '/api/settings/slskd/test', body);

describe('POST /api/settings/slskd/test', () => {
  it('answers 409 NOT_CONFIGURED before anything is saved or typed', async () => {
    const res = await test();
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'NOT_CONFIGURED' });
    expect(res.body.message).toContain('integrations.slskd.url');
  });

  it('tests typed values: version, Soulseek connection and a reachable downloads folder', async () => {
    const res = await test({ url: fake.url, apiKey: fake.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      version: '0.22.2',
      soulseekConnected: true,
      downloadsFolder: { reported: fake.downloadsDir, localPath: fake.downloadsDir, reachable: true, reason: null },
      confirmedFolder: fake.downloadsDir,
      message: `Connected to slskd 0.22.2; logged in to Soulseek; downloads folder ${fake.downloadsDir} reachable and confirmed: finished downloads are copied only from there`,
    });
    // Pressing Test confirmed the folder slskd reports: downloads are taken only from there.
    const saved = (await call('GET', '/api/settings')).body.integrations.slskd;
    expect([saved.downloadPath, saved.confirmedDownloadPath]).toEqual(['', fake.downloadsDir]);
  });

  it('tests the saved values (masked or absent key) and uses downloadPath for the folder', async () => {
    expect((await save({ url: fake.url, apiKey: fake.apiKey })).status).toBe(200);
    const health = await call('GET', '/api/health');
    expect(health.body.slskdConfigured).toBe(true);
    expect(health.body.downloadSources.slskd.configured).toBe(true);
    expect((await test()).body.downloadsFolder.reachable).toBe(true);
    expect((await test({ apiKey: SECRET_MASK })).status).toBe(200);

    const missing = path.join(os.tmpdir(), `tonearm-no-slskd-${process.pid}`);
    expect((await save({ downloadPath: missing })).status).toBe(200);
    expect((await call('GET', '/api/settings')).body.integrations.slskd.downloadPath).toBe(missing);
    const unreachable = await test();
    expect(unreachable.status).toBe(200);
    expect(unreachable.body.downloadsFolder).toEqual({
      reported: fake.downloadsDir,
      localPath: missing,
      reachable: false,
      reason: `${missing} does not exist on this computer`,
    });
    const mapped = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-slskd-mapped-'));
    await save({ downloadPath: mapped, confirmedDownloadPath: '' });
    const set = await test();
    expect(set.body.downloadsFolder).toMatchObject({ localPath: mapped, reachable: true });
    // A set downloadPath is never replaced by what slskd reports.
    expect([set.body.confirmedFolder, set.body.message]).toEqual([null, `Connected to slskd 0.22.2; logged in to Soulseek; downloads folder ${mapped} reachable`]);
    expect((await call('GET', '/api/settings')).body.integrations.slskd.confirmedDownloadPath).toBe('');
    await save({ downloadPath: '' });

    fake.state.connected = false;
    const offline = await test();
    expect(offline.body).toMatchObject({ success: true, soulseekConnected: false });
    expect(offline.body.message).toContain('not connected to Soulseek (Disconnected)');
    fake.state.connected = true;
  });

  it('keeps the saved key with its host', async () => {
    const other = await startSlskdFake();
    try {
      const moved = await test({ url: other.url, apiKey: SECRET_MASK });
      expect(moved.status).toBe(400);
      expect(moved.body.code).toBe('SECRET_REENTRY_REQUIRED');
      expect(other.state.requests).toHaveLength(0);
      expect((await test({ url: other.url })).body.code).toBe('SECRET_REENTRY_REQUIRED');
      expect((await test({ url: other.url, apiKey: other.apiKey })).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('names the cause of a failure: wrong key, refused, not slskd', async () => {
    const wrong = await test({ url: fake.url, apiKey: 'wrong' });
    expect(wrong.status).toBe(502);
    expect(wrong.body).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', message: 'slskd: slskd rejected the API key (401)' });
    const closed = await startSlskdFake();
    await closed.close();
    const refused = await test({ url: closed.url, apiKey: 'x' });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(refused.body.message).toContain('connection refused');
    const notSlskd = await test({ url: `${fake.url}/web`, apiKey: fake.apiKey });
    expect(notSlskd.status).toBe(502);
    expect(notSlskd.body.message).toContain('not slskd at this URL');
    fake.faults.failNext(1, 500);
    const broken = await test({ url: fake.url, apiKey: fake.apiKey });
    expect(broken.status).toBe(200); // one retry after a 5xx
    fake.faults.failNext(1, 400, {});
    const rejected = await test({ url: fake.url, apiKey: fake.apiKey });
    expect(rejected.status).toBe(400);
    expect(JSON.stringify(rejected.body)).not.toContain('injected');
    fake.faults.failNext(2, 500);
    const failing = await test({ url: fake.url, apiKey: fake.apiKey });
    expect(failing.status).toBe(502);
    expect(failing.body.message).toBe('slskd: slskd failed on GET /application (HTTP 500)');
  });

  it('is for administrators only, and off means not configured', async () => {
    const anonymous = await server.api('/api/settings/slskd/test', { method: 'POST', json: {} });
    expect(anonymous.status).toBe(401);
    expect((await call('POST', '/api/users', { username: 'dana', password: 'password-123' })).status).toBe(201);
    const login = await call('POST', '/api/auth/login', { username: 'dana', password: 'password-123' });
    const before = fake.state.requests.length;
    const user = await call('POST', '/api/settings/slskd/test', { url: fake.url, apiKey: fake.apiKey }, login.body.token);
    expect(user.status).toBe(403);
    expect(fake.state.requests.length).toBe(before);
    await save({ enabled: false });
    const health = await call('GET', '/api/health');
    expect(health.body.slskdConfigured).toBe(false);
    expect(health.body.downloadSources.slskd).toMatchObject({ configured: false, enabled: false });
    await save({ enabled: true });
  });
});
