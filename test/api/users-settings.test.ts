import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
afterEach(async () => {
  await server?.stop();
});

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('settings', () => {
  it('masks secrets, keeps them when the mask is sent back, and replaces them when a new value is sent', async () => {
    server = await startTestServer();
    const t = server.admin.token;
    const set = await server.api('/api/settings', {
      method: 'POST',
      token: t,
      json: { integrations: { lidarr: { url: 'http://127.0.0.1:8686', apiKey: 'lidarr-secret-key' } } },
    });
    expect(set.status).toBe(200);
    const read = await json(await server.api('/api/settings', { token: t }));
    expect(read.integrations.lidarr).toMatchObject({ url: 'http://127.0.0.1:8686', apiKey: '********' });
    expect(JSON.stringify(read)).not.toContain('lidarr-secret-key');

    await server.api('/api/settings', { method: 'POST', token: t, json: read });
    expect(server.ctx.settings.get().integrations.lidarr.apiKey).toBe('lidarr-secret-key');

    await server.api('/api/settings', { method: 'POST', token: t, json: { integrations: { lidarr: { apiKey: 'new-key' } } } });
    expect(server.ctx.settings.get().integrations.lidarr.apiKey).toBe('new-key');
    expect(server.ctx.settings.get().integrations.lidarr.url).toBe('http://127.0.0.1:8686');
  });

  it('refuses invalid settings and stores nothing', async () => {
    server = await startTestServer();
    const before = server.ctx.settings.get();
    const res = await server.api('/api/settings', {
      method: 'POST',
      token: server.admin.token,
      json: { library: { musicFolders: ['/music'], watchDebounceMs: 5 } },
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^Wait after a file change: /),
      details: [expect.objectContaining({ path: 'library.watchDebounceMs' })],
    });
    expect(server.ctx.settings.get()).toEqual(before);
    const unknown = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { bogus: 1 } });
    expect(unknown.status).toBe(400);
  });
});

describe('users', () => {
  it('creates, lists, updates permissions, resets passwords and deletes users', async () => {
    server = await startTestServer();
    const t = server.admin.token;
    const created = await json(
      await server.api('/api/users', { method: 'POST', token: t, json: { username: 'robin', password: 'password-123', permissions: { accessFlow: true } } }),
    );
    expect(created).toMatchObject({
      username: 'robin',
      role: 'user',
      status: 'active',
      permissions: { accessSettings: false, accessFlow: true, addArtist: true, addAlbum: true, changeMonitoring: false, deleteArtist: false, deleteAlbum: false },
    });
    const dup = await server.api('/api/users', { method: 'POST', token: t, json: { username: 'ROBIN', password: 'password-123' } });
    expect(dup.status).toBe(409);
    const list = await json(await server.api('/api/users', { token: t }));
    expect((list as unknown as any[]).map((u) => u.username)).toEqual(['admin', 'robin']);

    const patched = await json(
      await server.api(`/api/users/${created.id}`, { method: 'PATCH', token: t, json: { permissions: { deleteAlbum: true, accessSettings: true } } }),
    );
    expect(patched.permissions.deleteAlbum).toBe(true);
    expect(patched.permissions.accessSettings).toBe(false);

    await server.api(`/api/users/${created.id}`, { method: 'PATCH', token: t, json: { password: 'reset-by-admin' } });
    expect((await server.api('/api/auth/login', { method: 'POST', json: { username: 'robin', password: 'reset-by-admin' } })).status).toBe(200);

    expect((await server.api(`/api/users/${created.id}`, { method: 'DELETE', token: t })).status).toBe(200);
    expect((await server.api(`/api/users/${created.id}`, { method: 'DELETE', token: t })).status).toBe(404);
  });

  it('protects the last active administrator from deletion, disabling and demotion', async () => {
    server = await startTestServer();
    const t = server.admin.token;
    for (const change of [{ role: 'user' }, { status: 'disabled' }]) {
      const res = await server.api('/api/users/1', { method: 'PATCH', token: t, json: change });
      expect(res.status).toBe(409);
      expect((await json(res)).code).toBe('LAST_ADMIN');
    }
    expect((await server.api('/api/users/1', { method: 'DELETE', token: t })).status).toBe(409);
    const second = await json(await server.api('/api/users', { method: 'POST', token: t, json: { username: 'boss2', password: 'password-123', role: 'admin' } }));
    expect((await server.api('/api/users/1', { method: 'PATCH', token: t, json: { role: 'user' } })).status).toBe(200);
    expect((await server.api(`/api/users/${second.id}`, { method: 'DELETE', token: t })).status).toBe(403);
  });

  it('keeps per-user preferences: Lidarr, discover layout, listening history', async () => {
    server = await startTestServer();
    const t = server.admin.token;
    expect(await json(await server.api('/api/users/me/lidarr-preferences', { token: t }))).toEqual({
      managedBy: null,
      rootFolderPath: null,
      qualityProfileId: null,
      metadataProfileId: null,
    });
    const prefs = await json(
      await server.api('/api/users/me/lidarr-preferences', { method: 'PATCH', token: t, json: { managedBy: 'aurral', rootFolderPath: '/music', qualityProfileId: 2 } }),
    );
    expect(prefs).toEqual({ managedBy: 'aurral', rootFolderPath: '/music', qualityProfileId: 2, metadataProfileId: null });
    expect((await server.api('/api/users/me/lidarr-preferences', { method: 'PATCH', token: t, json: { managedBy: 'plex' } })).status).toBe(400);

    const layout = [{ id: 'recommended', visible: true }, { id: 'trending', visible: false }];
    await server.api('/api/users/me/discover-layout', { method: 'PATCH', token: t, json: { layout } });
    expect(await json(await server.api('/api/users/me/discover-layout', { token: t }))).toEqual({ layout });

    expect(await json(await server.api('/api/users/me/listening-history', { token: t }))).toEqual({
      listenHistoryProvider: 'local',
      listenHistoryUsername: null,
      listenHistoryUrl: null,
      lastfmUsername: null,
    });
    await server.api('/api/users/1', { method: 'PATCH', token: t, json: { listeningHistory: { provider: 'listenbrainz', username: 'me' } } });
    expect(await json(await server.api('/api/users/me/listening-history', { token: t }))).toEqual({
      listenHistoryProvider: 'listenbrainz',
      listenHistoryUsername: 'me',
      listenHistoryUrl: null,
      lastfmUsername: null,
    });
    const koito = { provider: 'koito', username: 'me', url: 'http://koito.lan:4110' };
    expect((await server.api('/api/users/1', { method: 'PATCH', token: t, json: { listeningHistory: koito } })).status).toBe(200);
    expect(await json(await server.api('/api/users/me/listening-history', { token: t }))).toMatchObject({
      listenHistoryProvider: 'koito',
      listenHistoryUrl: 'http://koito.lan:4110',
    });
    const badUrl = { provider: 'koito', username: 'me', url: 'ftp://x' };
    expect((await server.api('/api/users/1', { method: 'PATCH', token: t, json: { listeningHistory: badUrl } })).status).toBe(400);
  });

  it('lets a user set only their own listening history', async () => {
    server = await startTestServer();
    const u = await json(await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'ana', password: 'password-123' } }));
    const token = (await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'ana', password: 'password-123' } }))).token;
    expect((await server.api(`/api/users/${u.id}`, { method: 'PATCH', token, json: { listeningHistory: { provider: 'lastfm', username: 'ana' } } })).status).toBe(200);
    expect((await server.api(`/api/users/${u.id}`, { method: 'PATCH', token, json: { role: 'admin' } })).status).toBe(403);
    expect((await server.api('/api/users/1', { method: 'PATCH', token, json: { listeningHistory: { provider: 'lastfm', username: 'x' } } })).status).toBe(403);
  });
});

describe('filesystem', () => {
  it('browses folders only, with parent and writability, public before onboarding and admin-only after', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-fs-'));
    fs.mkdirSync(path.join(root, 'Music'));
    fs.mkdirSync(path.join(root, 'Ärchive'));
    fs.writeFileSync(path.join(root, 'file.txt'), 'x');
    server = await startTestServer({ onboard: false });
    const res = await json(await server.api(`/api/filesystem/browse?path=${encodeURIComponent(root)}`));
    expect(res.path).toBe(root);
    expect(res.parent).toBe(path.dirname(root));
    expect(res.directories).toEqual([
      { name: 'Ärchive', path: path.join(root, 'Ärchive'), writable: true },
      { name: 'Music', path: path.join(root, 'Music'), writable: true },
    ]);
    const ensured = await json(await server.api('/api/filesystem/ensure', { method: 'POST', json: { path: path.join(root, 'new', 'deep') } }));
    expect(ensured).toEqual({ path: path.join(root, 'new', 'deep'), exists: true, created: true, writable: true });
    expect((await server.api('/api/filesystem/ensure', { method: 'POST', json: { path: 'relative/path' } })).status).toBe(400);
    expect((await server.api(`/api/filesystem/browse?path=${encodeURIComponent(path.join(root, 'missing'))}`)).status).toBe(404);

    await server.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'admin', authPassword: 'password-123' } });
    expect((await server.api(`/api/filesystem/browse?path=${encodeURIComponent(root)}`)).status).toBe(401);
    const login = await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'admin', password: 'password-123' } }));
    expect((await server.api(`/api/filesystem/browse?path=${encodeURIComponent(root)}`, { token: login.token })).status).toBe(200);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('health', () => {
  it('shows basic fields publicly and the detailed shape to a credential', async () => {
    server = await startTestServer();
    const pub = await json(await server.api('/api/health'));
    expect(Object.keys(pub).sort()).toEqual(['appVersion', 'authRequired', 'oidcEnabled', 'onboardingRequired', 'status', 'timestamp']);
    const full = await json(await server.api('/api/health', { headers: { 'x-api-key': server.apiKey } }));
    expect(full).toMatchObject({
      authUser: 'api',
      lidarr: { configured: false, circuitOpen: false },
      lidarrConfigured: false,
      slskdConfigured: false,
      system: { platform: process.platform, database: { engine: 'sqlite' }, dataDir: server.dataDir },
      websocket: { clients: 0 },
      library: { artistCount: expect.any(Number) },
    });
    for (const key of ['usenetConfigured', 'ytdlpConfigured', 'downloadSources', 'metadataProviders', 'localNetworkBypass', 'discovery'])
      expect(full).toHaveProperty(key);
    expect(full.oidcLogoutUrl).toBeNull();
    expect(full.proxyLogoutUrl).toBeNull();
    expect(full.downloadSources.usenet).toMatchObject({ sabnzbdConfigured: false, nzbgetConfigured: false, prowlarrConfigured: false });
    expect(full.downloadSources.slskd).toEqual({ id: 'slskd', label: 'Soulseek (slskd)', configured: false, enabled: true, priority: 10 });
    // Without a Last.fm key discovery falls back to ListenBrainz with reduced capabilities.
    expect(full.discovery).toMatchObject({
      provider: 'listenbrainz',
      capabilities: { arbitraryTagSearch: false, flows: { discover: true, focus: false, mix: false, trending: true }, relatedArtists: false },
      isUpdating: false,
      recommendationsCount: 0,
      cachedImagesSizeBytes: 0,
      updatePhase: null,
    });
    const data = full.system.diskSpace.find((d: Record<string, unknown>) => d.role === 'data');
    expect(data).toMatchObject({ location: server.dataDir, statTarget: server.dataDir, available: true });
    expect(data.freeBytes).toBeGreaterThan(0);
    expect(data.totalBytes).toBeGreaterThanOrEqual(data.freeBytes);
    expect(data.usedPercent).toBeGreaterThanOrEqual(0);
    expect((await json(await server.api('/api/health/live'))).status).toBe('ok');
  });

  it('reports a missing download folder on its nearest existing parent, and the proxy logout page', async () => {
    const missing = path.join(os.tmpdir(), `tonearm-nowhere-${process.pid}`, 'downloads');
    server = await startTestServer({ env: { AUTH_PROXY_LOGOUT_URL: 'https://sso.lan/logout' } });
    await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { folderPath: missing } } });
    await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { slskd: { enabled: false, priority: 5 } } } });
    const full = await json(await server.api('/api/health', { token: server.admin.token }));
    expect(full.proxyLogoutUrl).toBe('https://sso.lan/logout');
    expect(full.system.diskSpace.find((d: Record<string, unknown>) => d.role === 'downloads')).toMatchObject({
      location: missing,
      statTarget: os.tmpdir(),
      available: false,
    });
    expect(full.downloadSources.slskd).toMatchObject({ enabled: false, priority: 5 });
    const bad = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { slskd: { priority: 'high' } } } });
    expect(bad.status).toBe(400);
  });
});
