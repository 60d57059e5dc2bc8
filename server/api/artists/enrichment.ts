import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotFoundError } from '../../domain/errors.js';
import { frontCover, releaseGroupEntry } from '../../domain/metadata/present.js';
import { artistCover, artistVideoLinks, previewTracks, similarEntries } from '../../domain/metadata/presentEnrichment.js';
import { defineRoute } from '../../http/route.js';
import type { Same } from '../../http/same.js';
import { mbidParams, mbidSchema, ownedGroupsOf, releaseGroupEntrySchema } from './routes.js';
import { artistStreamRoute } from './stream.js';

const refreshQuery = z.object({ refresh: z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1') });
const limitOf = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);
/** Batch routes take at most this many MBIDs. */
export const MAX_BATCH = 100;
/** A batch fetches what the cache lacks for at most this long; the rest is queued and listed as pending. */
const BATCH_BUDGET_MS = 5000;
const batchBody = z.object({ mbids: z.array(mbidSchema).min(1).max(MAX_BATCH) }).strict();

const imageEntry = z.object({ size: z.enum(['small', 'medium', 'large', 'xl']), url: z.string() });
const artistCoverSchema = z.object({
  mbid: z.string(),
  source: z.literal('deezer').nullable(),
  deezerArtistId: z.string().nullable(),
  deezerName: z.string().nullable(),
  overridden: z.boolean(),
  imageUrl: z.string().nullable(),
  images: z.array(imageEntry),
});
const similarSchema = z.object({
  mbid: z.string(),
  source: z.literal('lastfm'),
  artists: z.array(z.object({ id: z.string().nullable(), name: z.string(), match: z.number(), url: z.string().nullable(), imageUrl: z.string().nullable(), inLibrary: z.boolean(), libraryArtistId: z.string().nullable() })),
});
const previewSchema = z.object({
  mbid: z.string(),
  source: z.literal('deezer').nullable(),
  deezerArtistId: z.string().nullable(),
  tracks: z.array(z.object({ id: z.string(), title: z.string(), durationMs: z.number().nullable(), rank: z.number().nullable(), previewUrl: z.string().nullable(), link: z.string().nullable(), album: z.object({ id: z.string(), title: z.string(), coverUrl: z.string().nullable() }).nullable() })),
});

/** Fail to compile when a schema and what domain/metadata/presentEnrichment.ts answers disagree on a field. */
export const schemasMatchDomain = {
  similar: true satisfies Same<z.infer<typeof similarSchema>['artists'][number], ReturnType<typeof similarEntries>[number]>,
  cover: true satisfies Same<z.infer<typeof artistCoverSchema>, ReturnType<typeof artistCover>>,
  preview: true satisfies Same<z.infer<typeof previewSchema>, ReturnType<typeof previewTracks>>,
};
const overridesSchema = z.object({ mbid: z.string(), musicbrainzId: z.string().nullable(), deezerArtistId: z.string().nullable() });

/**
 * Fetches one document per MBID: cached ones at once, missing ones in turn through the paced client
 * until the budget is spent; the rest get a background refresh and are listed as pending.
 */
async function batch<T>(ctx: AppContext, kind: string, mbids: string[], load: (mbid: string) => Promise<T>): Promise<{ values: Record<string, T | null>; pending: string[] }> {
  const metadata = ctx.metadata;
  const deadline = Date.now() + BATCH_BUDGET_MS;
  const values: Record<string, T | null> = {};
  const pending: string[] = [];
  for (const mbid of new Set(mbids)) {
    if (!metadata.cache.get(kind, mbid) && Date.now() > deadline) {
      metadata.peek(kind, mbid);
      pending.push(mbid);
      values[mbid] = null;
      continue;
    }
    try {
      values[mbid] = await load(mbid);
    } catch (err) {
      values[mbid] = null;
      if (!(err instanceof NotFoundError)) {
        metadata.peek(kind, mbid);
        pending.push(mbid);
      }
    }
  }
  return { values, pending };
}

/** api.md 4.6, the enrichment half: Last.fm and Deezer beside MusicBrainz, overrides and batches. */
export function artistEnrichmentRoutes(ctx: AppContext) {
  const metadata = ctx.metadata;
  const enrichment = ctx.enrichment;
  const images = ctx.remoteImages;

  return [
    defineRoute({
      method: 'get',
      path: '/api/artists/:mbid/overrides',
      summary: "The artist's metadata overrides (MusicBrainz id and Deezer artist used for its lookups)",
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      response: overridesSchema,
      handler: ({ params }) => ({ mbid: params.mbid, ...metadata.cache.overrides(params.mbid) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/artists/:mbid/overrides',
      summary: 'Sets the overrides; every later lookup of the artist uses them (null clears one)',
      tag: 'artists',
      access: 'admin',
      params: mbidParams,
      body: z
        .object({
          musicbrainzId: mbidSchema.nullable().optional(),
          deezerArtistId: z.union([z.string().regex(/^\d{1,20}$/, 'must be a Deezer artist id (digits)'), z.number().int().positive().transform(String)]).nullable().optional(),
        })
        .strict(),
      response: overridesSchema,
      handler: ({ params, body }) => {
        const current = metadata.cache.overrides(params.mbid);
        const next = {
          musicbrainzId: body.musicbrainzId === undefined ? current.musicbrainzId : body.musicbrainzId === params.mbid ? null : body.musicbrainzId,
          deezerArtistId: body.deezerArtistId === undefined ? current.deezerArtistId : body.deezerArtistId,
        };
        // Cached documents are keyed by the resolved MBID or the Deezer id, so later lookups follow the new match.
        metadata.cache.setOverrides(params.mbid, next, ctx.clock.now());
        return { mbid: params.mbid, ...next };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/:mbid/similar',
      summary: 'Similar artists from Last.fm, with MusicBrainz ids and inLibrary (needs integrations.lastfm.apiKey)',
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      query: z.object({ limit: limitOf(100, 20) }),
      response: similarSchema,
      handler: async ({ params, query }) => ({ mbid: params.mbid, source: 'lastfm' as const, artists: similarEntries(ctx, await enrichment.similar(params.mbid), query.limit) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/:mbid/cover',
      summary: 'The artist picture: the Deezer artist found by name or named in the overrides (refresh=true asks Deezer again and retries a picture that failed)',
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      query: refreshQuery,
      response: artistCoverSchema,
      handler: async ({ params, query }) => {
        const { artist, overridden } = await enrichment.deezerArtist(params.mbid, query.refresh);
        return artistCover(ctx, params.mbid, artist, overridden, query.refresh);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/release-group/:mbid/cover',
      summary: 'Cover images of a release group from the Cover Art Archive (refresh=true asks the archive again)',
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      query: refreshQuery,
      response: z.object({
        mbid: z.string(),
        coverUrl: z.string().nullable(),
        images: z.array(z.object({ id: z.string(), front: z.boolean(), back: z.boolean(), types: z.array(z.string()), url: z.string().nullable(), thumbnails: z.record(z.string(), z.string().nullable()) })),
      }),
      handler: async ({ params, query }) => {
        const cover = await metadata.cover(params.mbid, query.refresh);
        // refresh=true also forgets pictures that failed to download, so the proxy tries them again.
        const proxy = (url: string | null) => images.proxyUrl(url, { retry: query.refresh });
        return {
          mbid: params.mbid,
          coverUrl: proxy(frontCover(cover)),
          images: cover.images.map((i) => ({
            id: i.id,
            front: i.front,
            back: i.back,
            types: i.types,
            url: proxy(i.image),
            thumbnails: Object.fromEntries(Object.entries(i.thumbnails).map(([size, url]) => [size, proxy(url)])),
          })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/:mbid/preview',
      summary: "The artist's top tracks on Deezer with 30 s preview URLs",
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      query: z.object({ limit: limitOf(25, 10) }),
      response: previewSchema,
      handler: async ({ params, query }) => {
        const { artist, tracks } = await enrichment.deezerTop(params.mbid);
        return previewTracks(ctx, params.mbid, artist, tracks, query.limit);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/:mbid/video',
      summary: "Video links for an artist and track: without a video search service, the artist's video links listed on MusicBrainz",
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      query: z.object({ track: z.string().trim().min(1).max(500) }),
      response: z.object({
        mbid: z.string(),
        artist: z.string(),
        track: z.string(),
        source: z.literal('musicbrainz'),
        /** Links about the artist (channels), not a match for the track itself. */
        scope: z.literal('artist'),
        videos: z.array(z.object({ type: z.string(), url: z.string() })),
      }),
      handler: async ({ params, query }) => {
        const { artist } = await metadata.artist(params.mbid);
        const videos = artistVideoLinks(artist);
        if (videos.length === 0)
          throw new NotFoundError('Video not found', `No video search service is configured, and MusicBrainz lists no YouTube or video link for ${artist.name}`);
        return { mbid: params.mbid, artist: artist.name, track: query.track, source: 'musicbrainz' as const, scope: 'artist' as const, videos };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/artists/:mbid/appears-on',
      summary: 'Release groups of other artists that include a recording of this one',
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      response: z.object({ mbid: z.string(), 'appears-on-release-groups': z.array(releaseGroupEntrySchema) }),
      handler: async ({ params }) => {
        const groups = await metadata.appearsOn(params.mbid);
        const owned = ownedGroupsOf(ctx, groups.map((g) => g.id));
        return { mbid: params.mbid, 'appears-on-release-groups': groups.map((g) => releaseGroupEntry(g, owned)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/artists/release-groups/covers',
      summary: `Front covers of up to ${MAX_BATCH} release groups, keyed by MBID (pending: not known yet, fetched in the background)`,
      tag: 'artists',
      access: 'authenticated',
      body: batchBody,
      response: z.object({ covers: z.record(z.string(), z.object({ coverUrl: z.string().nullable() })), pending: z.array(z.string()) }),
      handler: async ({ body }) => {
        const { values, pending } = await batch(ctx, 'cover', body.mbids, async (mbid) => images.proxyUrl(frontCover(await metadata.cover(mbid))));
        return { covers: Object.fromEntries(Object.entries(values).map(([mbid, coverUrl]) => [mbid, { coverUrl }])), pending };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/artists/release-groups/ratings',
      summary: `MusicBrainz ratings (0-5) of up to ${MAX_BATCH} release groups, keyed by MBID`,
      tag: 'artists',
      access: 'authenticated',
      body: batchBody,
      response: z.object({ ratings: z.record(z.string(), z.object({ value: z.number().nullable(), votes: z.number() }).nullable()), pending: z.array(z.string()) }),
      handler: async ({ body }) => {
        const { values, pending } = await batch(ctx, 'release-group', body.mbids, async (mbid) => {
          const rating = (await metadata.releaseGroup(mbid)).rating;
          return { value: rating?.value ?? null, votes: rating?.['votes-count'] ?? 0 };
        });
        return { ratings: values, pending };
      },
    }),
    artistStreamRoute(ctx),
  ];
}
