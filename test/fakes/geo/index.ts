import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * The three location services on one 127.0.0.1 server, each under its own prefix:
 * Zippopotam.us (`/zippopotam/<country>/<postcode>`, 404 `{}` when unknown, coordinates as
 * strings), Nominatim (`/nominatim/search?postalcode|q&countrycodes&format=jsonv2&addressdetails=1`,
 * an array, 403 without a real User-Agent, 400 `{error:{code,message}}` for a bad format) and
 * ipapi.co (`/ipapi/json/`, `/ipapi/<ip>/json/`, `{error:true, reason}` for reserved or invalid
 * addresses, 429 RateLimited on request).
 */
export interface FakePlace {
  postcode: string;
  /** ISO 3166 alpha-2, upper case. */
  countryCode: string;
  country: string;
  city: string;
  state: string;
  stateCode?: string;
  lat: number;
  lon: number;
}

export interface GeoFake extends JsonFake {
  zippopotamUrl: string;
  nominatimUrl: string;
  ipapiUrl: string;
  places: FakePlace[];
  /** Public addresses and where they are; `self` is what `/json/` answers (the caller's address). */
  ips: Map<string, FakePlace>;
  selfIp: string;
  ipapiRateLimitNext(count: number): void;
}

const reserved = /^(10\.|127\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|fc|fd)/i;

export async function startGeoFake(places: FakePlace[] = []): Promise<GeoFake> {
  let ipapiLimited = 0;
  const zippo = (rest: string[]): FakeReply => {
    const [country, code] = rest;
    const hits = fake.places.filter((p) => p.countryCode.toLowerCase() === (country ?? '').toLowerCase() && p.postcode.toLowerCase() === decodeURIComponent(code ?? '').toLowerCase());
    if (hits.length === 0) return { status: 404, body: {} };
    return {
      body: {
        'post code': hits[0]!.postcode,
        country: hits[0]!.country,
        'country abbreviation': hits[0]!.countryCode,
        places: hits.map((p) => ({ 'place name': p.city, longitude: p.lon.toFixed(4), state: p.state, 'state abbreviation': p.stateCode ?? '', latitude: p.lat.toFixed(4) })),
      },
    };
  };
  const nominatim = (req: SeenRequest): FakeReply => {
    const ua = req.headers['user-agent'] ?? '';
    if (!ua || /^(node|undici|axios|python-requests)/i.test(ua)) return { status: 403, body: '<html><body>Access blocked: see the usage policy</body></html>', headers: { 'content-type': 'text/html' } };
    const format = req.query.get('format') ?? 'xml';
    if (!['json', 'jsonv2', 'geojson', 'geocodejson', 'xml'].includes(format)) return { status: 400, body: { error: { code: 400, message: "Parameter 'format': unknown value." } } };
    const countries = (req.query.get('countrycodes') ?? '').toLowerCase().split(',').filter(Boolean);
    const postal = req.query.get('postalcode');
    const q = (req.query.get('q') ?? '').toLowerCase();
    const limit = Math.min(40, Math.max(1, Number(req.query.get('limit') ?? 10) || 10));
    const hits = fake.places
      .filter((p) => countries.length === 0 || countries.includes(p.countryCode.toLowerCase()))
      .filter((p) => (postal ? p.postcode.replace(/\s/g, '').toLowerCase() === postal.replace(/\s/g, '').toLowerCase() : q !== '' && `${p.city}, ${p.state}, ${p.country}`.toLowerCase().includes(q.split(',')[0]!.trim())))
      .slice(0, limit);
    return {
      body: hits.map((p, i) => ({
        place_id: 1000 + i,
        licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
        osm_type: 'relation',
        osm_id: 2000 + i,
        lat: p.lat.toFixed(7),
        lon: p.lon.toFixed(7),
        category: postal ? 'place' : 'boundary',
        type: postal ? 'postcode' : 'administrative',
        place_rank: postal ? 21 : 16,
        importance: 0.5,
        addresstype: postal ? 'postcode' : 'city',
        name: postal ? p.postcode : p.city,
        display_name: `${p.city}, ${p.state}, ${p.postcode}, ${p.country}`,
        ...(req.query.get('addressdetails') === '1' && { address: { city: p.city, state: p.state, postcode: p.postcode, country: p.country, country_code: p.countryCode.toLowerCase() } }),
        boundingbox: [String(p.lat - 0.1), String(p.lat + 0.1), String(p.lon - 0.1), String(p.lon + 0.1)],
      })),
    };
  };
  const ipapi = (rest: string[]): FakeReply => {
    if (ipapiLimited > 0) {
      ipapiLimited--;
      return { status: 429, body: { error: true, reason: 'RateLimited', message: 'Visit https://ipapi.co/ratelimited/ for details' } };
    }
    const ip = rest.length >= 2 ? decodeURIComponent(rest[0]!) : fake.selfIp;
    if (!/^[\d.]+$|:/.test(ip)) return { body: { ip, error: true, reason: 'Invalid IP Address' } };
    if (reserved.test(ip)) return { body: { ip, error: true, reason: 'Reserved IP Address', reserved: true } };
    const p = fake.ips.get(ip);
    if (!p) return { body: { ip, error: true, reason: 'Invalid IP Address' } };
    return {
      body: {
        ip,
        network: `${ip.split('.').slice(0, 3).join('.')}.0/24`,
        version: 'IPv4',
        city: p.city,
        region: p.state,
        region_code: p.stateCode ?? null,
        country: p.countryCode,
        country_name: p.country,
        country_code: p.countryCode,
        postal: p.postcode,
        latitude: p.lat,
        longitude: p.lon,
        timezone: 'America/New_York',
        currency: 'USD',
        org: 'EXAMPLE-NET',
      },
    };
  };
  const handler = (req: SeenRequest): FakeReply => {
    const [, service, ...rest] = req.path.split('/');
    const parts = rest.filter(Boolean);
    if (service === 'zippopotam') return zippo(parts);
    if (service === 'nominatim' && parts[0] === 'search') return nominatim(req);
    if (service === 'ipapi' && parts.at(-1) === 'json') return ipapi(parts);
    return { status: 404, body: 'Not found', headers: { 'content-type': 'text/plain' } };
  };
  const fake = (await startJsonFake(handler)) as GeoFake;
  fake.zippopotamUrl = `${fake.url}/zippopotam`;
  fake.nominatimUrl = `${fake.url}/nominatim`;
  fake.ipapiUrl = `${fake.url}/ipapi`;
  fake.places = places;
  fake.ips = new Map();
  fake.selfIp = '203.0.113.7';
  fake.ipapiRateLimitNext = (n) => void (ipapiLimited += n);
  return fake;
}
