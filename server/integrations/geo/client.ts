import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { JsonApi } from '../jsonApi.js';

/**
 * The location look-ups nearby shows need before asking Ticketmaster: a US ZIP code (Zippopotam.us),
 * any other postcode or a place name (Nominatim, OpenStreetMap's geocoder; one request per second
 * and a real User-Agent are its usage policy), and, with nothing typed, the server's own public
 * address (ipapi.co).
 */
export interface GeoPlace {
  lat: number;
  lon: number;
  /** For display: `Brooklyn, NY`, `Leeds, England`. */
  label: string;
  city: string | null;
  region: string | null;
  postalCode: string | null;
  countryCode: string | null;
  source: 'coordinates' | 'zippopotam' | 'nominatim' | 'ipapi';
}

export interface GeoClientOptions {
  baseUrl: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

const coord = z.coerce.number().refine(Number.isFinite);
const api = (service: string, label: string, o: GeoClientOptions, spacingMs: number, bodyError?: ConstructorParameters<typeof JsonApi>[0]['bodyError']) =>
  new JsonApi({
    service,
    label,
    baseUrl: o.baseUrl,
    userAgent: o.userAgent,
    spacingMs: o.spacingMs ?? spacingMs,
    timeoutMs: o.timeoutMs ?? 10_000,
    retries: o.retries ?? 2,
    retryBaseMs: o.retryBaseMs ?? 300,
    ...(bodyError && { bodyError }),
  });
const orNull = async <T>(p: Promise<T>): Promise<T | null> => {
  try {
    return await p;
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') return null;
    throw err;
  }
};

const zippoSchema = z
  .object({
    'post code': z.string(),
    'country abbreviation': z.string().optional(),
    places: z.array(z.object({ 'place name': z.string(), latitude: coord, longitude: coord, state: z.string().optional(), 'state abbreviation': z.string().optional() }).loose()).min(1),
  })
  .loose();

/** Zippopotam.us: `GET /<country>/<postcode>`; an unknown code is 404 with `{}`. */
export class ZippopotamClient {
  private readonly api: JsonApi;
  constructor(options: GeoClientOptions) {
    this.api = api('zippopotam', 'Zippopotam.us', options, 200);
  }

  /** The first place of a postcode, or null when the code is unknown. */
  async lookup(postcode: string, country = 'us', signal?: AbortSignal): Promise<GeoPlace | null> {
    const answer = await orNull(this.api.get({ path: `/${encodeURIComponent(country.toLowerCase())}/${encodeURIComponent(postcode.trim())}`, schema: zippoSchema, ...(signal && { signal }) }));
    if (!answer) return null;
    const p = answer.places[0]!;
    const region = p['state abbreviation'] || p.state || null;
    return {
      lat: p.latitude,
      lon: p.longitude,
      label: region ? `${p['place name']}, ${region}` : p['place name'],
      city: p['place name'],
      region,
      postalCode: answer['post code'],
      countryCode: answer['country abbreviation'] ?? country.toUpperCase(),
      source: 'zippopotam',
    };
  }
}

const nominatimSchema = z.array(
  z
    .object({
      lat: coord,
      lon: coord,
      display_name: z.string().default(''),
      address: z.record(z.string(), z.string()).optional(),
    })
    .loose(),
);

/** Nominatim reports bad requests as `{error: {code, message}}` (or a plain string). */
function nominatimBodyError(body: unknown, status: number): { status: number; message: string } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('error' in body)) return null;
  return { status: status >= 400 ? status : 400, message: 'an error for this search' };
}

/** Nominatim `GET /search?format=jsonv2&addressdetails=1&limit=1` by postcode or free text. */
export class NominatimClient {
  private readonly api: JsonApi;
  constructor(options: GeoClientOptions) {
    this.api = api('nominatim', 'Nominatim', options, 1000, nominatimBodyError);
  }

  /** The best match, or null when nothing matches. */
  async search(query: { postalcode?: string; q?: string; countryCode?: string }, signal?: AbortSignal): Promise<GeoPlace | null> {
    const list = await this.api.get({
      path: '/search',
      query: {
        ...(query.postalcode ? { postalcode: query.postalcode } : { q: query.q ?? '' }),
        ...(query.countryCode && { countrycodes: query.countryCode.toLowerCase() }),
        format: 'jsonv2',
        addressdetails: 1,
        limit: 1,
      },
      schema: nominatimSchema,
      ...(signal && { signal }),
    });
    const hit = list[0];
    if (!hit) return null;
    const a = hit.address ?? {};
    const city = a.city ?? a.town ?? a.village ?? a.municipality ?? a.hamlet ?? null;
    const region = a.state ?? a.county ?? null;
    return {
      lat: hit.lat,
      lon: hit.lon,
      label: [city, region].filter(Boolean).join(', ') || hit.display_name.split(',').slice(0, 2).join(',').trim(),
      city,
      region,
      postalCode: a.postcode ?? query.postalcode ?? null,
      countryCode: a.country_code ? a.country_code.toUpperCase() : (query.countryCode?.toUpperCase() ?? null),
      source: 'nominatim',
    };
  }
}

const ipapiSchema = z
  .object({
    ip: z.string().optional(),
    city: z.string().nullish(),
    region: z.string().nullish(),
    region_code: z.string().nullish(),
    country_code: z.string().nullish(),
    postal: z.string().nullish(),
    latitude: coord,
    longitude: coord,
  })
  .loose();

/** ipapi.co answers `{error: true, reason}`: RateLimited (429), Reserved IP Address, Invalid IP Address. */
export function ipapiBodyError(body: unknown, status: number): { status: number; message: string } | null {
  if (!body || typeof body !== 'object' || (body as { error?: unknown }).error !== true) return null;
  const reason = String((body as { reason?: unknown }).reason ?? '');
  if (/rate/i.test(reason) || status === 429) return { status: 429, message: 'its rate limit' };
  if (/reserved/i.test(reason)) return { status: 404, message: 'a private address that has no location' };
  return { status: status >= 400 ? status : 400, message: 'an invalid address' };
}

/** ipapi.co: `GET /json/` (the caller's own address) or `/<ip>/json/`. */
export class IpApiClient {
  private readonly api: JsonApi;
  constructor(options: GeoClientOptions) {
    this.api = api('ipapi', 'ipapi.co', options, 1000, ipapiBodyError);
  }

  /** Where an address (default: this server's public one) is, or null for private/reserved addresses. */
  async locate(ip?: string, signal?: AbortSignal): Promise<GeoPlace | null> {
    const answer = await orNull(this.api.get({ path: ip ? `/${encodeURIComponent(ip)}/json/` : '/json/', schema: ipapiSchema, ...(signal && { signal }) }));
    if (!answer) return null;
    const region = answer.region_code || answer.region || null;
    return {
      lat: answer.latitude,
      lon: answer.longitude,
      label: [answer.city, region].filter(Boolean).join(', ') || 'Approximate location',
      city: answer.city ?? null,
      region,
      postalCode: answer.postal ?? null,
      countryCode: answer.country_code ?? null,
      source: 'ipapi',
    };
  }
}

export interface GeoClients {
  zippopotam: ZippopotamClient;
  nominatim: NominatimClient;
  ipapi: IpApiClient;
}

/** Builds the three clients from the configured base URLs. */
export function geoClients(urls: { zippopotam: string; nominatim: string; ipapi: string }, userAgent: string, spacingMs?: number | null): GeoClients {
  const s = spacingMs === null || spacingMs === undefined ? {} : { spacingMs };
  return {
    zippopotam: new ZippopotamClient({ baseUrl: urls.zippopotam, userAgent, ...s }),
    nominatim: new NominatimClient({ baseUrl: urls.nominatim, userAgent, ...s }),
    ipapi: new IpApiClient({ baseUrl: urls.ipapi, userAgent, ...s }),
  };
}

const LAT_LON = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/;
const US_ZIP = /^\s*(\d{5})(?:-\d{4})?\s*$/;

/**
 * A place from what the user typed: `lat,lon` is used as is; a US ZIP code goes to Zippopotam
 * (then Nominatim); another postcode or a place name to Nominatim; nothing at all locates this
 * server's public address. Null when nothing matches (the caller says so); upstream failures throw.
 */
export async function resolveLocation(input: string | null | undefined, clients: GeoClients, options: { countryCode?: string; signal?: AbortSignal } = {}): Promise<GeoPlace | null> {
  const text = (input ?? '').trim();
  const country = options.countryCode?.trim().toUpperCase() || undefined;
  const signal = options.signal;
  const coords = LAT_LON.exec(text);
  if (coords) {
    const lat = Number(coords[1]);
    const lon = Number(coords[2]);
    if (Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
    return { lat, lon, label: `${lat.toFixed(3)}, ${lon.toFixed(3)}`, city: null, region: null, postalCode: null, countryCode: country ?? null, source: 'coordinates' };
  }
  if (!text) return clients.ipapi.locate(undefined, signal);
  const zip = US_ZIP.exec(text);
  if (zip && (!country || country === 'US')) {
    const place = await clients.zippopotam.lookup(zip[1]!, 'us', signal);
    if (place) return place;
    return clients.nominatim.search({ postalcode: zip[1]!, countryCode: 'us' }, signal);
  }
  const postcodeLike = /\d/.test(text) && text.length <= 10;
  return clients.nominatim.search(postcodeLike ? { postalcode: text, ...(country && { countryCode: country }) } : { q: text, ...(country && { countryCode: country }) }, signal);
}
