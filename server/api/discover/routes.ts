import { z } from 'zod';
import type { AppContext } from '../../context.js';
import * as actions from '../../domain/discovery/actions.js';
import fs from 'node:fs';
import { presetArtwork, presetPreviews } from '../../domain/discovery/presets.js';
import { type DiscoverView, type DiscoveryCapabilities, type DiscoveryEntry, type Preferences } from '../../domain/discovery/service.js';
import type { RelatedArtists } from '../../domain/discovery/actions.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { Same } from '../../http/same.js';

/** api.md §4.8 Discovery (nearby shows, artwork, previews and the adopt routes live elsewhere). */

const entry = z.object({
  id: z.string().nullable().describe("the artist's MusicBrainz id, when known"),
  name: z.string(),
  type: z.literal('artist'),
  image: z.string().nullable(),
  tags: z.array(z.string()),
  inLibrary: z.boolean(),
  source: z.string().describe('where the artist came from (lastfm, listenbrainz)'),
  score: z.number().optional(),
  basedOn: z.array(z.string()).optional().describe('the seed artists that led to it'),
  listeners: z.number().nullable().optional(),
});
const capabilities = z.object({
  arbitraryTagSearch: z.boolean(),
  flows: z.object({ discover: z.boolean(), focus: z.boolean(), mix: z.boolean(), trending: z.boolean() }),
  genreSections: z.boolean(),
  globalTrending: z.boolean(),
  personalizedRecommendations: z.boolean(),
  relatedArtists: z.boolean(),
});
const provider = z.enum(['lastfm', 'listenbrainz']);
const preset = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  mix: z.object({ discover: z.number().optional(), focus: z.number().optional(), mix: z.number().optional(), trending: z.number().optional() }).describe('the flow mix an adopted preset starts with, in percent per source'),
  artworkUrl: z.string(),
});
const seed = z.object({ id: z.string().nullable(), name: z.string(), type: z.literal('artist'), image: z.null(), tags: z.array(z.string()), source: z.string(), weight: z.number() });
const discoverResponse = z.object({
  recommendations: z.array(entry),
  globalTop: z.array(entry),
  basedOn: z.array(seed),
  topTags: z.array(z.string()),
  topGenres: z.array(z.string()),
  recommendationCount: z.number(),
  lastUpdated: z.string().nullable(),
  configured: z.boolean(),
  provider,
  capabilities,
  isUpdating: z.boolean(),
  stale: z.boolean(),
  lastError: z.string().nullable().describe('why the last update did not finish, in words'),
  discoverPlaylists: z.array(preset),
  fallbackGenres: z.array(z.object({ tag: z.string(), name: z.string(), artists: z.array(entry) })),
  limit: z.number(),
  offset: z.number(),
  discoveryMode: z.enum(['balanced', 'deeper']),
  discoveryRunId: z.string().nullable().describe("the caller's latest refresh in this process"),
  isEnriching: z.boolean().describe('the refresh is reading the tags of the recommendations'),
  enrichmentStartedAt: z.string().nullable(),
  enrichmentCompletedAt: z.string().nullable(),
  enrichmentProgressMessage: z.string().nullable(),
  recommendationQuality: z.enum(['initial', 'enriching', 'enriched']).nullable(),
  playlistsUpdating: z.boolean(),
});
const feedback = z.object({ id: z.number(), artistName: z.string(), artistMbid: z.string().nullable(), kind: z.enum(['more', 'less']), createdAt: z.string() });
const preferences = z.object({ excludedTags: z.array(z.string()), excludedArtists: z.array(z.string()), deepDive: z.boolean() });
const page = { limit: z.coerce.number().int().min(1).max(200).default(50), offset: z.coerce.number().int().min(0).default(0) };
const flag = z.enum(['1', 'true', '0', 'false']).optional().transform((v) => v === '1' || v === 'true');
const items = z.object({ items: z.array(entry), total: z.number(), limit: z.number(), offset: z.number() });
const success = z.object({ success: z.boolean() });
const weighted = z.object({ name: z.string(), weight: z.number() });
const related = z.object({
  artist: z.string().nullable(),
  items: z.array(entry),
  sections: z.array(z.object({ seed: z.object({ id: z.string().nullable(), name: z.string(), source: z.string() }), artists: z.array(entry) })),
});
const similar = z.object({ tags: z.array(weighted), genres: z.array(weighted), seeds: z.array(z.object({ id: z.string().nullable(), name: z.string(), source: z.string(), weight: z.number() })) });
const tagList = z.object({ tags: z.array(weighted), genres: z.array(z.string()), cachedTags: z.array(z.string()), arbitraryTagSearch: z.boolean() });
const byTag = items.extend({ tag: z.string() });
const previews = z.object({
  presetId: z.string(),
  name: z.string(),
  previews: z.array(z.object({ artistName: z.string(), trackTitle: z.string(), previewUrl: z.string(), deezerTrackId: z.number(), albumTitle: z.string().nullable(), cover: z.string().nullable() })),
  problem: z.string().optional().describe('why there are no previews, in words (the preview source could not be reached, no artists yet)'),
});
const feedbackAnswer = z.object({ success: z.boolean(), feedback, removed: z.number() });
const removedAnswer = z.object({ success: z.boolean(), removed: z.number() });
const clearedDiscovery = z.object({ success: z.boolean(), scope: z.enum(['all', 'user']) });
const clearedCaches = z.object({ success: z.boolean(), clearedImageLinks: z.number(), clearedImageFiles: z.number(), clearedMetadataEntries: z.number() });

type Returned<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
/** Fail to compile when a schema and what the domain answers disagree on a field. */
export const schemasMatchDomain = {
  entry: true satisfies Same<z.infer<typeof entry>, DiscoveryEntry>,
  capabilities: true satisfies Same<z.infer<typeof capabilities>, DiscoveryCapabilities>,
  view: true satisfies Same<z.infer<typeof discoverResponse>, DiscoverView>,
  feedback: true satisfies Same<z.infer<typeof feedback>, Returned<typeof actions.listFeedback>[number]>,
  preferences: true satisfies Same<z.infer<typeof preferences>, Preferences>,
  related: true satisfies Same<z.infer<typeof related>, RelatedArtists>,
  similar: true satisfies Same<z.infer<typeof similar>, Returned<typeof actions.similarSummary>>,
  filtered: true satisfies Same<z.infer<typeof items>, Returned<typeof actions.filtered>>,
  tags: true satisfies Same<z.infer<typeof tagList>, Returned<typeof actions.tags>>,
  byTag: true satisfies Same<z.infer<typeof byTag>, Returned<typeof actions.byTag>>,
  previews: true satisfies Same<z.infer<typeof previews>, Returned<typeof presetPreviews>>,
  recordFeedback: true satisfies Same<z.infer<typeof feedbackAnswer>, Returned<typeof actions.recordFeedback>>,
  deleteFeedback: true satisfies Same<z.infer<typeof success>, Returned<typeof actions.deleteFeedback>>,
  resetFeedback: true satisfies Same<z.infer<typeof removedAnswer>, Returned<typeof actions.resetFeedback>>,
  clearDiscovery: true satisfies Same<z.infer<typeof clearedDiscovery>, Returned<typeof actions.clearDiscovery>>,
  clearCaches: true satisfies Same<z.infer<typeof clearedCaches>, Returned<typeof actions.clearCaches>>,
};

export function discoverRoutes(ctx: AppContext): RouteDefinition[] {
  const service = ctx.discovery;
  const tag = 'discover';
  return [
    defineRoute({
      method: 'get',
      path: '/api/discover',
      summary: 'Discovery sections from the cache: recommendations, global top, seeds, tags, genre sections, presets',
      tag,
      access: 'user',
      query: z.object(page),
      response: discoverResponse,
      handler: ({ query, principal }) => service.view(principal!.userId, query.limit, query.offset),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/refresh',
      summary: "Queue a refresh of the caller's recommendations (progress on /ws channel discovery)",
      tag,
      access: 'user',
      response: z.object({ success: z.boolean(), queued: z.boolean(), jobId: z.number(), isUpdating: z.boolean() }),
      handler: ({ principal }) => {
        const { jobId, created } = service.enqueue(principal!.userId);
        return { success: true, queued: created, jobId, isUpdating: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/related',
      summary: 'Artists related to one artist (artist, mbid), or the recommendations grouped by the seed that found them',
      tag,
      access: 'user',
      query: z.object({ artist: z.string().trim().min(1).max(500).optional(), mbid: z.string().max(64).optional(), limit: z.coerce.number().int().min(1).max(100).default(20) }),
      response: related,
      handler: ({ query, principal }) => actions.related(ctx, principal!.userId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/similar',
      summary: "The caller's cached taste: tags, library genres and seed artists",
      tag,
      access: 'user',
      response: similar,
      handler: ({ principal }) => actions.similarSummary(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/filtered',
      summary: 'Recommendations filtered by tag, source, minimum score or library state',
      tag,
      access: 'user',
      query: z.object({ tag: z.string().trim().max(200).optional(), source: z.enum(['lastfm', 'listenbrainz']).optional(), minScore: z.coerce.number().min(0).optional(), hideInLibrary: flag, ...page }),
      response: items,
      handler: ({ query, principal }) => actions.filtered(ctx, principal!.userId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/tags',
      summary: "The caller's taste tags, the genre sections and the tags with cached artists",
      tag,
      access: 'user',
      response: tagList,
      handler: ({ principal }) => actions.tags(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/by-tag',
      summary: 'Artists for a tag (Last.fm), without blocked and disliked ones; 409 without Last.fm',
      tag,
      access: 'user',
      query: z.object({ tag: z.string().trim().min(1).max(200), hideInLibrary: flag, ...page }),
      response: byTag,
      handler: ({ query, principal }) => actions.byTag(ctx, principal!.userId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/artwork/:presetId',
      summary: 'Generated cover image of an editorial preset (PNG, drawn once per size and cached)',
      tag,
      access: 'media',
      params: z.object({ presetId: z.string().min(1).max(100) }),
      query: z.object({ size: z.coerce.number().int().min(64).max(1200).default(600) }),
      response: 'binary',
      handler: async ({ req, res, params, query }) => {
        const { file, etag } = await presetArtwork(ctx, params.presetId, query.size);
        res.setHeader('Cache-Control', 'public, max-age=604800');
        res.setHeader('ETag', etag);
        res.setHeader('Content-Type', 'image/png');
        if (req.headers['if-none-match'] === etag) return void res.status(304).end();
        const bytes = await fs.promises.readFile(file);
        res.setHeader('Content-Length', String(bytes.length));
        res.status(200).end(req.method === 'HEAD' ? undefined : bytes);
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/playlists/:presetId/previews',
      summary: "30-second Deezer previews for an editorial preset's artists",
      tag,
      access: 'user',
      params: z.object({ presetId: z.string().min(1).max(100) }),
      response: previews,
      handler: ({ params, principal }) => presetPreviews(ctx, principal!.userId, params.presetId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/feedback',
      summary: "The caller's more/less-like-this feedback, newest first",
      tag,
      access: 'user',
      response: z.object({ feedback: z.array(feedback) }),
      handler: ({ principal }) => ({ feedback: actions.listFeedback(ctx, principal!.userId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/feedback',
      summary: 'More or less like this; "less" removes the artist and its closest neighbours from the recommendations at once',
      tag,
      access: 'user',
      status: 201,
      body: z.object({ artistName: z.string().trim().min(1).max(500), artistMbid: z.string().max(64).nullish(), kind: z.enum(['more', 'less']) }),
      response: feedbackAnswer,
      handler: ({ body, principal }) => actions.recordFeedback(ctx, principal!.userId, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/discover/feedback/:id',
      summary: 'Delete one feedback entry',
      tag,
      access: 'user',
      params: z.object({ id: z.coerce.number().int().positive() }),
      response: success,
      handler: ({ params, principal }) => actions.deleteFeedback(ctx, principal!.userId, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/feedback/reset',
      summary: "Delete all the caller's feedback",
      tag,
      access: 'user',
      response: removedAnswer,
      handler: ({ principal }) => actions.resetFeedback(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/discover/preferences',
      summary: 'Excluded tags and artists, deep-dive mode',
      tag,
      access: 'user',
      response: preferences,
      handler: ({ principal }) => service.preferences(principal!.userId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/preferences',
      summary: 'Update the given preference fields; newly excluded artists and tags leave the recommendations at once',
      tag,
      access: 'user',
      body: z.object({
        excludedTags: z.array(z.string().max(200)).max(500).optional(),
        excludedArtists: z.array(z.string().max(500)).max(500).optional(),
        deepDive: z.boolean().optional(),
      }),
      response: preferences,
      handler: ({ body, principal }) => actions.updatePreferences(ctx, principal!.userId, body),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/preferences/reset',
      summary: 'Back to no exclusions and no deep dive',
      tag,
      access: 'user',
      response: preferences,
      handler: ({ principal }) => actions.resetPreferences(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/clear-discovery',
      summary: "Clear the discovery cache: the caller's recommendations, or everyone's with all=1 (administrators)",
      tag,
      access: 'user',
      query: z.object({ all: flag }),
      response: clearedDiscovery,
      handler: ({ query, principal }) => actions.clearDiscovery(ctx, principal!.userId, query.all && principal!.role === 'admin'),
    }),
    defineRoute({
      method: 'post',
      path: '/api/discover/clear',
      summary: 'Clear artwork links, fetched picture files no library item uses, and the metadata-provider caches',
      tag,
      access: 'admin',
      response: clearedCaches,
      handler: () => actions.clearCaches(ctx),
    }),
  ];
}
