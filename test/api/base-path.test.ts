import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { externalBase, normalizeBasePath } from '../../server/basePath.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('normalizeBasePath and externalBase', () => {
  it('normalizes slashes, keeps the root empty and refuses what is not a plain path', () => {
    expect(normalizeBasePath('/music')).toBe('/music');
    expect(normalizeBasePath('music/')).toBe('/music');
    expect(normalizeBasePath('//home//music//')).toBe('/home/music');
    expect(normalizeBasePath('')).toBe('');
    expect(normalizeBasePath('/')).toBe('');
    expect(normalizeBasePath('/../etc')).toBeNull();
    expect(normalizeBasePath('/music?x=1')).toBeNull();
    expect(normalizeBasePath('/mu sic')).toBeNull();
  });

  it('adds the base path to the public URL unless it already ends with it, else to the request origin', () => {
    expect(externalBase({ publicUrl: null, basePath: '/music' }, 'http://10.0.0.2:3001')).toBe('http://10.0.0.2:3001/music');
    expect(externalBase({ publicUrl: 'https://home.example', basePath: '/music' }, 'http://x')).toBe('https://home.example/music');
    expect(externalBase({ publicUrl: 'https://home.example/music', basePath: '/music' }, 'http://x')).toBe('https://home.example/music');
    expect(externalBase({ publicUrl: null, basePath: '' }, 'http://10.0.0.2:3001')).toBe('http://10.0.0.2:3001');
  });
});

describe('TONEARM_BASE_PATH=/music', () => {
  let server: TestServer;
  let origin: string;
  let uiDir: string;
  const interfaces = () => ({
    eth0: [{ address: '192.168.1.20', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '00:11:22:33:44:55', internal: false, cidr: '192.168.1.20/24' }],
  });

  beforeAll(async () => {
    // A stand-in for the built UI: what matters is what the server adds to its index.html.
    uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-ui-'));
    fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><html><head><title>Tonearm</title><script type="module" src="./assets/index.js"></script></head><body></body></html>');
    fs.mkdirSync(path.join(uiDir, 'assets'));
    fs.writeFileSync(path.join(uiDir, 'assets', 'index.js'), 'console.log("ui")');
    server = await startTestServer({
      env: { TONEARM_BASE_PATH: '/music/', TONEARM_UI_DIR: uiDir, TONEARM_HOST: '0.0.0.0', TONEARM_SCAN_ON_START: 'false' },
      interfaces,
    });
    origin = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(uiDir, { recursive: true, force: true });
  });

  it('serves the API under the prefix and nothing outside it; / redirects to the prefix', async () => {
    expect(server.ctx.config.basePath).toBe('/music');
    expect((await fetch(`${origin}/music/api/health`, { headers: server.admin.headers })).status).toBe(200);
    const outside = await fetch(`${origin}/api/health`, { headers: server.admin.headers });
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ error: 'Not found' });
    expect((await fetch(`${origin}/rest/ping?u=admin&p=x&v=1.16.1&c=t&f=json`)).status).toBe(404);
    const root = await fetch(`${origin}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/music/');
    const bare = await fetch(`${origin}/music?x=1`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/music/?x=1');
    const rest = await fetch(`${origin}/music/rest/ping?u=admin&p=${encodeURIComponent('correct horse battery')}&v=1.16.1&c=t&f=json`);
    expect(((await rest.json()) as { 'subsonic-response': { status: string } })['subsonic-response'].status).toBe('ok');
  });

  it('serves the web UI with its base and assets under the prefix', async () => {
    const page = await fetch(`${origin}/music/library/artists`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<base href="/music/" />');
    expect(html).toContain('<meta name="tonearm-base" content="/music" />');
    const direct = await fetch(`${origin}/music/index.html`);
    expect(await direct.text()).toContain('<base href="/music/" />');
    expect((await fetch(`${origin}/music/assets/index.js`)).status).toBe(200);
    expect((await fetch(`${origin}/assets/index.js`)).status).toBe(404);
  });

  it('names the prefix in the OpenAPI document, the Connect page, share links and the Last.fm callback', async () => {
    const doc = (await (await server.api('/api/openapi.json')).json()) as { servers: { url: string }[] };
    expect(doc.servers).toEqual([{ url: '/music' }]);

    const connect = (await (await server.api('/api/connect', { token: server.admin.token })).json()) as { lanUrls: { url: string }[] };
    expect(connect.lanUrls).toEqual([{ interfaceName: 'eth0', url: `http://192.168.1.20:${server.port}/music` }]);

    await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { sharing: { enabled: true }, integrations: { lastfm: { apiKey: 'k'.repeat(32), apiSecret: 's'.repeat(32) } } } });
    const link = (await (await server.api('/api/scrobbling/lastfm/link', { token: server.admin.token })).json()) as { url: string };
    const cb = new URL(link.url).searchParams.get('cb')!;
    expect(cb.startsWith(`http://127.0.0.1:${server.port}/music/api/scrobbling/lastfm/link/callback`)).toBe(true);
  });

  it('accepts WebSocket connections at <prefix>/ws only', async () => {
    const open = (url: string) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(url);
        ws.on('message', (data) => {
          const msg = JSON.parse(String(data)) as { type: string };
          ws.close();
          resolve(msg.type);
        });
        ws.on('error', () => resolve('error'));
      });
    const token = encodeURIComponent(server.admin.token);
    expect(await open(`ws://127.0.0.1:${server.port}/music/ws?token=${token}`)).not.toBe('error');
    expect(await open(`ws://127.0.0.1:${server.port}/ws?token=${token}`)).toBe('error');
  });
});

describe('the network.basePath setting', () => {
  it('applies at the next start; TONEARM_BASE_PATH wins over it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-base-'));
    try {
      const first = await startTestServer({ dataDir, env: { TONEARM_SCAN_ON_START: 'false' } });
      const bad = await first.api('/api/settings', { method: 'POST', token: first.admin.token, json: { network: { basePath: '/../x' } } });
      expect(bad.status).toBe(400);
      const saved = await first.api('/api/settings', { method: 'POST', token: first.admin.token, json: { network: { basePath: 'tunes/' } } });
      expect(saved.status).toBe(200);
      expect(((await (await first.api('/api/settings', { token: first.admin.token })).json()) as { network: { basePath: string } }).network.basePath).toBe('/tunes');
      // Still at the root until the restart.
      expect((await first.api('/api/health/live')).status).toBe(200);
      await first.stop();

      const second = await startTestServer({ dataDir, onboard: false, env: { TONEARM_SCAN_ON_START: 'false' } });
      expect(second.ctx.config.basePath).toBe('/tunes');
      expect((await fetch(`http://127.0.0.1:${second.port}/tunes/api/health/live`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${second.port}/api/health/live`)).status).toBe(404);
      await second.stop();

      const third = await startTestServer({ dataDir, onboard: false, env: { TONEARM_BASE_PATH: '', TONEARM_SCAN_ON_START: 'false' } });
      expect(third.ctx.config.basePath).toBe('');
      expect((await fetch(`http://127.0.0.1:${third.port}/api/health/live`)).status).toBe(200);
      await third.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
