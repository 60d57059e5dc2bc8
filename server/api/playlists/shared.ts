import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { playlistFormats } from '../../domain/playlists/formats.js';
import { setRetryCycle } from '../../domain/playlists/retryCycle.js';
import { viewerOf } from '../../domain/playlists/registry.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import {
  retryCycleSchema,
  sharedDeletedSchema,
  sharedDetailSchema,
  sharedResearchMissingSchema,
  sharedResearchSchema,
  sharedSummarySchema,
  sharedSyncSchema,
  sharedTrackAddedSchema,
  sharedTrackRemovedSchema,
} from './sharedSchemas.js';

/** api.md 4.10: shared playlists (create, import, export, tracks, research, sync) and the retry-cycle switch. */

const idParams = z.object({ playlistId: z.string().min(1).max(200) });
const jobParams = idParams.extend({ jobId: z.string().regex(/^\d{1,15}$/, 'must be a job id').transform(Number) });

const settings = {
  description: z.string().max(2000).optional(),
  sourceUrl: z.string().url().max(2000).nullable().optional().describe('http(s) URL the playlist is synced from'),
  syncEnabled: z.boolean().optional(),
  syncIntervalHours: z.number().int().min(1).max(720).optional().describe('hours between syncs (default 24)'),
  keepRemovedTracks: z.boolean().optional().describe('on sync, keep tracks that are gone from the source'),
};

const wantedTrack = z.object({
  artistName: z.string().trim().min(1).max(500),
  trackName: z.string().trim().min(1).max(500),
  albumName: z.string().max(500).nullable().optional(),
  durationMs: z.number().int().positive().nullable().optional(),
  recordingMbid: z.string().max(64).nullable().optional(),
});
const trackRef = z.object({ trackId: z.union([z.string().regex(/^\d{1,15}$/), z.number().int().positive()]).transform(Number) });
const addTrackBody = z.union([trackRef.strict(), wantedTrack.strict()]);

const createBody = z
  .object({ name: z.string().trim().min(1).max(200), ...settings, tracks: z.array(wantedTrack).max(5000).optional() })
  .strict();
const importBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    ...settings,
    content: z.union([z.string().max(5 * 1024 * 1024), z.record(z.string(), z.unknown())]).optional().describe('the playlist file: M3U/M3U8 text, JSPF or an export of this service (text or JSON)'),
    url: z.string().url().max(2000).optional().describe('fetch the playlist from here (becomes the sync source)'),
    format: z.enum(playlistFormats).optional().describe('jspf, m3u or tonearm; recognised from the content when absent'),
  })
  .strict()
  .refine((b) => b.content !== undefined || b.url !== undefined, { message: 'content or url is required' });
const updateBody = z.object({ name: z.string().trim().min(1).max(200).optional(), ...settings }).strict();

export function sharedPlaylistRoutes(ctx: AppContext): RouteDefinition[] {
  const shared = ctx.sharedPlaylists;
  const base = '/api/playlists/shared-playlists';
  return [
    defineRoute({
      tag: 'playlists',
      access: 'authenticated',
      method: 'get',
      path: base,
      summary: 'Every shared playlist (readable by every user; canEdit tells whether you may change it)',
      response: z.array(sharedSummarySchema),
      handler: ({ principal }) => shared.list(viewerOf(principal!)),
    }),
    defineRoute({
      tag: 'playlists',
      access: { userPermission: 'accessFlow' },
      method: 'post',
      path: base,
      status: 201,
      summary: 'Create a shared playlist, optionally with tracks (owned tracks link, missing ones are downloaded)',
      body: createBody,
      response: sharedDetailSchema,
      handler: ({ principal, body }) => shared.create(principal!, body, (body.tracks ?? []).map((t) => ({ albumName: null, durationMs: null, recordingMbid: null, ...t }))),
    }),
    defineRoute({
      tag: 'playlists',
      access: { userPermission: 'accessFlow' },
      method: 'post',
      path: `${base}/import`,
      status: 201,
      summary: 'Import a shared playlist from JSPF, M3U/M3U8 or an export of this service (as content or from a url); a broken file is 400 and nothing is saved',
      body: importBody,
      response: sharedDetailSchema,
      handler: ({ principal, body }) => shared.import(principal!, body),
    }),
    defineRoute({
      tag: 'playlists',
      access: 'authenticated',
      method: 'get',
      path: `${base}/:playlistId`,
      summary: 'A shared playlist with its tracks and the state of their downloads',
      params: idParams,
      response: sharedDetailSchema,
      handler: ({ principal, params }) => shared.detail(params.playlistId, viewerOf(principal!)),
    }),
    defineRoute({
      tag: 'playlists',
      access: 'authenticated',
      method: 'get',
      path: `${base}/:playlistId/export`,
      summary: 'Download the playlist as this service\'s JSON export (default, imports back unchanged), JSPF or M3U8',
      params: idParams,
      query: z.object({ format: z.enum(playlistFormats).default('tonearm') }),
      response: 'binary',
      handler: ({ params, query, res }) => {
        const file = shared.exportAs(params.playlistId, query.format);
        res.setHeader('Content-Type', file.contentType);
        res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`);
        res.status(200).end(file.body);
        return undefined;
      },
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'put',
      path: `${base}/:playlistId`,
      summary: 'Change name, description or sync settings (owner or administrator)',
      params: idParams,
      body: updateBody,
      response: sharedDetailSchema,
      handler: ({ principal, params, body }) => shared.update(principal!, params.playlistId, body),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'delete',
      path: `${base}/:playlistId`,
      summary: 'Delete a shared playlist (owner or administrator); files stay, pending downloads of it are cancelled',
      params: idParams,
      response: sharedDeletedSchema,
      handler: ({ principal, params }) => shared.delete(principal!, params.playlistId),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: `${base}/:playlistId/tracks`,
      status: 201,
      summary: 'Add a library track (trackId) or a track by artistName and trackName (downloaded when not owned)',
      params: idParams,
      body: addTrackBody,
      response: sharedTrackAddedSchema,
      handler: ({ principal, params, body }) => shared.addTrack(principal!, params.playlistId, body),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'delete',
      path: `${base}/:playlistId/tracks/:jobId`,
      summary: 'Remove a track (by its job id) from the playlist; files stay',
      params: jobParams,
      response: sharedTrackRemovedSchema,
      handler: ({ principal, params }) => shared.removeTrack(principal!, params.playlistId, params.jobId),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: `${base}/:playlistId/tracks/:jobId/research`,
      summary: 'Search again for a failed or cancelled track; 409 while it is pending or downloading',
      params: jobParams,
      response: sharedResearchSchema,
      handler: ({ principal, params }) => shared.researchTrack(principal!, params.playlistId, params.jobId),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: `${base}/:playlistId/research-missing`,
      summary: 'Search again for every failed or cancelled track of the playlist',
      params: idParams,
      response: sharedResearchMissingSchema,
      handler: ({ principal, params }) => shared.researchMissing(principal!, params.playlistId),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'post',
      path: `${base}/:playlistId/sync`,
      summary: 'Read the import source again: new tracks are added, removed ones dropped (or kept with keepRemovedTracks)',
      params: idParams,
      response: sharedSyncSchema,
      handler: ({ principal, params }) => shared.sync(params.playlistId, principal!),
    }),
    defineRoute({
      tag: 'playlists',
      access: { permission: 'accessFlow' },
      method: 'put',
      path: '/api/playlists/playlists/:playlistId/retry-cycle',
      summary: 'Pause or resume the hourly retry of failed tracks of a static or shared playlist',
      params: idParams,
      body: z.object({ paused: z.boolean() }).strict(),
      response: retryCycleSchema,
      handler: ({ principal, params, body }) => setRetryCycle(ctx, principal!, params.playlistId, body.paused),
    }),
  ];
}
