import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_RETRY_MS } from '../../server/domain/metadata/service.js';
import { startCoverArtFake, type CoverArtFake } from '../fakes/coverart/index.js';
import { startMetadataFake, type MetadataFake } from '../fakes/metadata/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The Lidarr-format metadata provider asked before MusicBrainz, with failover and its health entry. */
let server: TestServer;
let mb: MusicBrainzFake;
let sky: MetadataFake;
let caa: CoverArtFake;

const get = async (pathname: string) => {
  const res = await server.api(pathname, { token: server.admin.token });
  return { status: res.status, body: (await res.json()) as any };
};
const health = async () => (await get('/api/health')).body;
const mbCalls = (path: string) => mb.requests.filter((r) => r.path === path).length;
const skyCalls = (path: string) => sky.requests.filter((r) => r.path === path).length;

beforeAll(async () => {
  mb = await startMusicBrainzFake(catalogue);
  sky = await startMetadataFake(catalogue);
  caa = await startCoverArtFake();
  server = await startTestServer({
    env: {
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_METADATA_URL: sky.url,
      TONEARM_COVERART_URL: caa.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
      TONEARM_SCAN_ON_START: '0',
    },
  });
}, 30_000);
afterAll(async () => {
  await server.stop();
  await Promise.all([mb.close(), sky.close(), caa.close()]);
});

describe('the Lidarr-format metadata provider', () => {
  it('is in health next to MusicBrainz before first use, with null times', async () => {
    const body = await health();
    expect(body.metadataConfigured).toBe(true);
    expect(body.metadataProviders).toEqual({
      brainzmash: { activeBaseUrl: sky.url, configuredProvider: 'brainzmash', failoverActive: false, lastCheckedAt: null, lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null },
      musicbrainz: { activeBaseUrl: mb.url, configuredProvider: 'musicbrainz', failoverActive: false, lastCheckedAt: null, lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null },
    });
    expect(sky.requests).toHaveLength(0);
  });

  it('names TONEARM_METADATA_URL in the settings as read-only (the metadata card shows it), and a settings answer sent back keeps it out of the stored settings', async () => {
    const read = await get('/api/settings');
    expect(read.body.environment).toEqual({ metadataUrl: sky.url });
    expect(read.body.integrations.metadata.baseUrl).toBe('');
    const back = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { environment: read.body.environment, integrations: { metadata: { baseUrl: '' } } } });
    expect(back.status).toBe(200);
    expect((await back.json()).environment).toEqual({ metadataUrl: sky.url });
    expect(server.ctx.settings.get()).not.toHaveProperty('environment');
  });

  it('answers artist pages, release groups and track lists without asking MusicBrainz', async () => {
    const artist = await get(`/api/artists/${ids.aurora}?mode=core`);
    expect(artist.status).toBe(200);
    expect(artist.body).toMatchObject({ id: ids.aurora, name: 'Aurora Lane', genres: ['dream pop'] });
    expect(artist.body['release-groups'].map((g: any) => [g.title, g['primary-type'], g['secondary-types'], g['first-release-date']])).toEqual([
      ['Dusk', 'Album', [], '2024-10-11'],
      ['Dawn', 'Album', [], '2019-03-01'],
      ['Live at Nowhere', 'Album', ['Live'], '2021-01-01'],
      ['Tide', 'Single', [], '2018-06-01'],
    ]);
    expect(artist.body.links).toEqual([{ type: 'official homepage', url: 'https://aurora.example' }]);

    const group = await get(`/api/artists/release-group/${ids.rgDawn}`);
    expect(group.status).toBe(200);
    expect(group.body).toMatchObject({ id: ids.rgDawn, title: 'Dawn', 'primary-type': 'Album', rating: 4.5 });
    const tracks = await get(`/api/artists/release-group/${ids.rgDawn}/tracks`);
    expect(tracks.status).toBe(200);
    expect(tracks.body.releaseId).toBe(ids.relDawn);
    expect(tracks.body.tracks.map((t: any) => t.title)).toEqual(['First Light', 'Morning Tide', 'Glass Sky']);

    expect(skyCalls(`/artist/${ids.aurora}`)).toBe(1);
    expect(skyCalls(`/album/${ids.rgDawn}`)).toBe(1);
    expect(mbCalls(`/artist/${ids.aurora}`) + mbCalls('/release-group') + mbCalls(`/release-group/${ids.rgDawn}`) + mbCalls(`/release/${ids.relDawn}`)).toBe(0);
    const entry = (await health()).metadataProviders.brainzmash;
    expect(entry).toMatchObject({ failoverActive: false, lastFailureAt: null });
    expect(entry.lastSuccessAt).not.toBeNull();
  });

  it('leaves what the provider lacks to MusicBrainz without calling it a failure', async () => {
    const lateId = '00000000-0000-4000-8000-000000000888';
    mb.add({ id: lateId, name: 'Late Arrival', releaseGroups: [] });
    const page = await get(`/api/artists/${lateId}?mode=core`);
    expect(page).toMatchObject({ status: 200, body: { name: 'Late Arrival' } });
    expect(skyCalls(`/artist/${lateId}`)).toBe(1);
    expect(mbCalls(`/artist/${lateId}`)).toBe(1);
    expect((await health()).metadataProviders.brainzmash.failoverActive).toBe(false);
  });

  it('fails over to MusicBrainz while the provider is down, and says so in health', async () => {
    sky.faults.down = true;
    try {
      const page = await get(`/api/artists/${ids.auroraBorealis}?mode=core`);
      expect(page).toMatchObject({ status: 200, body: { name: 'Aurora Borealis Choir' } });
      expect(mbCalls(`/artist/${ids.auroraBorealis}`)).toBe(1);
      const entry = (await health()).metadataProviders.brainzmash;
      expect(entry).toMatchObject({ configuredProvider: 'brainzmash', failoverActive: true, activeBaseUrl: mb.url });
      expect(entry.lastFailureAt).not.toBeNull();
      expect(entry.lastFailureReason).toMatch(/metadata provider/i);

      // During the failover the provider is not asked again for a while: MusicBrainz answers at once.
      const seen = sky.requests.length;
      const group = await get(`/api/artists/release-group/${ids.rgDusk}`);
      expect(group).toMatchObject({ status: 200, body: { title: 'Dusk' } });
      expect(sky.requests.length).toBe(seen);
      expect(mbCalls(`/release-group/${ids.rgDusk}`)).toBe(1);
    } finally {
      sky.faults.down = false;
    }
  });

  it('goes back to the provider once it answers again', async () => {
    server.clock.advance(PROVIDER_RETRY_MS + 1);
    const page = await get(`/api/artists/${ids.guest}?mode=core`);
    expect(page).toMatchObject({ status: 200, body: { name: 'Guest Singer' } });
    expect(skyCalls(`/artist/${ids.guest}`)).toBe(1);
    expect(mbCalls(`/artist/${ids.guest}`)).toBe(0);
    const entry = (await health()).metadataProviders.brainzmash;
    expect(entry).toMatchObject({ failoverActive: false, activeBaseUrl: sky.url });
    expect(Date.parse(entry.lastSuccessAt)).toBeGreaterThan(Date.parse(entry.lastFailureAt));
  });

  it('fails over on 5xx answers (after its one retry) as well', async () => {
    sky.faults.failNext(2, 503);
    const before = sky.requests.length;
    const group = await get(`/api/artists/release-group/${ids.rgSingle}`);
    expect(group).toMatchObject({ status: 200, body: { title: 'Tide' } });
    expect(sky.requests.length - before).toBe(2);
    expect(mbCalls(`/release-group/${ids.rgSingle}`)).toBe(1);
    const entry = (await health()).metadataProviders.brainzmash;
    expect(entry.failoverActive).toBe(true);
    expect(entry.lastFailureReason).toMatch(/503/);
  });

  it('is reported with nothing to report when switched off in settings (clients read the brainzmash entry)', async () => {
    const off = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { metadata: { enabled: false } } } });
    expect(off.status).toBe(200);
    const body = await health();
    expect(body.metadataConfigured).toBe(false);
    expect(Object.keys(body.metadataProviders).sort()).toEqual(['brainzmash', 'musicbrainz']);
    expect(body.metadataProviders.brainzmash).toEqual({ activeBaseUrl: null, configuredProvider: null, failoverActive: false, lastCheckedAt: null, lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null });
    const on = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { metadata: { enabled: true, baseUrl: sky.url } } } });
    expect(on.status).toBe(200);
    expect(Object.keys((await health()).metadataProviders).sort()).toEqual(['brainzmash', 'musicbrainz']);
  });
});
