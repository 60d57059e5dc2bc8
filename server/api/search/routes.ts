import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../domain/auth/principal.js';
import { resolveLink, type ResolvedLink } from '../../domain/search/links.js';
import { RELEASE_TYPES, type SearchAnswer } from '../../domain/search/service.js';
import { unifiedSearch } from '../../domain/search/unified.js';
import { defineRoute } from '../../http/route.js';
import type { Same } from '../../http/same.js';

/** A search phrase: trimmed, 1 to 200 characters. */
const phrase = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

const releaseTypes = z
  .string()
  .optional()
  .transform((s) => (s ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean))
  .pipe(z.array(z.enum(RELEASE_TYPES as [string, ...string[]], { error: `each release type must be one of ${RELEASE_TYPES.join(', ')}` })));

const searchQuery = z.object({
  q: phrase,
  scope: z.enum(['artist', 'album', 'tag']).default('artist'),
  // decisions §4: limit 50 and offset 0 where api.md gives no default.
  limit: z.coerce.number().int().min(1).max(100).default(50),
  // MusicBrainz pages its search results no further than this.
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
  releaseTypes,
  sort: z.enum(['relevance', 'date', 'title']).default('relevance'),
});

const artistItem = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  image: z.string().nullable(),
  tags: z.array(z.string()),
  inLibrary: z.boolean(),
  disambiguation: z.string(),
  country: z.string().nullable(),
  score: z.number(),
});

const albumItem = z.object({
  id: z.string(),
  title: z.string(),
  artistName: z.string(),
  artistId: z.string().nullable(),
  type: z.string().describe('MusicBrainz primary type (Album, EP, Single, Broadcast, Other)'),
  secondaryTypes: z.array(z.string()),
  releaseDate: z.string().nullable(),
  status: z
    .enum(['complete', 'partial', 'missing', 'not_in_library'])
    .describe('Library state, as POST /api/library/albums/lookup/batch reports it; not_in_library when the library lacks the album'),
  inLibrary: z.boolean(),
  score: z.number(),
});

const searchAnswer = z.object({
  scope: z.enum(['artist', 'album', 'tag']),
  query: z.string(),
  count: z.number().describe('All matches; for album searches sorted by date or title, the best 100 matches that order covers'),
  offset: z.number(),
  items: z.array(z.union([artistItem, albumItem])).describe('artist entries for scopes artist and tag, album entries for scope album'),
});

const unifiedAnswer = z.object({
  query: z.string(),
  library: z
    .object({
      artists: z.array(z.object({ id: z.string(), name: z.string(), mbid: z.string().nullable(), imageUrl: z.string().nullable() })),
      albums: z.array(
        z.object({ id: z.string(), title: z.string(), artistName: z.string(), mbid: z.string().nullable(), year: z.number().nullable(), imageUrl: z.string().nullable() }),
      ),
      tracks: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          artistName: z.string(),
          albumId: z.string().nullable(),
          albumTitle: z.string().nullable(),
          available: z.boolean().describe('Whether the library has a playable file of the track (false: wanted, not downloaded yet)'),
        }),
      ),
    })
    .describe('Hits of the local full-text index (ids are library ids), always present'),
  remote: z
    .object({
      status: z
        .enum(['complete', 'pending', 'unavailable', 'disabled'])
        .describe('complete: MusicBrainz answered within 1.5 s; pending: still working, ask again shortly (the answer is being cached); unavailable: it failed; disabled: MusicBrainz is switched off'),
      artists: z.array(artistItem),
      albums: z.array(albumItem),
    })
    .describe('MusicBrainz hits (ids are MBIDs), empty unless status is complete'),
});

const resolvedLink = z.object({
  kind: z.enum(['artist', 'album', 'track']),
  source: z.enum(['spotify', 'deezer', 'apple', 'youtube', 'tidal', 'bandcamp', 'musicbrainz']),
  artist: z.object({ name: z.string(), mbid: z.string().nullable() }),
  album: z.object({ title: z.string(), mbid: z.string().nullable() }).nullable(),
  track: z.object({ title: z.string(), mbid: z.string().nullable() }).nullable(),
});

/** Fail to compile when a schema and what the search domain answers disagree on a field. */
export const schemasMatchDomain = {
  search: true satisfies Same<z.infer<typeof searchAnswer>, SearchAnswer>,
  unified: true satisfies Same<z.infer<typeof unifiedAnswer>, Awaited<ReturnType<typeof unifiedSearch>>>,
  link: true satisfies Same<z.infer<typeof resolvedLink>, ResolvedLink>,
};

/** Who is typing: one session (or the API key); their newer suggestion request supersedes older ones. */
const callerKey = (p: Principal | null) => (p ? `${p.userId}:${p.sessionId ?? p.via}` : 'anonymous');

/** api.md 4.7: MusicBrainz searches, as-you-type suggestions and streaming-link resolution. */
export function searchRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/search',
      summary: 'Search MusicBrainz artists, albums (release groups; releaseTypes, sort) or artists by tag, marked against the library',
      tag: 'search',
      access: 'authenticated',
      query: searchQuery,
      response: searchAnswer,
      handler: ({ query }) => ctx.search.search(query),
    }),
    defineRoute({
      method: 'get',
      path: '/api/search/unified',
      summary: 'As-you-type suggestions: library hits at once, MusicBrainz artists and albums when they answer within 1.5 s',
      tag: 'search',
      access: 'authenticated',
      query: z.object({ q: phrase, limit: z.coerce.number().int().min(1).max(20).default(5) }),
      response: unifiedAnswer,
      handler: ({ query, principal }) => unifiedSearch(ctx, query.q, query.limit, callerKey(principal)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/search/link',
      summary: 'Resolve a Spotify, Apple Music, Deezer, YouTube (Music), Tidal, Bandcamp or MusicBrainz link to names and MBIDs',
      tag: 'search',
      access: 'authenticated',
      query: z.object({ url: z.string().trim().min(1, 'must not be empty').max(2000) }),
      response: resolvedLink,
      handler: ({ query }) => resolveLink(ctx, query.url),
    }),
  ];
}
