import type { Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { ImportSource } from '../../db/playlistImports.js';
import { importPlaylist, previewImport, type ImportResult } from '../../domain/imports/service.js';
import { listPlaylists } from '../../domain/imports/sources.js';
import { completeSpotifyOAuth, disconnectSpotify, spotifyStatus, startSpotifyOAuth } from '../../domain/imports/spotifyAccount.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** The origin the browser used, for the OAuth return page when TONEARM_PUBLIC_URL is not set. */
const originOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

const sourceId = z.string().trim().min(1).max(200);
/** What an import creates: the user's static playlist (default) or a shared playlist. */
const target = z.enum(['static', 'shared']).default('static');
const playlistName = z.string().trim().min(1).max(200).optional();

const statusSchema = z.object({
  connected: z.boolean(),
  method: z.enum(['broker', 'pkce']),
  displayName: z.string().nullable(),
  spotifyUserId: z.string().nullable(),
  redirectUri: z.string().nullable(),
});
const playlistSchema = z.object({
  id: z.string(),
  name: z.string(),
  owner: z.string().nullable(),
  trackCount: z.number().nullable(),
  kind: z.enum(['playlist', 'createdfor', 'station']),
  description: z.string().nullable(),
});
const previewTrack = z.object({ position: z.number(), title: z.string(), artist: z.string(), album: z.string().nullable(), trackId: z.string().optional(), recordingMbid: z.string().optional() });
const previewSchema = z.object({
  source: z.string(),
  playlist: z.object({ id: z.string(), name: z.string() }),
  total: z.number(),
  counts: z.object({ owned: z.number(), download: z.number(), unmatched: z.number(), unchecked: z.number() }),
  owned: z.array(previewTrack),
  download: z.array(previewTrack),
  unmatched: z.array(previewTrack),
  unchecked: z.array(previewTrack),
  listLimit: z.number(),
  matching: z.object({ available: z.boolean(), budgetExhausted: z.boolean(), lookups: z.number() }),
  canDownload: z.boolean(),
});
const importSchema = z.object({
  importId: z.string(),
  source: z.string(),
  sourceId: z.string(),
  name: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  status: z.enum(['matching', 'downloading', 'done', 'failed']),
  total: z.number(),
  counts: z.record(z.string(), z.number()),
});
const oneImport = z.object({ playlistId: sourceId, target, name: playlistName }).strict();

/**
 * api.md §4.11 (real names per decisions §1: spotify, listenbrainz, lastfm; the neutral spellings
 * are aliases). Account routes and reads need a user session; an import makes download jobs and
 * so also needs accessFlow, like the other playlist routes.
 */
export function importRoutes(ctx: AppContext): RouteDefinition[] {
  const listRoute = (source: ImportSource, summary: string) =>
    defineRoute({
      method: 'get',
      path: `/api/playlists/import/${source}/playlists`,
      summary,
      tag: 'imports',
      access: 'user',
      response: z.object({ playlists: z.array(playlistSchema) }),
      handler: async ({ principal }) => ({ playlists: await listPlaylists(ctx, principal!.userId, source) }),
    });
  const previewRoute = (source: ImportSource, summary: string) =>
    defineRoute({
      method: 'post',
      path: `/api/playlists/import/${source}/preview`,
      summary,
      tag: 'imports',
      access: 'user',
      body: z.object({ playlistId: sourceId }).strict(),
      response: previewSchema,
      handler: ({ principal, body }) => previewImport(ctx, principal!.userId, source, body.playlistId),
    });
  const importRoute = (source: Exclude<ImportSource, 'spotify'>, summary: string) =>
    defineRoute({
      method: 'post',
      path: `/api/playlists/import/${source}`,
      summary,
      tag: 'imports',
      access: { userPermission: 'accessFlow' },
      body: oneImport,
      response: importSchema,
      status: 201,
      handler: ({ principal, body }) => importPlaylist(ctx, principal!.userId, source, body.playlistId, { target: body.target, principal: principal!, ...(body.name && { name: body.name }) }),
    });
  return [
    defineRoute({
      method: 'get',
      path: '/api/playlists/import/spotify/status',
      summary: 'Your Spotify connection: connected, the account name, and how a connection is made (broker or PKCE); never a token',
      tag: 'imports',
      access: 'user',
      response: statusSchema,
      handler: ({ principal, req, res }) => {
        res.setHeader('Cache-Control', 'no-store');
        return spotifyStatus(ctx, principal!.userId, originOf(req));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/import/spotify/oauth/start',
      summary: "Start connecting Spotify: its authorization page ({url}) with a one-time state (10 minutes)",
      tag: 'imports',
      access: 'user',
      response: z.object({ url: z.string(), state: z.string(), method: z.enum(['broker', 'pkce']) }),
      handler: ({ principal, req, res }) => {
        res.setHeader('Cache-Control', 'no-store');
        return startSpotifyOAuth(ctx, principal!.userId, originOf(req));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/import/spotify/oauth/complete',
      summary: "Finish connecting Spotify: the state with PKCE's code, or with the broker's tokens; checked with Spotify before they are stored",
      tag: 'imports',
      access: 'user',
      body: z
        .object({
          state: z.string().min(1).max(200),
          code: z.string().min(1).max(2000).optional(),
          accessToken: z.string().min(1).max(4000).optional(),
          refreshToken: z.string().min(1).max(4000).optional(),
          expiresIn: z.coerce.number().int().positive().max(86400 * 30).optional(),
        })
        .strict(),
      response: statusSchema,
      handler: ({ principal, body, req }) => completeSpotifyOAuth(ctx, principal!.userId, body, originOf(req)),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/playlists/import/spotify',
      summary: 'Disconnect Spotify (the stored tokens are deleted)',
      tag: 'imports',
      access: 'user',
      response: z.object({ success: z.literal(true), connected: z.literal(false) }),
      handler: ({ principal }) => disconnectSpotify(ctx, principal!.userId),
    }),
    listRoute('spotify', 'Your Spotify playlists (own and followed), every page followed'),
    previewRoute('spotify', 'Preview importing a Spotify playlist: tracks owned, to download, not matched (and not checked within the time budget)'),
    defineRoute({
      method: 'post',
      path: '/api/playlists/import/spotify',
      summary: 'Import Spotify playlists: each becomes a static playlist; missing matched tracks become download jobs that join it when done',
      tag: 'imports',
      access: { userPermission: 'accessFlow' },
      body: z
        .object({ playlistIds: z.array(sourceId).min(1).max(20).optional(), playlistId: sourceId.optional(), target, name: playlistName })
        .strict()
        .refine((b) => (b.playlistIds?.length ?? 0) + (b.playlistId ? 1 : 0) > 0, { message: 'playlistIds (or playlistId) is required', path: ['playlistIds'] })
        .refine((b) => !b.name || (b.playlistIds?.length ?? 0) + (b.playlistId ? 1 : 0) === 1, { message: 'name can only be given when importing one playlist', path: ['name'] }),
      response: z.object({ imports: z.array(importSchema) }),
      status: 201,
      handler: async ({ principal, body }) => {
        const ids = [...new Set([...(body.playlistId ? [body.playlistId] : []), ...(body.playlistIds ?? [])])];
        const imports: ImportResult[] = [];
        for (const id of ids) imports.push(await importPlaylist(ctx, principal!.userId, 'spotify', id, { target: body.target, principal: principal!, ...(body.name && { name: body.name }) }));
        return { imports };
      },
    }),
    listRoute('listenbrainz', 'Your ListenBrainz playlists and the ones made for you (Weekly Jams, Weekly Exploration...)'),
    previewRoute('listenbrainz', 'Preview importing a ListenBrainz playlist'),
    importRoute('listenbrainz', 'Import a ListenBrainz playlist as a static playlist; missing tracks become download jobs'),
    listRoute('lastfm', 'Your Last.fm stations: Library, Mix and Recommended'),
    previewRoute('lastfm', 'Preview importing a Last.fm station (library, mix or recommended)'),
    importRoute('lastfm', 'Import a Last.fm station as a static playlist; missing tracks become download jobs'),
  ];
}
