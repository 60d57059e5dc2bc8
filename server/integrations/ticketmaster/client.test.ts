import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTicketmasterFake, type TicketmasterFake } from '../../../test/fakes/ticketmaster/index.js';
import { IntegrationError } from '../errors.js';
import { geohash, TicketmasterClient, ticketmasterBodyError, ticketmasterDate } from './client.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const day = 86_400_000;
let fake: TicketmasterFake;
beforeAll(async () => {
  fake = await startTicketmasterFake();
  // Manhattan, Brooklyn (≈ 5 miles), Philadelphia (≈ 80 miles), Los Angeles (far away).
  fake.venues.set('V1', { id: 'V1', name: 'Bowery Ballroom', city: 'New York', stateCode: 'NY', postalCode: '10002', lat: 40.7204, lon: -73.9934 });
  fake.venues.set('V2', { id: 'V2', name: 'Brooklyn Steel', city: 'Brooklyn', stateCode: 'NY', postalCode: '11211', lat: 40.7195, lon: -73.9389 });
  fake.venues.set('V3', { id: 'V3', name: 'Union Transfer', city: 'Philadelphia', stateCode: 'PA', postalCode: '19123', lat: 39.9614, lon: -75.1551 });
  fake.venues.set('V4', { id: 'V4', name: 'The Echo', city: 'Los Angeles', stateCode: 'CA', postalCode: '90026', lat: 34.0777, lon: -118.2606 });
  fake.attractions.set('K1', { id: 'K1', name: 'Aurora Lane', mbid: '00000000-0000-4000-8000-000000000001', genre: 'Alternative' });
  fake.attractions.set('K2', { id: 'K2', name: 'Velvet Static' });
  fake.events.push(
    { id: 'E1', name: 'Aurora Lane', start: new Date(NOW + 10 * day), venueId: 'V2', attractionIds: ['K1'], priceMin: 25, priceMax: 45 },
    { id: 'E2', name: 'Velvet Static with Aurora Lane', start: new Date(NOW + 3 * day), venueId: 'V1', attractionIds: ['K2', 'K1'] },
    { id: 'E3', name: 'Aurora Lane', start: new Date(NOW + 12 * day), venueId: 'V3', attractionIds: ['K1'] },
    { id: 'E4', name: 'Aurora Lane', start: new Date(NOW + 20 * day), venueId: 'V4', attractionIds: ['K1'] },
    { id: 'E5', name: 'Aurora Lane (last year)', start: new Date(NOW - 300 * day), venueId: 'V1', attractionIds: ['K1'] },
    { id: 'E6', name: 'Velvet Static', start: new Date(NOW + 200 * day), venueId: 'V1', attractionIds: ['K2'] },
  );
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof TicketmasterClient>[0]> = {}) =>
  new TicketmasterClient({ baseUrl: fake.url, apiKey: fake.apiKey, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10, now: () => NOW, ...over });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};
const manhattan = { lat: 40.7128, lon: -74.006 };

describe('Ticketmaster client', () => {
  it('finds music events near a point within the radius, nearest first, in the next 90 days', async () => {
    const near = await client().events({ latlong: manhattan, radius: 25 });
    expect(near.items.map((e) => e.id)).toEqual(['E2', 'E1']);
    expect(near).toMatchObject({ page: 0, totalElements: 2, totalPages: 1 });
    const [first, second] = near.items;
    expect(first!.venue).toMatchObject({ name: 'Bowery Ballroom', city: 'New York', stateCode: 'NY', latitude: 40.7204, longitude: -73.9934 });
    expect(first!.attractions.map((a) => [a.name, a.mbid])).toEqual([
      ['Velvet Static', null],
      ['Aurora Lane', '00000000-0000-4000-8000-000000000001'],
    ]);
    expect(first!.images.every((i) => !i.url.includes('fallback'))).toBe(true);
    expect(second).toMatchObject({ localDate: '2026-12-04', dateTime: '2026-12-04T12:00:00Z', priceRange: { currency: 'USD', min: 25, max: 45 }, units: 'MILES' });
    expect(second!.distance).toBeGreaterThan(2);
    const sent = fake.requests.at(-1)!.query;
    expect(Object.fromEntries(['classificationName', 'latlong', 'radius', 'unit', 'sort', 'startDateTime', 'endDateTime', 'apikey'].map((k) => [k, sent.get(k)]))).toEqual({
      classificationName: 'music',
      latlong: '40.7128,-74.0060',
      radius: '25',
      unit: 'miles',
      sort: 'distance,asc',
      startDateTime: '2026-11-24T12:00:00Z',
      endDateTime: ticketmasterDate(NOW + 90 * day),
      apikey: fake.apiKey,
    });
    const wider = await client().events({ latlong: manhattan, radius: 100 });
    expect(wider.items.map((e) => e.id)).toEqual(['E2', 'E1', 'E3']);
    expect(geohash(40.7128, -74.006)).toBe('dr5regw3p');
    const byHash = await client().events({ geoPoint: manhattan, radius: 25 });
    expect(byHash.items.map((e) => e.id)).toEqual(['E2', 'E1']);
    expect(fake.requests.at(-1)!.query.get('geoPoint')).toBe('dr5regw3p');
    expect(fake.requests.at(-1)!.query.get('latlong')).toBeNull();
  });

  it('by keyword or attractionId, paged with page and size; no results has no _embedded', async () => {
    const byArtist = await client().events({ attractionId: 'K1', size: 2 });
    expect(byArtist).toMatchObject({ totalElements: 4, totalPages: 2, page: 0 });
    expect(byArtist.items.map((e) => e.id)).toEqual(['E2', 'E1']);
    const next = await client().events({ attractionId: 'K1', size: 2, page: 1 });
    expect(next.items.map((e) => e.id)).toEqual(['E3', 'E4']);
    const kw = await client().events({ keyword: 'velvet', latlong: manhattan, radius: 10 });
    expect(kw.items.map((e) => e.id)).toEqual(['E2']);
    const none = await client().events({ keyword: 'nobody at all' });
    expect(none).toEqual({ items: [], page: 0, size: 200, totalElements: 0, totalPages: 0 });
    const attractions = await client().attractions('aurora');
    expect(attractions.items.map((a) => [a.id, a.mbid, a.genres])).toEqual([['K1', '00000000-0000-4000-8000-000000000001', ['Alternative']]]);
  });

  it('errors: an invalid key (fault) is unauthorized, quota retried then rate_limited, deep paging bad_request', async () => {
    const badKey = await failure(client({ apiKey: 'nope' }).events({ latlong: manhattan }));
    expect(badKey.kind).toBe('unauthorized');
    expect(badKey.message).not.toContain('nope');
    fake.quotaNext(1);
    expect((await client().events({ attractionId: 'K2' })).items.length).toBe(1);
    fake.quotaNext(3);
    expect((await failure(client({ retries: 2 }).events({ attractionId: 'K2' }))).kind).toBe('rate_limited');
    const deep = await failure(client().events({ attractionId: 'K1', size: 200, page: 5 }));
    expect(deep.kind).toBe('bad_request');
    expect(ticketmasterBodyError({ fault: { faultstring: 'x', detail: { errorcode: 'policies.ratelimit.SpikeArrestViolation' } } }, 429)).toMatchObject({ status: 429 });
    expect(ticketmasterBodyError({ _embedded: {} }, 200)).toBeNull();
  });

  it('retries a 503, times out when slow, reports a service that is down', async () => {
    fake.faults.failNext(2, 503);
    expect((await client().events({ attractionId: 'K2' })).items).toHaveLength(1);
    fake.faults.delayMs = 300;
    try {
      expect((await failure(client({ timeoutMs: 100, retries: 0 }).events({ attractionId: 'K2' }))).kind).toBe('timeout');
    } finally {
      fake.faults.delayMs = 0;
    }
    fake.faults.down = true;
    try {
      expect((await failure(client({ retries: 0 }).events({ attractionId: 'K2' }))).kind).toBe('unreachable');
    } finally {
      fake.faults.down = false;
    }
  });
});
