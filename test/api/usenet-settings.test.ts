import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeNzbget, type FakeNzbget } from '../fakes/nzbget/index.js';
import { startFakeProwlarr, type FakeProwlarr } from '../fakes/prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../fakes/sabnzbd/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** api.md §4.13 (Usenet connection tests, Prowlarr indexers), decisions §7 (health's Usenet flags). */

let server: TestServer;
let prowlarr: FakeProwlarr;
let sab: FakeSabnzbd;
let nzbget: FakeNzbget;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usenet-api-'));
  [server, prowlarr, sab, nzbget] = await Promise.all([
    startTestServer(),
    startFakeProwlarr(),
    startFakeSabnzbd({ completedDir: path.join(dir, 'sab') }),
    startFakeNzbget({ completedDir: path.join(dir, 'nzbget') }),
  ]);
});
afterAll(async () => {
  await Promise.all([server.stop(), prowlarr.close(), sab.close(), nzbget.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const admin = (pathname: string, json?: unknown, method = json === undefined ? 'GET' : 'POST') =>
  server.api(pathname, { method, token: server.admin.token, ...(json !== undefined && { json }) });
const body = async (res: Response) => (await res.json()) as Record<string, any>;
const saveSettings = async (integrations: unknown) => expect((await admin('/api/settings', { integrations })).status).toBe(200);
const health = async () => body(await admin('/api/health'));

describe('Usenet settings', () => {
  it('has defaults, masks the secrets and rejects unknown keys', async () => {
    const settings = await body(await admin('/api/settings'));
    expect(settings.integrations.prowlarr).toEqual({ url: '', apiKey: '', enabled: true });
    expect(settings.integrations.sabnzbd).toEqual({ url: '', apiKey: '', enabled: true, priority: 20, category: '', completedPath: '', confirmedCompletedPath: '' });
    expect(settings.integrations.nzbget).toEqual({ url: '', username: '', password: '', enabled: true, priority: 20, category: '', completedPath: '', confirmedCompletedPath: '' });
    expect((await admin('/api/settings', { integrations: { nzbget: { port: 6789 } } })).status).toBe(400);
    await saveSettings({ nzbget: { url: 'http://127.0.0.1:1', username: 'u', password: 'nzbget-secret' }, sabnzbd: { apiKey: 'sab-secret' } });
    const masked = JSON.stringify(await body(await admin('/api/settings')));
    expect(masked).not.toContain('nzbget-secret');
    expect(masked).not.toContain('sab-secret');
    // A saved secret stays with its address: moving the URL needs the secret typed again.
    const moved = await admin('/api/settings', { integrations: { nzbget: { url: 'http://127.0.0.2:6789' } } });
    expect(moved.status).toBe(400);
    expect((await body(moved)).code).toBe('SECRET_REENTRY_REQUIRED');
    await saveSettings({ nzbget: { url: '', username: '', password: '' }, sabnzbd: { apiKey: '' } });
  });
});

describe('connection tests', () => {
  it('answer 409 NOT_CONFIGURED with nothing saved or sent, and are for administrators only', async () => {
    for (const p of ['/api/settings/prowlarr/test', '/api/settings/sabnzbd/test', '/api/settings/nzbget/test']) {
      const res = await admin(p, {});
      expect(res.status).toBe(409);
      expect((await body(res)).code).toBe('NOT_CONFIGURED');
      expect((await server.api(p, { method: 'POST', json: {} })).status).toBe(401);
    }
    expect((await admin('/api/settings/prowlarr/indexers')).status).toBe(409);
  });

  it('test the values sent, naming a wrong key or password', async () => {
    const ok = await admin('/api/settings/prowlarr/test', { url: prowlarr.url, apiKey: prowlarr.apiKey });
    expect(await body(ok)).toEqual({ success: true, version: '1.24.3.4754', usenetIndexers: 2, message: 'Connected to Prowlarr 1.24.3.4754; 2 enabled Usenet indexers' });
    const sabOk = await body(await admin('/api/settings/sabnzbd/test', { url: sab.url, apiKey: sab.apiKey }));
    const sabDir = sab.downloads.completedDir;
    // completedPath is empty: the folder SABnzbd reports, readable here, is confirmed by this test.
    expect(sabOk).toEqual({
      success: true,
      version: '4.3.2',
      message: `Connected to SABnzbd 4.3.2; completed folder readable at ${sabDir} and confirmed: finished downloads are copied only from there`,
      completedFolder: { reported: sabDir, local: sabDir, readable: true, reason: null },
      confirmedFolder: sabDir,
    });
    const confirmed = (await body(await admin('/api/settings'))).integrations;
    expect([confirmed.sabnzbd.confirmedCompletedPath, confirmed.sabnzbd.completedPath]).toEqual([sabDir, '']);
    const nzbOk = await body(await admin('/api/settings/nzbget/test', { url: nzbget.url, username: nzbget.username, password: nzbget.password }));
    expect(nzbOk).toMatchObject({ success: true, version: '24.3', completedFolder: { readable: true }, confirmedFolder: nzbget.downloads.completedDir });
    expect((await body(await admin('/api/settings'))).integrations.nzbget.confirmedCompletedPath).toBe(nzbget.downloads.completedDir);

    // The client's folder is elsewhere on this computer: completedPath says where.
    await saveSettings({ nzbget: { completedPath: path.join(dir, 'not-mounted') } });
    const unmounted = await body(await admin('/api/settings/nzbget/test', { url: nzbget.url, username: nzbget.username, password: nzbget.password }));
    expect(unmounted.completedFolder).toEqual({
      reported: nzbget.downloads.completedDir,
      local: path.join(dir, 'not-mounted'),
      readable: false,
      reason: 'folder not found on this computer; set completedPath to where it is mounted here',
    });
    expect(unmounted.message).toContain('is not readable here');
    expect(unmounted.confirmedFolder).toBeNull();
    // A set completedPath is never replaced by what the client reports.
    const mounted = fs.mkdtempSync(path.join(dir, 'mounted-'));
    await saveSettings({ nzbget: { completedPath: mounted, confirmedCompletedPath: '' } });
    const set = await body(await admin('/api/settings/nzbget/test', { url: nzbget.url, username: nzbget.username, password: nzbget.password }));
    expect([set.confirmedFolder, set.message]).toEqual([null, `Connected to NZBGet 24.3; completed folder readable at ${mounted}`]);
    expect((await body(await admin('/api/settings'))).integrations.nzbget.confirmedCompletedPath).toBe('');
    await saveSettings({ nzbget: { completedPath: '' } });

    const badProwlarr = await admin('/api/settings/prowlarr/test', { url: prowlarr.url, apiKey: 'wrong-prowlarr-key' });
    expect(badProwlarr.status).toBe(502);
    const b1 = await body(badProwlarr);
    expect(b1).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', message: 'prowlarr: Prowlarr rejected the API key (401)' });
    const badSab = await body(await admin('/api/settings/sabnzbd/test', { url: sab.url, apiKey: 'wrong-sab-key' }));
    expect(badSab).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', message: 'sabnzbd: SABnzbd rejected the API key' });
    const badNzb = await body(await admin('/api/settings/nzbget/test', { url: nzbget.url, username: 'nzbget', password: 'wrong-pass' }));
    expect(badNzb).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED' });
    expect(JSON.stringify([b1, badSab, badNzb])).not.toMatch(/wrong-/);
  });

  it('name a down or failing server', async () => {
    sab.faults.failNext(4, 500);
    const failing = await body(await admin('/api/settings/sabnzbd/test', { url: sab.url, apiKey: sab.apiKey }));
    expect(failing).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: 'sabnzbd: SABnzbd failed on mode=version (HTTP 500)' });
    expect(failing.message).not.toContain(sab.apiKey);
    while (sab.faults.takeFailure());
    nzbget.faults.down = true;
    const down = await body(await admin('/api/settings/nzbget/test', { url: nzbget.url, username: 'a', password: 'b' }));
    expect(down.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(down.message).toMatch(/connection (refused|reset|closed)/);
    nzbget.faults.down = false;
  });

  it('use the saved secrets when the body leaves them out or masked, only for the saved address', async () => {
    await saveSettings({
      prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey },
      sabnzbd: { url: sab.url, apiKey: sab.apiKey },
      nzbget: { url: nzbget.url, username: nzbget.username, password: nzbget.password },
    });
    expect((await admin('/api/settings/prowlarr/test', {})).status).toBe(200);
    expect((await admin('/api/settings/sabnzbd/test', { apiKey: '********' })).status).toBe(200);
    expect((await admin('/api/settings/nzbget/test', { url: nzbget.url, password: '********' })).status).toBe(200);

    const moved = await admin('/api/settings/sabnzbd/test', { url: prowlarr.url, apiKey: '********' });
    expect(moved.status).toBe(400);
    expect((await body(moved)).code).toBe('SECRET_REENTRY_REQUIRED');
    const before = prowlarr.requests.length;
    expect((await admin('/api/settings/nzbget/test', { url: prowlarr.url })).status).toBe(400);
    expect(prowlarr.requests.length).toBe(before);
  });

  it("lists the saved Prowlarr's indexers", async () => {
    const res = await admin('/api/settings/prowlarr/indexers');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { id: 1, name: 'NZBgeek', protocol: 'usenet', enabled: true, priority: 25, supportsSearch: true, audioCategories: true },
      { id: 2, name: 'DrunkenSlug', protocol: 'usenet', enabled: true, priority: 10, supportsSearch: true, audioCategories: true },
      { id: 3, name: 'SomeTracker', protocol: 'torrent', enabled: true, priority: 25, supportsSearch: true, audioCategories: true },
    ]);
    // api.md's neutral spellings reach the same handlers.
    expect((await admin('/api/settings/indexermgr/indexers')).status).toBe(200);
    expect((await admin('/api/settings/usenetA/test', {})).status).toBe(200);
    expect((await admin('/api/settings/usenetB/test', {})).status).toBe(200);
  });
});

describe('health', () => {
  it('reports Usenet configured only with Prowlarr and a download client, and the switches and priority', async () => {
    await saveSettings({ prowlarr: { url: '', apiKey: '' }, sabnzbd: { url: '', apiKey: '' }, nzbget: { url: '', username: '', password: '' } });
    let h = await health();
    expect([h.usenetConfigured, h.prowlarrConfigured, h.sabnzbdConfigured, h.nzbgetConfigured]).toEqual([false, false, false, false]);
    expect(h.downloadSources.usenet).toMatchObject({ configured: false, enabled: false, priority: 20 });

    await saveSettings({ prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey } });
    h = await health();
    expect([h.usenetConfigured, h.prowlarrConfigured]).toEqual([false, true]);

    await saveSettings({ nzbget: { url: nzbget.url, priority: 30 } });
    h = await health();
    expect([h.usenetConfigured, h.nzbgetConfigured, h.sabnzbdConfigured]).toEqual([true, true, false]);
    expect(h.downloadSources.usenet).toEqual({
      id: 'usenet',
      label: 'Usenet',
      configured: true,
      enabled: true,
      priority: 30,
      sabnzbdConfigured: false,
      nzbgetConfigured: true,
      prowlarrConfigured: true,
    });

    await saveSettings({ sabnzbd: { url: sab.url, apiKey: sab.apiKey, priority: 15 } });
    expect((await health()).downloadSources.usenet).toMatchObject({ sabnzbdConfigured: true, priority: 15 });

    await saveSettings({ prowlarr: { enabled: false } });
    h = await health();
    expect(h.usenetConfigured).toBe(true);
    expect(h.downloadSources.usenet.enabled).toBe(false);
  });
});
