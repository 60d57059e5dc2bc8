import { discoveryRepository } from '../../db/discovery.js';
import { nameKey } from '../../db/libraryText.js';
import { allLibraryArtists } from '../../db/discoveryQueries.js';
import type { GeoPlace } from '../../integrations/geo/client.js';
import type { TicketmasterEvent } from '../../integrations/ticketmaster/client.js';
import { ValidationError } from '../errors.js';
import { nameStrength, normalizeName } from '../news/matcher.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { DiscoveryProviders } from './providers.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & { settings: SettingsStore; discoveryProviders: DiscoveryProviders };

/** Events near a place are asked again after this long (Ticketmaster: 5,000 calls a day per key). */
export const SHOWS_FRESH_MS = 15 * 60_000;
/** A cached answer is still served, marked stale, when Ticketmaster fails, up to this age. */
const SHOWS_KEEP_MS = 6 * 3600_000;
const PLACES_KEEP_MS = 24 * 3600_000;
const MAX_CACHED = 200;

export interface ShowArtist {
  name: string;
  ticketmasterId: string;
  mbid: string | null;
  libraryArtistId: number | null;
}

export interface NearbyShow {
  id: string;
  name: string;
  url: string | null;
  date: string | null;
  time: string | null;
  dateTime: string | null;
  venue: { name: string; city: string | null; region: string | null; countryCode: string | null; latitude: number | null; longitude: number | null } | null;
  distance: number | null;
  units: string | null;
  imageUrl: string | null;
  priceRange: { currency: string | null; min: number | null; max: number | null } | null;
  artists: ShowArtist[];
  inLibrary: boolean;
}

export interface NearbyShowsAnswer {
  configured: boolean;
  message?: string;
  location: (Pick<GeoPlace, 'lat' | 'lon' | 'label' | 'city' | 'region' | 'postalCode' | 'countryCode' | 'source'>) | null;
  radiusMiles: number;
  shows: NearbyShow[];
  /** The shows with a library artist (the reference service's `libraryShows`). */
  libraryShows: NearbyShow[];
  /** The other shows with an artist of the caller's discovery recommendations (`recommendedShows`). */
  recommendedShows: NearbyShow[];
  libraryShowCount: number;
  total: number;
  cachedAt: string | null;
  stale: boolean;
}

export interface NearbyShowsQuery {
  location?: string | undefined;
  lat?: number | undefined;
  lon?: number | undefined;
  radius?: number | undefined;
  limit: number;
}

type Cached<T> = { at: number; value: T };

function remember<T>(map: Map<string, Cached<T>>, key: string, value: T, at: number): void {
  map.delete(key);
  map.set(key, { at, value });
  while (map.size > MAX_CACHED) map.delete(map.keys().next().value!);
}

/**
 * Music events near a place (Ticketmaster), the library's artists' shows first. The place comes
 * from the request (`location` text or `lat`/`lon`), else `integrations.ticketmaster.location`,
 * else this server's approximate location. Places and events are cached per location.
 */
export class NearbyShows {
  private readonly places = new Map<string, Cached<GeoPlace | null>>();
  private readonly events = new Map<string, Cached<TicketmasterEvent[]>>();

  constructor(private readonly ctx: Deps) {}

  clear(): void {
    this.places.clear();
    this.events.clear();
  }

  private async place(q: NearbyShowsQuery): Promise<GeoPlace | null> {
    if (q.lat !== undefined || q.lon !== undefined) {
      if (q.lat === undefined || q.lon === undefined) throw new ValidationError('lat and lon go together', 'VALIDATION_ERROR');
      return { lat: q.lat, lon: q.lon, label: `${q.lat.toFixed(3)}, ${q.lon.toFixed(3)}`, city: null, region: null, postalCode: null, countryCode: null, source: 'coordinates' };
    }
    const typed = q.location?.trim() || this.ctx.settings.get().integrations.ticketmaster.location.trim();
    const key = typed.toLowerCase();
    const now = this.ctx.clock.now();
    const hit = this.places.get(key);
    if (hit && now - hit.at < PLACES_KEEP_MS) return hit.value;
    const place = await this.ctx.discoveryProviders.locate(typed || null);
    remember(this.places, key, place, now);
    return place;
  }

  /** `userId`: whose discovery recommendations pick the recommended shows (none for a caller without a user). */
  async find(q: NearbyShowsQuery, userId: number | null = null): Promise<NearbyShowsAnswer> {
    const settings = this.ctx.settings.get().integrations.ticketmaster;
    const radiusMiles = Math.min(250, Math.max(5, Math.round(q.radius ?? settings.radiusMiles)));
    const providers = this.ctx.discoveryProviders;
    const unavailable = providers.ticketmasterUnavailable();
    const empty = { shows: [], libraryShows: [], recommendedShows: [], libraryShowCount: 0, total: 0, cachedAt: null, stale: false, radiusMiles };
    if (unavailable) return { configured: false, message: unavailable.message, location: null, ...empty };

    const place = await this.place(q);
    if (!place) {
      if (q.location?.trim()) throw new ValidationError(`location: no place found for "${q.location.trim().slice(0, 100)}"`, 'VALIDATION_ERROR');
      return { configured: true, message: 'This server could not work out where it is: send a location or set integrations.ticketmaster.location', location: null, ...empty };
    }

    const key = `${place.lat.toFixed(2)},${place.lon.toFixed(2)},${radiusMiles}`;
    const now = this.ctx.clock.now();
    let cached = this.events.get(key);
    let stale = false;
    if (!cached || now - cached.at >= SHOWS_FRESH_MS) {
      try {
        const page = await providers.ticketmaster().events({ latlong: { lat: place.lat, lon: place.lon }, radius: radiusMiles, unit: 'miles', size: 200 });
        remember(this.events, key, page.items, now);
        cached = this.events.get(key)!;
      } catch (err) {
        if (!cached || now - cached.at > SHOWS_KEEP_MS) throw err;
        stale = true;
      }
    }

    const shows = this.classify(cached.value);
    const recommended = this.recommendedKeys(userId);
    return {
      configured: true,
      location: { lat: place.lat, lon: place.lon, label: place.label, city: place.city, region: place.region, postalCode: place.postalCode, countryCode: place.countryCode, source: place.source },
      radiusMiles,
      shows: shows.slice(0, q.limit),
      libraryShows: shows.filter((s) => s.inLibrary).slice(0, q.limit),
      recommendedShows: shows.filter((s) => !s.inLibrary && s.artists.some((a) => recommended.has(nameKey(a.name)))).slice(0, q.limit),
      libraryShowCount: shows.filter((s) => s.inLibrary).length,
      total: shows.length,
      cachedAt: new Date(cached.at).toISOString(),
      stale,
    };
  }

  /** The name keys of the user's discovery recommendations. */
  private recommendedKeys(userId: number | null): Set<string> {
    if (userId === null) return new Set();
    return new Set(discoveryRepository(this.ctx.db).allRecommendations(userId).map((r) => r.name_key));
  }

  /** Library artists' shows first (soonest first), then the others (soonest, then nearest). */
  private classify(events: TicketmasterEvent[]): NearbyShow[] {
    const rows = allLibraryArtists(this.ctx.db);
    const byMbid = new Map<string, number>();
    const byName = new Map<string, number>();
    for (const r of rows) {
      if (r.mbid) byMbid.set(r.mbid.toLowerCase(), r.id);
      if (nameStrength(r.name) !== 'never') byName.set(normalizeName(r.name), r.id);
    }
    const shows = events.map((e): NearbyShow => {
      const artists = e.attractions.map((a) => ({
        name: a.name,
        ticketmasterId: a.id,
        mbid: a.mbid,
        libraryArtistId: (a.mbid ? byMbid.get(a.mbid.toLowerCase()) : undefined) ?? byName.get(normalizeName(a.name)) ?? null,
      }));
      const image = [...e.images].sort((a, b) => (b.width ?? 0) - (a.width ?? 0)).find((i) => i.ratio === '16_9') ?? e.images[0];
      return {
        id: e.id,
        name: e.name,
        url: e.url,
        date: e.localDate,
        time: e.localTime,
        dateTime: e.dateTime,
        venue: e.venue ? { name: e.venue.name, city: e.venue.city, region: e.venue.stateCode ?? e.venue.state, countryCode: e.venue.countryCode, latitude: e.venue.latitude, longitude: e.venue.longitude } : null,
        distance: e.distance,
        units: e.units,
        imageUrl: image?.url ?? null,
        priceRange: e.priceRange,
        artists,
        inLibrary: artists.some((a) => a.libraryArtistId !== null),
      };
    });
    const when = (s: NearbyShow) => s.dateTime ?? `${s.date ?? '9999'}T${s.time ?? '99'}`;
    return shows.sort((a, b) => Number(b.inLibrary) - Number(a.inLibrary) || when(a).localeCompare(when(b)) || (a.distance ?? Infinity) - (b.distance ?? Infinity));
  }
}

