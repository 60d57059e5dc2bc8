import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeoFake, type FakePlace, type GeoFake } from '../fakes/geo/index.js';
import { startTicketmasterFake, type TicketmasterFake } from '../fakes/ticketmaster/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { discoveryRepository } from '../../server/db/discovery.js';
import { nameKey } from '../../server/db/libraryText.js';

let server: TestServer;
let tm: TicketmasterFake;
let geo: GeoFake;

const brooklyn: FakePlace = { postcode: '11211', countryCode: 'US', country: 'United States', city: 'Brooklyn', state: 'New York', stateCode: 'NY', lat: 40.7128, lon: -73.9533 };
const leeds: FakePlace = { postcode: 'LS1 1UR', countryCode: 'GB', country: 'United Kingdom', city: 'Leeds', state: 'England', lat: 53.7997, lon: -1.5492 };
const day = 86_400_000;

type Answer = {
  configured: boolean;
  message?: string;
  location: { label: string; source: string; lat: number; lon: number } | null;
  shows: { id: string; name: string; inLibrary: boolean; date: string | null; venue: { city: string | null } | null; artists: { name: string; libraryArtistId: number | null }[] }[];
  libraryShows: { id: string }[];
  recommendedShows: { id: string }[];
  libraryShowCount: number;
  total: number;
  stale: boolean;
};

const shows = async (query = '') => {
  const res = await server.api(`/api/discover/nearby-shows${query}`, { token: server.admin.token });
  return { res, body: (await res.json()) as Answer };
};

function addArtist(name: string, mbid: string | null = null): number {
  const now = Date.now();
  return Number(
    server.ctx.db
      .prepare('INSERT INTO library_artists (identity_key, mbid, name, sort_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(`test:${name}`, mbid, name, name.toLowerCase(), now, now).lastInsertRowid,
  );
}

beforeAll(async () => {
  tm = await startTicketmasterFake();
  geo = await startGeoFake([brooklyn, leeds]);
  geo.ips.set(geo.selfIp, leeds);
  server = await startTestServer({
    env: { TONEARM_TICKETMASTER_URL: tm.url, TONEARM_GEOCODER_URL: geo.nominatimUrl, TONEARM_ZIPPOPOTAM_URL: geo.zippopotamUrl, TONEARM_IPAPI_URL: geo.ipapiUrl, TONEARM_UPSTREAM_SPACING_MS: '0' },
  });
  const now = Date.now();
  tm.venues.set('v1', { id: 'v1', name: 'Warehouse', city: 'Brooklyn', stateCode: 'NY', countryCode: 'US', postalCode: '11211', lat: 40.714, lon: -73.96 });
  tm.venues.set('v2', { id: 'v2', name: 'Hall', city: 'Manhattan', stateCode: 'NY', countryCode: 'US', postalCode: '10001', lat: 40.75, lon: -73.99 });
  tm.venues.set('v3', { id: 'v3', name: 'Brudenell', city: 'Leeds', countryCode: 'GB', postalCode: 'LS6', lat: 53.81, lon: -1.57 });
  tm.attractions.set('a1', { id: 'a1', name: 'Strangers Nearby' });
  tm.attractions.set('a2', { id: 'a2', name: 'Aurora Lane', mbid: 'aaaaaaaa-1111-4111-8111-111111111111' });
  tm.attractions.set('a3', { id: 'a3', name: 'Velvet Statíc' });
  tm.attractions.set('a4', { id: 'a4', name: 'Leeds Locals' });
  tm.events.push(
    { id: 'e1', name: 'Strangers Nearby live', start: new Date(now + 2 * day), venueId: 'v1', attractionIds: ['a1'], priceMin: 20, priceMax: 40 },
    { id: 'e2', name: 'Aurora Lane: Glass Tide tour', start: new Date(now + 30 * day), venueId: 'v2', attractionIds: ['a2'] },
    { id: 'e3', name: 'Velvet Static with support', start: new Date(now + 10 * day), venueId: 'v1', attractionIds: ['a1', 'a3'] },
    { id: 'e4', name: 'Leeds Locals', start: new Date(now + 5 * day), venueId: 'v3', attractionIds: ['a4'] },
  );
  addArtist('Aurora Lane Renamed', 'aaaaaaaa-1111-4111-8111-111111111111');
  addArtist('Velvet Static');
});

afterAll(async () => {
  await server?.stop();
  await tm?.close();
  await geo?.close();
});

describe('GET /api/discover/nearby-shows', () => {
  it('without a Ticketmaster key: 200 configured:false, nothing asked', async () => {
    const { res, body } = await shows('?location=Brooklyn');
    expect(res.status).toBe(200);
    expect(body.configured).toBe(false);
    expect(body.shows).toEqual([]);
    expect(body.message).toMatch(/integrations\.ticketmaster\.apiKey/);
    expect(tm.requests).toHaveLength(0);
    expect(geo.requests).toHaveLength(0);
  });

  it('with a key: events near the typed place, the library artists’ shows first (by MusicBrainz id or name)', async () => {
    server.ctx.settings.update({ integrations: { ticketmaster: { apiKey: tm.apiKey } } });
    const { res, body } = await shows('?location=Brooklyn');
    expect(res.status).toBe(200);
    expect(body.configured).toBe(true);
    expect(body.location?.label).toMatch(/Brooklyn/);
    expect(body.location?.source).toBe('nominatim');
    expect(body.shows.map((s) => s.id)).toEqual(['e3', 'e2', 'e1']);
    expect(body.shows.map((s) => s.inLibrary)).toEqual([true, true, false]);
    expect(body.libraryShowCount).toBe(2);
    expect(body.libraryShows.map((s) => s.id)).toEqual(['e3', 'e2']);
    expect(body.recommendedShows).toEqual([]);
    expect(body.shows[1]!.artists[0]!.libraryArtistId).not.toBeNull();
    const e3 = body.shows[0]!;
    expect(e3.artists.find((a) => a.name === 'Strangers Nearby')?.libraryArtistId).toBeNull();
    expect(e3.artists.find((a) => a.name === 'Velvet Statíc')?.libraryArtistId).not.toBeNull();
    const call = tm.requests.at(-1)!;
    expect(call.query.get('latlong')).toBe('40.7128,-73.9533');
    expect(call.query.get('classificationName')).toBe('music');
    expect(call.query.get('radius')).toBe('50');
  });

  it("recommendedShows: the other shows with an artist of the caller's discovery recommendations", async () => {
    discoveryRepository(server.ctx.db).replaceUser(1, [{ name_key: nameKey('Strangers Nearby'), name: 'Strangers Nearby', mbid: null, score: 1, source: 'lastfm', seeds_json: '[]', tags_json: '[]', image: null }], [], []);
    try {
      const { body } = await shows('?location=Brooklyn');
      // e3 has Strangers Nearby too, but it is a library show already.
      expect(body.recommendedShows.map((s) => s.id)).toEqual(['e1']);
      expect(body.libraryShows.map((s) => s.id)).toEqual(['e3', 'e2']);
    } finally {
      discoveryRepository(server.ctx.db).replaceUser(1, [], [], []);
    }
  });

  it('caches per location: the same place again asks neither the geocoder nor Ticketmaster', async () => {
    const before = { tm: tm.requests.length, geo: geo.requests.length };
    const again = await shows('?location=brooklyn');
    expect(again.body.shows).toHaveLength(3);
    expect(tm.requests.length).toBe(before.tm);
    expect(geo.requests.length).toBe(before.geo);
    // Later than the cache's 15 minutes: asked again.
    server.clock.advance(16 * 60_000);
    await shows('?location=Brooklyn');
    expect(tm.requests.length).toBe(before.tm + 1);
  });

  it('Ticketmaster failing later: the cached answer is served, marked stale', async () => {
    server.clock.advance(16 * 60_000);
    tm.faults.failNext(5, 503);
    const { res, body } = await shows('?location=Brooklyn');
    expect(res.status).toBe(200);
    expect(body.stale).toBe(true);
    expect(body.shows).toHaveLength(3);
  });

  it('coordinates, the location setting, then the server’s own location', async () => {
    const coords = await shows('?lat=53.8&lon=-1.55&radius=25');
    expect(coords.body.location?.source).toBe('coordinates');
    expect(coords.body.shows.map((s) => s.id)).toEqual(['e4']);
    expect((await shows('?lat=53.8')).res.status).toBe(400);
    expect((await shows('?lat=95&lon=0')).res.status).toBe(400);

    server.ctx.settings.update({ integrations: { ticketmaster: { location: '11211' } } });
    const fromSetting = await shows();
    expect(fromSetting.body.location?.source).toBe('zippopotam');
    expect(fromSetting.body.shows[0]?.inLibrary).toBe(true);

    server.ctx.settings.update({ integrations: { ticketmaster: { location: '' } } });
    const fromServer = await shows();
    expect(fromServer.body.location?.source).toBe('ipapi');
    expect(fromServer.body.location?.label).toMatch(/Leeds/);
    expect(fromServer.body.shows.map((s) => s.id)).toEqual(['e4']);
  });

  it('a place that does not exist is a 400; a bad key is an upstream error, not a crash', async () => {
    const missing = await shows('?location=Nowhereville');
    expect(missing.res.status).toBe(400);
    server.ctx.settings.update({ integrations: { ticketmaster: { apiKey: 'wrong-key' } } });
    const bad = await shows('?lat=10&lon=10');
    expect(bad.res.status).toBe(502);
    expect((bad.body as unknown as { code: string }).code).toBe('UPSTREAM_AUTH_FAILED');
  });
});
