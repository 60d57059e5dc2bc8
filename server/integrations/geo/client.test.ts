import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeoFake, type GeoFake } from '../../../test/fakes/geo/index.js';
import { IntegrationError } from '../errors.js';
import { geoClients, IpApiClient, NominatimClient, resolveLocation, ZippopotamClient, type GeoClients } from './client.js';

let fake: GeoFake;
let clients: GeoClients;
beforeAll(async () => {
  fake = await startGeoFake([
    { postcode: '11211', countryCode: 'US', country: 'United States', city: 'Brooklyn', state: 'New York', stateCode: 'NY', lat: 40.7122, lon: -73.9535 },
    { postcode: 'LS1 4DY', countryCode: 'GB', country: 'United Kingdom', city: 'Leeds', state: 'England', lat: 53.7997, lon: -1.5492 },
    { postcode: '10115', countryCode: 'DE', country: 'Germany', city: 'Berlin', state: 'Berlin', lat: 52.532, lon: 13.3849 },
  ]);
  fake.ips.set(fake.selfIp, fake.places[0]!);
  clients = geoClients({ zippopotam: fake.zippopotamUrl, nominatim: fake.nominatimUrl, ipapi: fake.ipapiUrl }, 'Tonearm/test (+https://example.org)', 0);
});
afterAll(async () => {
  await fake.close();
});
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};
const path = () => fake.requests.at(-1)!.path;

describe('geolocation helpers', () => {
  it('coordinates are used as typed, without a request', async () => {
    const before = fake.requests.length;
    expect(await resolveLocation(' 40.71, -74.0 ', clients)).toMatchObject({ lat: 40.71, lon: -74, source: 'coordinates' });
    expect(await resolveLocation('95, 10', clients)).toBeNull();
    expect(fake.requests.length).toBe(before);
  });

  it('a US ZIP code goes to Zippopotam; an unknown one falls back to Nominatim and may match nothing', async () => {
    expect(await resolveLocation('11211', clients)).toEqual({
      lat: 40.7122,
      lon: -73.9535,
      label: 'Brooklyn, NY',
      city: 'Brooklyn',
      region: 'NY',
      postalCode: '11211',
      countryCode: 'US',
      source: 'zippopotam',
    });
    expect(path()).toBe('/zippopotam/us/11211');
    expect(await resolveLocation('99999', clients)).toBeNull();
    expect(fake.requests.slice(-2).map((r) => r.path)).toEqual(['/zippopotam/us/99999', '/nominatim/search']);
  });

  it('other postcodes and place names go to Nominatim with jsonv2 and address details', async () => {
    expect(await resolveLocation('LS1 4DY', clients, { countryCode: 'gb' })).toMatchObject({ lat: 53.7997, lon: -1.5492, label: 'Leeds, England', countryCode: 'GB', source: 'nominatim' });
    const q = fake.requests.at(-1)!.query;
    expect([q.get('postalcode'), q.get('countrycodes'), q.get('format'), q.get('addressdetails'), q.get('limit')]).toEqual(['LS1 4DY', 'gb', 'jsonv2', '1', '1']);
    expect(await resolveLocation('Berlin', clients)).toMatchObject({ city: 'Berlin', countryCode: 'DE' });
    expect(fake.requests.at(-1)!.query.get('q')).toBe('Berlin');
    // Nominatim's usage policy: no generic User-Agent.
    const blocked = await failure(new NominatimClient({ baseUrl: fake.nominatimUrl, userAgent: 'node', spacingMs: 0, retries: 0 }).search({ q: 'Leeds' }));
    expect(blocked.kind).toBe('unauthorized');
  });

  it("nothing typed locates the server's public address with ipapi; reserved addresses have no location", async () => {
    expect(await resolveLocation('', clients)).toMatchObject({ city: 'Brooklyn', region: 'NY', source: 'ipapi' });
    expect(path()).toBe('/ipapi/json/');
    const ipapi = new IpApiClient({ baseUrl: fake.ipapiUrl, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10 });
    expect(await ipapi.locate('192.168.1.20')).toBeNull();
    expect((await failure(ipapi.locate('not-an-ip'))).kind).toBe('bad_request');
    fake.ipapiRateLimitNext(1);
    expect((await ipapi.locate(fake.selfIp))?.postalCode).toBe('11211');
    fake.ipapiRateLimitNext(3);
    expect((await failure(ipapi.locate(fake.selfIp))).kind).toBe('rate_limited');
  });

  it('Nominatim is spaced one second apart by default; a service that is down is unreachable', async () => {
    const nominatim = new NominatimClient({ baseUrl: fake.nominatimUrl, userAgent: 'Tonearm/test' });
    const before = fake.requests.length;
    await Promise.all([nominatim.search({ q: 'Leeds' }), nominatim.search({ q: 'Berlin' })]);
    const seen = fake.requests.slice(before);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    fake.faults.down = true;
    try {
      expect((await failure(new ZippopotamClient({ baseUrl: fake.zippopotamUrl, userAgent: 'x', retries: 0 }).lookup('11211'))).kind).toBe('unreachable');
    } finally {
      fake.faults.down = false;
    }
  });
});
