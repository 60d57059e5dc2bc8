import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

// What a first-time user tripped over (issue 10), on the server side.
let server: TestServer;
let dir: string;
let envMusic: string;
afterEach(async () => {
  await server?.stop();
});
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-firstuse-'));
  envMusic = path.join(dir, 'from-env');
  fs.mkdirSync(envMusic);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('music folders from TONEARM_MUSIC_DIRS', () => {
  it('are shown to the onboarding wizard, which cannot be asked once onboarding is done', async () => {
    server = await startTestServer({ onboard: false, env: { TONEARM_SCAN_ON_START: 'false' }, musicDirs: [envMusic] });
    const before = await server.api('/api/onboarding/music-folders');
    expect(before.status).toBe(200);
    expect(await json(before)).toEqual({ environmentMusicFolders: [envMusic] });
    const done = await server.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'admin', authPassword: 'correct horse battery' } });
    expect(done.status).toBe(200);
    expect((await server.api('/api/onboarding/music-folders')).status).toBe(403);
  });

  it('are read-only in GET /api/settings, and a settings round trip never stores them', async () => {
    server = await startTestServer({ env: { TONEARM_SCAN_ON_START: 'false' }, musicDirs: [envMusic] });
    const read = await json(await server.api('/api/settings', { token: server.admin.token }));
    expect(read.library).toMatchObject({ musicFolders: [], environmentMusicFolders: [envMusic] });

    const chosen = path.join(dir, 'chosen');
    read.library.musicFolders = [chosen];
    const saved = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: read });
    expect(saved.status).toBe(200);
    expect((await json(saved)).library).toMatchObject({ musicFolders: [chosen], environmentMusicFolders: [envMusic] });
    expect(server.ctx.settings.get().library.musicFolders).toEqual([chosen]);
    expect(JSON.stringify(server.ctx.kv.get('settings'))).not.toContain('from-env');
    expect(JSON.stringify(server.ctx.kv.get('settings'))).not.toContain('environmentMusicFolders');
  });

  it('are an empty list when the variable is not set', async () => {
    server = await startTestServer({ env: { TONEARM_SCAN_ON_START: 'false' } });
    expect((await json(await server.api('/api/settings', { token: server.admin.token }))).library.environmentMusicFolders).toEqual([]);
  });
});

describe('error messages in words', () => {
  it('names an invalid setting by its label; the path stays in details', async () => {
    server = await startTestServer({ env: { TONEARM_SCAN_ON_START: 'false' } });
    const res = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { security: { corsOrigins: ['dashboard.local'] } } });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: 'Invalid request',
      code: 'VALIDATION_ERROR',
      message: 'Allowed origins (CORS), entry 1: must be an origin like http://host:port',
      details: [{ path: 'security.corsOrigins.0', message: 'must be an origin like http://host:port' }],
    });
  });
});

describe('connecting a player app', () => {
  const interfaces = () => ({
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4' as const, mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
    eth0: [{ address: '192.168.1.20', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '00:11:22:33:44:55', internal: false, cidr: '192.168.1.20/24' }],
  });

  it("answers the server's LAN addresses with its port and the caller's user name", async () => {
    server = await startTestServer({ env: { TONEARM_HOST: '0.0.0.0', TONEARM_SCAN_ON_START: 'false' }, interfaces });
    const res = await server.api('/api/connect', { token: server.admin.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      lanUrls: [{ interfaceName: 'eth0', url: `http://192.168.1.20:${server.port}` }],
      listensOnLan: true,
      port: server.port,
      subsonicPath: '/rest',
      username: 'admin',
    });
    expect((await json(await server.api('/api/connect', { headers: { 'x-api-key': server.apiKey } }))).username).toBeNull();
    expect((await server.api('/api/connect')).status).toBe(401);
    const doc = await json(await server.api('/api/openapi.json', { token: server.admin.token }));
    expect(doc.paths['/api/connect'].get).toBeDefined();
  });

  it('has no LAN address when the server listens on this computer only', async () => {
    server = await startTestServer({ env: { TONEARM_SCAN_ON_START: 'false' }, interfaces });
    expect(await json(await server.api('/api/connect', { token: server.admin.token }))).toMatchObject({ lanUrls: [], listensOnLan: false });
  });
});
