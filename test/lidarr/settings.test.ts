import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from '../fakes/lidarr/index.js';
import { startNavidromeFake, type NavidromeFake } from '../fakes/navidrome/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { setup, type Setup } from './helpers.js';

let s: Setup;
let navidrome: NavidromeFake;

beforeAll(async () => {
  s = await setup({ urlBase: '/lidarr' });
  navidrome = await startNavidromeFake({ username: 'nd', password: 'nd-secret' });
});
afterAll(async () => {
  await s.close();
  await navidrome.close();
});

describe('onboarding with Lidarr and Navidrome', () => {
  let fresh: TestServer;
  let fake: LidarrFake;
  beforeAll(async () => {
    fake = await startLidarrFake();
    fresh = await startTestServer({ onboard: false });
  });
  afterAll(async () => {
    await fresh.stop();
    await fake.close();
  });
  const post = async (pathname: string, json: unknown) => {
    const res = await fresh.api(pathname, { method: 'POST', json });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('lists profiles and tests the connection without a credential before onboarding completes', async () => {
    const creds = { url: fake.url, apiKey: fake.apiKey };
    const profiles = await post('/api/onboarding/lidarr/profiles', creds);
    expect(profiles.status).toBe(200);
    expect(profiles.body.map((p: any) => p.name)).toEqual(['Any', 'Lossless', 'Standard']);
    const metadata = await post('/api/onboarding/lidarr/metadata-profiles', creds);
    expect(metadata.body.map((p: any) => p.name)).toEqual(['Standard', 'None']);
    const test = await post('/api/onboarding/lidarr/test', creds);
    expect(test).toEqual({ status: 200, body: { success: true, version: '2.14.5.4836', instanceName: 'Lidarr', message: 'Connected to Lidarr 2.14.5.4836' } });
    const nd = await post('/api/onboarding/navidrome/test', { url: navidrome.url, username: 'nd', password: 'nd-secret' });
    expect(nd.status).toBe(200);
    expect(nd.body).toMatchObject({ success: true, type: 'navidrome', serverVersion: '0.53.3' });
  });

  it('names the cause when the test fails: wrong key, refused, wrong URL base', async () => {
    const unauthorized = await post('/api/onboarding/lidarr/test', { url: fake.url, apiKey: 'wrong' });
    expect(unauthorized.status).toBe(502);
    expect(unauthorized.body).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', message: 'lidarr: Lidarr rejected the API key (401)' });
    const closed = await startLidarrFake();
    await closed.close();
    const refused = await post('/api/onboarding/lidarr/test', { url: closed.url, apiKey: 'x' });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(refused.body.message).toContain('connection refused');
    const wrongBase = await post('/api/onboarding/lidarr/test', { url: `${s.fake.url.replace('/lidarr', '')}`, apiKey: s.fake.apiKey });
    expect(wrongBase.status).toBe(502);
    expect(wrongBase.body.message).toContain('check the URL and its URL base');
    const badNavidrome = await post('/api/onboarding/navidrome/test', { url: navidrome.url, username: 'nd', password: 'wrong' });
    expect(badNavidrome.status).toBe(502);
    expect(badNavidrome.body.code).toBe('UPSTREAM_AUTH_FAILED');
  });

  it('completes onboarding with Lidarr settings, after which the onboarding routes answer 403', async () => {
    const done = await post('/api/onboarding/complete', {
      authUser: 'admin',
      authPassword: 'correct horse battery',
      lidarr: { url: fake.url, apiKey: fake.apiKey, qualityProfileId: 2, metadataProfileId: 1 },
    });
    expect(done.status).toBe(200);
    expect(fresh.ctx.settings.get().integrations.lidarr).toMatchObject({ url: fake.url, qualityProfileId: 2, metadataProfileId: 1 });
    const again = await post('/api/onboarding/lidarr/test', { url: fake.url, apiKey: fake.apiKey });
    expect(again).toEqual({ status: 403, body: { error: 'Onboarding already completed', message: 'Onboarding already completed' } });
  });
});

describe('settings routes', () => {
  it('reads profiles, metadata profiles, root folders and tags from Lidarr', async () => {
    expect((await s.call('GET', '/api/settings/lidarr/profiles')).body.map((p: any) => p.id)).toEqual([1, 2, 3]);
    expect((await s.call('GET', '/api/settings/lidarr/metadata-profiles')).body.map((p: any) => p.id)).toEqual([1, 2]);
    const folders = await s.call('GET', '/api/settings/lidarr/root-folders');
    expect(folders.body).toHaveLength(1);
    expect(folders.body[0]).toMatchObject({ id: 1, path: s.root, accessible: true });
    s.fake.state.tags.push({ id: 4, label: 'tonearm' });
    expect((await s.call('GET', '/api/settings/lidarr/tags')).body).toEqual([{ id: 4, label: 'tonearm' }]);
  });

  it('tests the saved connection through the same client background work uses', async () => {
    const before = s.fake.state.countOf('GET /system/status');
    const test = await s.call('GET', '/api/settings/lidarr/test');
    expect(test).toEqual({ status: 200, body: { success: true, version: '2.14.5.4836', instanceName: 'Lidarr', message: 'Connected to Lidarr 2.14.5.4836' } });
    expect(s.fake.state.countOf('GET /system/status')).toBe(before + 1);
  });

  it('checks library access through the path mappings', async () => {
    const ok = await s.call('GET', '/api/settings/lidarr/test-library-access');
    expect(ok.body).toMatchObject({ success: true, rootFolders: [{ path: s.root, localPath: s.root, accessible: true, reason: null }] });
    // Lidarr sees /data/music; here it is the temp folder.
    s.fake.state.rootFolders[0]!.path = '/data/music';
    const unmapped = await s.call('GET', '/api/settings/lidarr/test-library-access');
    expect(unmapped.body.success).toBe(false);
    expect(unmapped.body.rootFolders[0]).toMatchObject({ localPath: '/data/music', accessible: false });
    expect(unmapped.body.rootFolders[0].reason).toContain('path mapping');
    await s.call('POST', '/api/settings', { integrations: { lidarr: { pathMappings: [{ from: '/data/music', to: s.root }] } } });
    const mapped = await s.call('GET', '/api/settings/lidarr/test-library-access');
    expect(mapped.body.rootFolders[0]).toMatchObject({ path: '/data/music', localPath: s.root, accessible: true });
    s.fake.state.rootFolders[0]!.path = s.root;
    await s.call('POST', '/api/settings', { integrations: { lidarr: { pathMappings: [] } } });
  });

  it('applies the recommended profiles in Lidarr and makes them the defaults; a second run reuses them', async () => {
    const first = await s.call('POST', '/api/settings/lidarr/apply-community-guide');
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.applied.map((a: any) => [a.item, a.action])).toEqual([
      ['qualityProfile', 'created'],
      ['metadataProfile', 'created'],
      ['defaults', 'updated'],
      ['naming', 'skipped'],
    ]);
    const quality = s.fake.state.qualityProfiles.find((p) => p.id === first.body.qualityProfileId) as any;
    expect(quality.name).toBe('Tonearm: lossless preferred');
    expect(quality.items.filter((i: any) => i.allowed).map((i: any) => i.quality.name)).toEqual(['MP3-320', 'FLAC', 'ALAC']);
    expect(quality.cutoff).toBe(6);
    const metadata = s.fake.state.metadataProfiles.find((p) => p.id === first.body.metadataProfileId) as any;
    expect(metadata.primaryAlbumTypes.filter((t: any) => t.allowed).map((t: any) => t.albumType.name)).toEqual(['Album', 'EP']);
    expect(s.server.ctx.settings.get().integrations.lidarr).toMatchObject({
      qualityProfileId: first.body.qualityProfileId,
      metadataProfileId: first.body.metadataProfileId,
    });
    const second = await s.call('POST', '/api/settings/lidarr/apply-community-guide');
    expect(second.body.applied.slice(0, 2).map((a: any) => a.action)).toEqual(['existing', 'existing']);
    expect(s.fake.state.qualityProfiles).toHaveLength(4);
  });

  it('tests Navidrome with the body or the saved settings', async () => {
    const body = await s.call('POST', '/api/settings/navidrome/test', { url: navidrome.url, username: 'nd', password: 'nd-secret' });
    expect(body.status).toBe(200);
    expect(body.body.success).toBe(true);
    const unsaved = await s.call('POST', '/api/settings/navidrome/test', {});
    expect(unsaved.status).toBe(409);
    expect(unsaved.body.code).toBe('NOT_CONFIGURED');
    await s.call('POST', '/api/settings', { integrations: { navidrome: { url: navidrome.url, username: 'nd', password: 'nd-secret' } } });
    const saved = await s.call('POST', '/api/settings/navidrome/test', { password: '********' });
    expect(saved.status).toBe(200);
    const ping = navidrome.state.requests.at(-1)!;
    expect(ping.method).toBe('ping');
    expect(ping.query.t).toMatch(/^[0-9a-f]{32}$/);
    expect(ping.query.p).toBeUndefined();
  });

  it('serves the neutral names (libmgr, musicserver) with the same handlers', async () => {
    const real = await s.call('GET', '/api/settings/lidarr/profiles');
    const neutral = await s.call('GET', '/api/settings/libmgr/profiles');
    expect(neutral).toEqual(real);
    expect((await s.call('GET', '/api/settings/libmgr/test')).body.success).toBe(true);
    expect((await s.call('POST', '/api/settings/musicserver/test', { password: '********' })).status).toBe(200);
  });

  it('is for administrators only', async () => {
    const login = await s.call('POST', '/api/users', { username: 'listener', password: 'a long enough password', role: 'user' });
    expect(login.status).toBe(201);
    const session = await s.call('POST', '/api/auth/login', { username: 'listener', password: 'a long enough password' }, {});
    const asUser = await s.call('GET', '/api/settings/lidarr/profiles', undefined, { authorization: `Bearer ${session.body.token}` });
    expect(asUser).toEqual({ status: 403, body: { error: 'Forbidden', message: 'Admin access required' } });
    expect((await s.call('GET', '/api/settings/lidarr/test', undefined, {})).status).toBe(401);
  });

  it('answers 409 NOT_CONFIGURED naming the setting when Lidarr is not configured', async () => {
    const bare = await startTestServer();
    try {
      const res = await bare.api('/api/settings/lidarr/profiles', { headers: bare.admin.headers });
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('integrations.lidarr.url') });
      const health = (await (await bare.api('/api/health', { headers: bare.admin.headers })).json()) as any;
      expect(health.lidarr).toEqual({ configured: false, circuitOpen: false });
    } finally {
      await bare.stop();
    }
  });

  it('treats a switched-off Lidarr as not configured, keeping its settings for when it is switched on again', async () => {
    const off = await s.call('POST', '/api/settings', { integrations: { lidarr: { enabled: false } } });
    expect(off.status).toBe(200);
    try {
      const res = await s.call('GET', '/api/settings/lidarr/profiles');
      expect(res).toMatchObject({ status: 409, body: { code: 'NOT_CONFIGURED', message: expect.stringContaining('integrations.lidarr.enabled') } });
      const health = (await s.call('GET', '/api/health')).body;
      expect(health.lidarrConfigured).toBe(false);
      expect((await s.call('GET', '/api/settings')).body.integrations.lidarr).toMatchObject({ enabled: false, url: s.fake.url });
    } finally {
      await s.call('POST', '/api/settings', { integrations: { lidarr: { enabled: true } } });
    }
    expect((await s.call('GET', '/api/settings/lidarr/profiles')).status).toBe(200);
  });
});

