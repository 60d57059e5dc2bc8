import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * Ticketmaster's Discovery API v2 on 127.0.0.1 (`/discovery/v2/events.json`, `/attractions.json`):
 * `apikey` checked (401 Apigee fault `oauth.v2.InvalidApiKey`), events filtered by
 * `latlong` + `radius` + `unit` (great-circle distance, `sort=distance,asc`), `postalCode`,
 * `geoPoint` (a geohash), `keyword` (event or attraction name), `attractionId`, the date window, paged by 0-based `page`
 * and `size` (≤ 200; page × size ≥ 1000 is the real DIS1035 error), `_embedded` absent with no
 * results, coordinates as strings. `quotaNext(n)` answers the 429 quota fault.
 */
export interface FakeVenue {
  id: string;
  name: string;
  city: string;
  stateCode?: string;
  countryCode?: string;
  postalCode?: string;
  lat: number;
  lon: number;
}
export interface FakeAttraction {
  id: string;
  name: string;
  mbid?: string;
  genre?: string;
}
export interface FakeEvent {
  id: string;
  name: string;
  /** UTC start. */
  start: Date;
  venueId: string;
  attractionIds: string[];
  priceMin?: number;
  priceMax?: number;
}

export interface TicketmasterFake extends JsonFake {
  apiKey: string;
  venues: Map<string, FakeVenue>;
  attractions: Map<string, FakeAttraction>;
  events: FakeEvent[];
  quotaNext(count: number): void;
}

const fault = (status: number, faultstring: string, errorcode: string): FakeReply => ({ status, body: { fault: { faultstring, detail: { errorcode } } } });
const dis = (code: string, detail: string): FakeReply => ({ status: 400, body: { errors: [{ code, detail, status: '400', _links: { self: { href: '/discovery/v2/errors.html#' + code } } }] } });

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';
/** The centre of a geohash cell. */
function ungeohash(hash: string): [number, number] | null {
  let [latMin, latMax, lonMin, lonMax] = [-90, 90, -180, 180];
  let even = true;
  for (const c of hash.toLowerCase()) {
    const v = BASE32.indexOf(c);
    if (v < 0) return null;
    for (let b = 4; b >= 0; b--) {
      const bit = (v >> b) & 1;
      if (even) bit ? (lonMin = (lonMin + lonMax) / 2) : (lonMax = (lonMin + lonMax) / 2);
      else bit ? (latMin = (latMin + latMax) / 2) : (latMax = (latMin + latMax) / 2);
      even = !even;
    }
  }
  return [(latMin + latMax) / 2, (lonMin + lonMax) / 2];
}

function miles(aLat: number, aLon: number, bLat: number, bLon: number): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h = Math.sin(rad(bLat - aLat) / 2) ** 2 + Math.cos(rad(aLat)) * Math.cos(rad(bLat)) * Math.sin(rad(bLon - aLon) / 2) ** 2;
  return 3958.8 * 2 * Math.asin(Math.sqrt(h));
}

const images = (id: string) => [
  { ratio: '16_9', url: `https://s1.ticketm.net/dam/a/${id}_RETINA_PORTRAIT_16_9.jpg`, width: 640, height: 360, fallback: false },
  { ratio: '3_2', url: `https://s1.ticketm.net/dam/a/${id}_ARTIST_PAGE_3_2.jpg`, width: 305, height: 203, fallback: false },
  { ratio: '4_3', url: 'https://s1.ticketm.net/dam/c/fallback_TABLET_LANDSCAPE_4_3.jpg', width: 1024, height: 768, fallback: true },
];

export async function startTicketmasterFake(apiKey = 'tm-test-key'): Promise<TicketmasterFake> {
  let quota = 0;
  const attractionJson = (a: FakeAttraction) => ({
    name: a.name,
    type: 'attraction',
    id: a.id,
    url: `https://www.ticketmaster.com/${a.name.toLowerCase().replace(/\W+/g, '-')}-tickets/artist/${a.id}`,
    locale: 'en-us',
    ...(a.mbid && { externalLinks: { musicbrainz: [{ id: a.mbid }] } }),
    images: images(a.id),
    classifications: [{ primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', name: 'Music' }, genre: { id: 'g', name: a.genre ?? 'Rock' }, subGenre: { id: 's', name: 'Undefined' } }],
  });

  const handler = (req: SeenRequest): FakeReply => {
    if (quota > 0) {
      quota--;
      return fault(429, 'Rate limit quota violation. Quota limit  exceeded. Identifier : tm', 'policies.ratelimit.QuotaViolation');
    }
    const q = req.query;
    if (q.get('apikey') !== fake.apiKey) return fault(401, 'Invalid ApiKey', 'oauth.v2.InvalidApiKey');
    const size = Number(q.get('size') ?? 20);
    const pageNo = Number(q.get('page') ?? 0);
    if (!Number.isInteger(size) || size < 1 || size > 200) return dis('DIS1001', 'Size must be between 1 and 200');
    if (!Number.isInteger(pageNo) || pageNo < 0) return dis('DIS1001', 'Page must be a non-negative number');
    if (size * pageNo >= 1000) return dis('DIS1035', 'API Limits Exceeded: Max paging depth exceeded. (page * size) must be less than 1,000');
    const paged = <T>(all: T[], key: string, toJson: (x: T) => unknown): FakeReply => {
      const slice = all.slice(pageNo * size, pageNo * size + size);
      const page = { size, totalElements: all.length, totalPages: Math.ceil(all.length / size), number: pageNo };
      const links = { self: { href: `/discovery/v2${req.path}?page=${pageNo}&size=${size}` }, ...((pageNo + 1) * size < all.length && { next: { href: `/discovery/v2${req.path}?page=${pageNo + 1}&size=${size}` } }) };
      return { body: { ...(slice.length > 0 && { _embedded: { [key]: slice.map(toJson) } }), _links: links, page } };
    };

    if (req.path === '/attractions.json') {
      const kw = (q.get('keyword') ?? '').toLowerCase();
      const found = [...fake.attractions.values()].filter((a) => !kw || a.name.toLowerCase().includes(kw));
      return paged(found, 'attractions', attractionJson);
    }
    if (req.path !== '/events.json') return { status: 404, body: { errors: [{ code: 'DIS1004', detail: 'Resource not found', status: '404' }] } };

    const start = q.get('startDateTime');
    const end = q.get('endDateTime');
    for (const d of [start, end]) if (d !== null && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(d)) return dis('DIS1015', `Query param with date must be of valid format YYYY-MM-DDTHH:mm:ssZ {example: 2020-08-01T14:00:00Z }`);
    const kw = (q.get('keyword') ?? '').toLowerCase();
    const attractionIds = (q.get('attractionId') ?? '').split(',').filter(Boolean);
    const point = q.get('geoPoint');
    const center = point ? ungeohash(point) : null;
    if (point && !center) return dis('DIS1016', 'Invalid geoPoint');
    const latlong = center ?? q.get('latlong')?.split(',').map(Number);
    const radius = Number(q.get('radius') ?? 100);
    const perMile = q.get('unit') === 'km' ? 1.609344 : 1;
    const postal = q.get('postalCode');
    let rows = fake.events
      .map((e) => {
        const v = fake.venues.get(e.venueId)!;
        const distance = latlong && latlong.length === 2 ? miles(latlong[0]!, latlong[1]!, v.lat, v.lon) * perMile : null;
        return { e, v, distance };
      })
      .filter(({ e }) => (!start || e.start.getTime() >= Date.parse(start)) && (!end || e.start.getTime() <= Date.parse(end)))
      .filter(({ distance }) => distance === null || distance <= radius)
      .filter(({ v }) => !postal || v.postalCode === postal)
      .filter(({ e }) => !kw || e.name.toLowerCase().includes(kw) || e.attractionIds.some((id) => fake.attractions.get(id)?.name.toLowerCase().includes(kw)))
      .filter(({ e }) => attractionIds.length === 0 || e.attractionIds.some((id) => attractionIds.includes(id)));
    rows = (q.get('sort') ?? '').startsWith('distance') ? rows.sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0)) : rows.sort((a, b) => a.e.start.getTime() - b.e.start.getTime());
    return paged(rows, 'events', ({ e, v, distance }) => ({
      name: e.name,
      type: 'event',
      id: e.id,
      test: false,
      url: `https://www.ticketmaster.com/event/${e.id}`,
      locale: 'en-us',
      images: images(e.id),
      sales: { public: { startDateTime: '2026-01-01T15:00:00Z', endDateTime: e.start.toISOString().replace(/\.\d{3}Z$/, 'Z') } },
      dates: {
        start: { localDate: e.start.toISOString().slice(0, 10), localTime: e.start.toISOString().slice(11, 19), dateTime: e.start.toISOString().replace(/\.\d{3}Z$/, 'Z'), dateTBD: false, dateTBA: false, timeTBA: false, noSpecificTime: false },
        timezone: 'America/New_York',
        status: { code: 'onsale' },
        spanMultipleDays: false,
      },
      classifications: [{ primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', name: 'Music' } }],
      ...(e.priceMin !== undefined && { priceRanges: [{ type: 'standard', currency: 'USD', min: e.priceMin, max: e.priceMax ?? e.priceMin }] }),
      ...(distance !== null && { distance: Math.round(distance * 100) / 100, units: q.get('unit') === 'km' ? 'KILOMETERS' : 'MILES' }),
      _embedded: {
        venues: [
          {
            name: v.name,
            type: 'venue',
            id: v.id,
            locale: 'en-us',
            ...(v.postalCode && { postalCode: v.postalCode }),
            timezone: 'America/New_York',
            city: { name: v.city },
            ...(v.stateCode && { state: { name: v.stateCode, stateCode: v.stateCode } }),
            country: { name: v.countryCode === 'US' || !v.countryCode ? 'United States Of America' : v.countryCode, countryCode: v.countryCode ?? 'US' },
            address: { line1: '1 Main St' },
            location: { longitude: String(v.lon), latitude: String(v.lat) },
          },
        ],
        attractions: e.attractionIds.map((id) => fake.attractions.get(id)).filter((a): a is FakeAttraction => !!a).map(attractionJson),
      },
    }));
  };

  const fake = (await startJsonFake(handler, '/discovery/v2')) as TicketmasterFake;
  fake.apiKey = apiKey;
  fake.venues = new Map();
  fake.attractions = new Map();
  fake.events = [];
  fake.quotaNext = (n) => void (quota += n);
  return fake;
}
