import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

/** Ticketmaster sends some numbers (coordinates) as strings. */
const num = z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number().optional()).catch(undefined);
const image = z.object({ url: z.string(), ratio: z.string().nullish(), width: num, height: num, fallback: z.boolean().optional() }).loose();
export type TicketmasterImage = { url: string; ratio: string | null; width: number | null; height: number | null };
const toImages = (list: z.infer<typeof image>[] | undefined): TicketmasterImage[] =>
  (list ?? []).filter((i) => !i.fallback).map((i) => ({ url: i.url, ratio: i.ratio ?? null, width: i.width ?? null, height: i.height ?? null }));

const named = z.object({ name: z.string().optional() }).loose().optional();
const venue = z
  .object({
    id: z.string(),
    name: z.string().default(''),
    postalCode: z.string().optional(),
    city: named,
    state: z.object({ name: z.string().optional(), stateCode: z.string().optional() }).loose().optional(),
    country: z.object({ name: z.string().optional(), countryCode: z.string().optional() }).loose().optional(),
    address: z.object({ line1: z.string().optional() }).loose().optional(),
    location: z.object({ latitude: num, longitude: num }).loose().optional(),
    url: z.string().optional(),
  })
  .loose()
  .transform((v) => ({
    id: v.id,
    name: v.name,
    city: v.city?.name ?? null,
    state: v.state?.name ?? null,
    stateCode: v.state?.stateCode ?? null,
    country: v.country?.name ?? null,
    countryCode: v.country?.countryCode ?? null,
    postalCode: v.postalCode ?? null,
    address: v.address?.line1 ?? null,
    latitude: v.location?.latitude ?? null,
    longitude: v.location?.longitude ?? null,
  }));
export type TicketmasterVenue = z.output<typeof venue>;

const attraction = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string().optional(),
    images: z.array(image).optional(),
    externalLinks: z.object({ musicbrainz: z.array(z.object({ id: z.string() }).loose()).optional() }).loose().optional(),
    classifications: z.array(z.object({ genre: named, subGenre: named }).loose()).optional(),
  })
  .loose()
  .transform((a) => ({
    id: a.id,
    name: a.name,
    url: a.url ?? null,
    images: toImages(a.images),
    /** The MusicBrainz id Ticketmaster links, which matches library artists exactly. */
    mbid: a.externalLinks?.musicbrainz?.[0]?.id ?? null,
    genres: [...new Set((a.classifications ?? []).flatMap((c) => [c.genre?.name, c.subGenre?.name]).filter((g): g is string => !!g && g !== 'Undefined'))],
  }));
export type TicketmasterAttraction = z.output<typeof attraction>;

const event = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string().optional(),
    images: z.array(image).optional(),
    dates: z
      .object({
        start: z
          .object({ localDate: z.string().optional(), localTime: z.string().optional(), dateTime: z.string().optional(), dateTBA: z.boolean().optional(), dateTBD: z.boolean().optional(), timeTBA: z.boolean().optional(), noSpecificTime: z.boolean().optional() })
          .loose()
          .optional(),
        timezone: z.string().optional(),
        status: z.object({ code: z.string().optional() }).loose().optional(),
      })
      .loose()
      .optional(),
    priceRanges: z.array(z.object({ type: z.string().optional(), currency: z.string().optional(), min: num, max: num }).loose()).optional(),
    distance: num,
    units: z.string().optional(),
    _embedded: z.object({ venues: z.array(venue).optional(), attractions: z.array(attraction).optional() }).loose().optional(),
  })
  .loose()
  .transform((e) => {
    const start = e.dates?.start;
    const price = e.priceRanges?.[0];
    return {
      id: e.id,
      name: e.name,
      url: e.url ?? null,
      images: toImages(e.images),
      localDate: start?.localDate ?? null,
      localTime: start?.localTime ?? null,
      /** UTC, when the time is known. */
      dateTime: start?.dateTime ?? null,
      timezone: e.dates?.timezone ?? null,
      status: e.dates?.status?.code ?? null,
      priceRange: price && (price.min !== undefined || price.max !== undefined) ? { currency: price.currency ?? null, min: price.min ?? null, max: price.max ?? null } : null,
      distance: e.distance ?? null,
      units: e.units ?? null,
      venue: e._embedded?.venues?.[0] ?? null,
      attractions: e._embedded?.attractions ?? [],
    };
  });
export type TicketmasterEvent = z.output<typeof event>;

const pageSchema = z.object({ size: z.coerce.number(), totalElements: z.coerce.number(), totalPages: z.coerce.number(), number: z.coerce.number() }).loose();
const eventsSchema = z.object({ _embedded: z.object({ events: z.array(event).default([]) }).loose().optional(), page: pageSchema.optional() }).loose();
const attractionsSchema = z.object({ _embedded: z.object({ attractions: z.array(attraction).default([]) }).loose().optional(), page: pageSchema.optional() }).loose();

export interface TicketmasterPage<T> {
  items: T[];
  /** 0-based, as Ticketmaster counts. */
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

/** Ticketmaster reports errors as an Apigee `fault` (key, quota) or a list of `errors` (bad parameters). */
export function ticketmasterBodyError(body: unknown, status: number): { status: number; message: string } | null {
  if (!body || typeof body !== 'object') return null;
  const fault = (body as { fault?: { detail?: { errorcode?: unknown } } }).fault;
  if (fault && typeof fault === 'object') {
    const code = String(fault.detail?.errorcode ?? '');
    if (/InvalidApiKey|ApiKeyNotApproved|InvalidAPICallAsNoApiProductMatchFound/i.test(code)) return { status: 401, message: 'an invalid API key' };
    if (/ratelimit|QuotaViolation|SpikeArrest/i.test(code)) return { status: 429, message: 'its request quota exceeded' };
    return { status: status >= 400 ? status : 502, message: `a failure (${code.slice(0, 80) || 'fault'})` };
  }
  const errors = (body as { errors?: { code?: unknown; status?: unknown }[] }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const first = errors[0]!;
    const s = Number(first.status);
    return { status: Number.isInteger(s) && s >= 400 ? s : status >= 400 ? status : 400, message: `error ${String(first.code ?? 'unknown').slice(0, 40)}` };
  }
  return null;
}

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** A geohash (Ticketmaster's `geoPoint`, which replaces the deprecated `latlong`); 9 characters ≈ 5 m. */
export function geohash(lat: number, lon: number, precision = 9): string {
  let [latMin, latMax, lonMin, lonMax] = [-90, 90, -180, 180];
  let out = '';
  let bits = 0;
  let ch = 0;
  let even = true;
  while (out.length < precision) {
    if (even) {
      const mid = (lonMin + lonMax) / 2;
      if (lon >= mid) (ch = (ch << 1) | 1), (lonMin = mid);
      else (ch <<= 1), (lonMax = mid);
    } else {
      const mid = (latMin + latMax) / 2;
      if (lat >= mid) (ch = (ch << 1) | 1), (latMin = mid);
      else (ch <<= 1), (latMax = mid);
    }
    even = !even;
    if (++bits === 5) {
      out += BASE32[ch];
      bits = 0;
      ch = 0;
    }
  }
  return out;
}

/** `YYYY-MM-DDTHH:mm:ssZ`: Ticketmaster refuses milliseconds. */
export function ticketmasterDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface TicketmasterEventQuery {
  /** Events around a point, sent as `latlong` (what Aurral sends) … */
  latlong?: { lat: number; lon: number };
  /** … or as a `geoPoint` geohash (Ticketmaster's current parameter) … */
  geoPoint?: { lat: number; lon: number };
  /** … or a postal code (with its country, e.g. US). */
  postalCode?: string;
  countryCode?: string;
  /** 5–250 (Ticketmaster's own bounds are wider; nearby shows use these). Default 50. */
  radius?: number;
  unit?: 'miles' | 'km';
  keyword?: string;
  attractionId?: string | string[];
  /** Default now … now + 90 days. */
  startDateTime?: number;
  endDateTime?: number;
  /** Up to 200 per page, and page × size must stay under 1000 (Ticketmaster's deep-paging limit). */
  size?: number;
  page?: number;
  sort?: string;
  signal?: AbortSignal;
}

export interface TicketmasterOptions {
  /** Discovery API root, e.g. `https://app.ticketmaster.com/discovery/v2`. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  /** Ticketmaster allows 5 requests per second per key: 200 ms. */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
  now?: () => number;
}

/** The Ticketmaster Discovery API (v2): music events near a place, and attractions by name. */
export class TicketmasterClient {
  private readonly api: JsonApi;

  constructor(private readonly options: TicketmasterOptions) {
    this.api = new JsonApi({
      service: 'ticketmaster',
      label: 'Ticketmaster',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 200,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 300,
      bodyError: ticketmasterBodyError,
    });
  }

  /** One page of music events (`GET /events.json`); no results is an empty page (Ticketmaster omits `_embedded`). */
  async events(q: TicketmasterEventQuery): Promise<TicketmasterPage<TicketmasterEvent>> {
    const now = (this.options.now ?? Date.now)();
    const size = Math.min(200, Math.max(1, Math.floor(q.size ?? 200)));
    const page = Math.max(0, Math.floor(q.page ?? 0));
    const radius = Math.min(250, Math.max(5, Math.round(q.radius ?? 50)));
    const answer = await this.api.get({
      path: '/events.json',
      query: {
        apikey: this.options.apiKey,
        classificationName: 'music',
        size,
        page,
        locale: '*',
        includeTBA: 'no',
        includeTBD: 'no',
        source: 'ticketmaster',
        startDateTime: ticketmasterDate(q.startDateTime ?? now),
        endDateTime: ticketmasterDate(q.endDateTime ?? now + 90 * 86_400_000),
        ...(q.latlong && { latlong: `${q.latlong.lat.toFixed(4)},${q.latlong.lon.toFixed(4)}` }),
        ...(q.geoPoint && { geoPoint: geohash(q.geoPoint.lat, q.geoPoint.lon) }),
        ...(q.postalCode && { postalCode: q.postalCode }),
        ...(q.countryCode && { countryCode: q.countryCode.toUpperCase() }),
        ...((q.latlong || q.geoPoint || q.postalCode) && { radius, unit: q.unit ?? 'miles' }),
        ...(q.keyword && { keyword: q.keyword }),
        ...(q.attractionId && { attractionId: [q.attractionId].flat().join(',') }),
        sort: q.sort ?? (q.latlong || q.geoPoint || q.postalCode ? 'distance,asc' : 'date,asc'),
      },
      schema: eventsSchema,
      ...(q.signal && { signal: q.signal }),
    });
    return pageOf(answer._embedded?.events ?? [], answer.page, page, size);
  }

  /** Music attractions (artists) matching a name (`GET /attractions.json`), to find an artist's attractionId. */
  async attractions(keyword: string, size = 20, signal?: AbortSignal): Promise<TicketmasterPage<TicketmasterAttraction>> {
    const answer = await this.api.get({
      path: '/attractions.json',
      query: { apikey: this.options.apiKey, keyword, classificationName: 'music', size: Math.min(200, Math.max(1, size)), locale: '*' },
      schema: attractionsSchema,
      ...(signal && { signal }),
    });
    return pageOf(answer._embedded?.attractions ?? [], answer.page, 0, size);
  }
}

function pageOf<T>(items: T[], page: z.infer<typeof pageSchema> | undefined, number: number, size: number): TicketmasterPage<T> {
  return { items, page: page?.number ?? number, size: page?.size ?? size, totalElements: page?.totalElements ?? items.length, totalPages: page?.totalPages ?? (items.length ? 1 : 0) };
}
