import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { NearbyShows } from '../../domain/discovery/nearbyShows.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { Same } from '../../http/same.js';

/** api.md §4.8 `GET /api/discover/nearby-shows`: music events near a place, the library's artists first. */

const query = z
  .object({
    location: z.string().trim().max(200).optional(),
    lat: z.coerce.number().min(-90).max(90).optional(),
    lon: z.coerce.number().min(-180).max(180).optional(),
    radius: z.coerce.number().int().min(5).max(250).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .loose();

const place = z.object({
  lat: z.number(),
  lon: z.number(),
  label: z.string(),
  city: z.string().nullable(),
  region: z.string().nullable(),
  postalCode: z.string().nullable(),
  countryCode: z.string().nullable(),
  source: z.enum(['coordinates', 'zippopotam', 'nominatim', 'ipapi']).describe('how the place was found'),
});
const show = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().nullable(),
  date: z.string().nullable(),
  time: z.string().nullable(),
  dateTime: z.string().nullable(),
  venue: z.object({ name: z.string(), city: z.string().nullable(), region: z.string().nullable(), countryCode: z.string().nullable(), latitude: z.number().nullable(), longitude: z.number().nullable() }).nullable(),
  distance: z.number().nullable(),
  units: z.string().nullable(),
  imageUrl: z.string().nullable(),
  priceRange: z.object({ currency: z.string().nullable(), min: z.number().nullable(), max: z.number().nullable() }).nullable(),
  artists: z.array(z.object({ name: z.string(), ticketmasterId: z.string(), mbid: z.string().nullable(), libraryArtistId: z.number().nullable() })),
  inLibrary: z.boolean(),
});
const answer = z.object({
  configured: z.boolean(),
  message: z.string().optional(),
  location: place.nullable(),
  radiusMiles: z.number(),
  shows: z.array(show),
  libraryShows: z.array(show).describe('the shows with a library artist'),
  recommendedShows: z.array(show).describe("the other shows with an artist of the caller's discovery recommendations"),
  libraryShowCount: z.number(),
  total: z.number(),
  cachedAt: z.string().nullable(),
  stale: z.boolean(),
});

/** Fails to compile when the schema and what the domain answers disagree on a field. */
export const answerMatchesDomain = true satisfies Same<z.infer<typeof answer>, Awaited<ReturnType<NearbyShows['find']>>>;

export function nearbyShowsRoutes(ctx: AppContext): RouteDefinition[] {
  const shows = ctx.nearbyShows;
  return [
    defineRoute({
      tag: 'discover',
      access: 'authenticated',
      method: 'get',
      path: '/api/discover/nearby-shows',
      summary:
        'Music events near a place (location text or lat/lon; else the nearby-shows location setting; else the server’s approximate location), the library’s artists first; configured:false without a Ticketmaster key',
      query,
      response: answer,
      handler: ({ query: q, principal }) => shows.find(q, principal?.userId ?? null),
    }),
  ];
}
