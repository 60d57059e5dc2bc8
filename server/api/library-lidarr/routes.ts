import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { aurralAlbumId } from '../../domain/downloads/albums.js';
import { managedByInput, monitorModes } from '../../domain/lidarr/library.js';
import { aurralAlbumStatusSchema } from '../library-aurral/routes.js';
import { ValidationError } from '../../domain/errors.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/**
 * api.md §4.5's write side of the library when Lidarr manages the files: artists and albums added,
 * monitored, deleted and refreshed in Lidarr, album requests, downloads and their statuses. The read
 * routes (GET artists, albums, tracks, lookups) are the canonical library's, which indexes Lidarr.
 */

const mbid = z.string().trim().min(1).max(200);
const managedBy = z.enum(managedByInput).optional();
const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === '1');

const statisticsArtist = z.object({ albumCount: z.number(), trackCount: z.number(), trackFileCount: z.number(), sizeOnDisk: z.number() });
const artistSchema = z.looseObject({
  id: z.number(),
  mbid: z.string(),
  artistName: z.string(),
  monitored: z.boolean(),
  statistics: statisticsArtist,
  managedBy: z.literal('lidarr'),
});
/** A self-managed artist: no Lidarr id; `monitoring` says which albums were requested. */
const aurralArtistSchema = z.looseObject({
  id: z.null(),
  mbid: z.string(),
  artistName: z.string(),
  monitored: z.boolean(),
  managedBy: z.literal('aurral'),
});
const aurralAlbumSchema = z.looseObject({
  id: z.number(),
  canonicalId: z.string(),
  mbid: z.string(),
  title: z.string(),
  monitored: z.boolean(),
  trackCount: z.number(),
  managedBy: z.literal('aurral'),
});
const albumSchema = z.looseObject({
  id: z.number(),
  mbid: z.string(),
  title: z.string(),
  monitored: z.boolean(),
  statistics: z.object({ trackCount: z.number(), trackFileCount: z.number(), sizeOnDisk: z.number(), percentOfTracks: z.number() }),
  managedBy: z.literal('lidarr'),
});
const statusSchema = z.object({
  status: z.enum(['adding', 'searching', 'downloading', 'moving', 'processing', 'failed', 'added', 'available']),
  progress: z.number().nullable(),
  title: z.string().nullable(),
  message: z.string().nullable(),
});
const jobSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  artistName: z.string().nullable(),
  trackName: z.string().nullable(),
  playlistType: z.string(),
  streamFormat: z.string().nullable(),
});

const artistAddBody = z
  .object({
    foreignArtistId: mbid.optional(),
    mbid: mbid.optional(),
    artistName: z.string().optional(),
    rootFolderPath: z.string().min(1).optional(),
    qualityProfileId: z.number().int().positive().optional(),
    metadataProfileId: z.number().int().positive().optional(),
    monitor: z.enum(monitorModes).optional(),
    monitorOption: z.enum(monitorModes).optional(),
    monitored: z.boolean().optional(),
    searchForMissingAlbums: z.boolean().optional(),
    managedBy,
  })
  .refine((b) => b.foreignArtistId ?? b.mbid, { message: 'foreignArtistId (artist MBID) is required', path: ['foreignArtistId'] });

const albumRequestBody = z.object({
  albumMbid: mbid,
  albumName: z.string().optional(),
  artistMbid: mbid.optional(),
  artistName: z.string().optional(),
  triggerSearch: z.boolean().optional(),
  managedBy,
});

const albumAddBody = z
  .object({
    foreignAlbumId: mbid.optional(),
    albumMbid: mbid.optional(),
    title: z.string().optional(),
    albumName: z.string().optional(),
    foreignArtistId: mbid.optional(),
    artistMbid: mbid.optional(),
    artistName: z.string().optional(),
    searchForNewAlbum: z.boolean().optional(),
    triggerSearch: z.boolean().optional(),
    managedBy,
  })
  .refine((b) => b.foreignAlbumId ?? b.albumMbid, { message: 'foreignAlbumId (release-group MBID) is required', path: ['foreignAlbumId'] });

const albumRequestResponse = z.object({
  success: z.boolean(),
  createdArtist: z.boolean(),
  createdAlbum: z.boolean(),
  queued: z.boolean(),
  artist: z.union([artistSchema, aurralArtistSchema]),
  album: z.union([albumSchema, aurralAlbumSchema]),
  status: z.string(),
  managedBy: z.enum(['aurral', 'lidarr']),
  /** Self-managed albums only: decisions §5's album status with counts and recovery. */
  albumStatus: aurralAlbumStatusSchema.optional(),
  requestId: z.string(),
});

const keyParams = z.object({ id: mbid });
const mbidParams = z.object({ mbid });
const deleteQuery = z.object({ deleteFiles: flag.optional(), deleteFolder: flag.optional() });
const albumIdsQuery = z.object({ albumIds: z.union([z.string(), z.array(z.string())]) });

/** Lidarr album ids and self-managed `aurral:<id>` ids of a statuses query. */
function albumIdList(raw: string | string[]): { lidarr: number[]; aurral: number[] } {
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const out = { lidarr: [] as number[], aurral: [] as number[] };
  for (const part of parts) {
    const own = aurralAlbumId(part);
    const n = own ?? Number(part);
    if (!Number.isInteger(n) || n <= 0) {
      throw new ValidationError('albumIds: a comma-separated list of Lidarr album ids and aurral:<id> album ids is required');
    }
    (own !== null ? out.aurral : out.lidarr).push(n);
  }
  if (parts.length === 0) throw new ValidationError('albumIds: a comma-separated list of Lidarr album ids and aurral:<id> album ids is required');
  return out;
}

export function lidarrLibraryRoutes(ctx: AppContext): RouteDefinition[] {
  const lidarr = () => ctx.lidarr;
  const tag = 'library';

  return [
    defineRoute({
      method: 'post',
      path: '/api/library/artists',
      summary:
        'Add an artist to Lidarr (root folder, profiles, monitor mode, search on add); 200 when already there. ' +
        'Self-managed (aurral): records the artist and requests its studio albums by monitor mode (all, missing, latest, first; default none)',
      tag,
      access: { permission: 'addArtist' },
      body: artistAddBody,
      status: 201,
      response: z.union([artistSchema.extend({ created: z.boolean() }), aurralArtistSchema.extend({ created: z.boolean() })]),
      handler: async ({ body, principal, res }) => {
        const { created, artist } = await lidarr().library.addArtist(principal, {
          mbid: (body.foreignArtistId ?? body.mbid)!,
          artistName: body.artistName,
          rootFolderPath: body.rootFolderPath,
          qualityProfileId: body.qualityProfileId,
          metadataProfileId: body.metadataProfileId,
          monitor: body.monitor ?? body.monitorOption,
          monitored: body.monitored,
          searchForMissingAlbums: body.searchForMissingAlbums,
          managedBy: body.managedBy,
        });
        res.status(created ? 201 : 200);
        res.json({ ...artist, created });
        return undefined;
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/library/artists/:mbid',
      summary: "Update an artist's monitoring in Lidarr (monitored flag and/or monitor mode)",
      tag,
      access: { permission: 'changeMonitoring' },
      params: mbidParams,
      body: z.object({
        monitored: z.boolean().optional(),
        monitor: z.enum(monitorModes).optional(),
        monitorOption: z.enum(monitorModes).optional(),
      }),
      response: artistSchema.extend({
        monitoring: z.object({ mode: z.string().nullable(), monitoredAlbumIds: z.array(z.number()).nullable() }),
      }),
      handler: ({ params, body }) =>
        lidarr().library.updateArtist(params.mbid, { monitored: body.monitored, monitor: body.monitor ?? body.monitorOption }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/library/artists/:mbid',
      summary: 'Delete an artist from Lidarr (deleteFiles=true also deletes its files)',
      tag,
      access: { permission: 'deleteArtist' },
      params: mbidParams,
      query: deleteQuery,
      response: z.object({ success: z.boolean(), deletedFiles: z.boolean(), artistId: z.number(), mbid: z.string(), jobId: z.string() }),
      handler: ({ params, query }) => lidarr().library.deleteArtist(params.mbid, query.deleteFiles ?? query.deleteFolder ?? false),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/artists/:mbid/refresh',
      summary: "Refresh an artist in Lidarr; the library re-indexes it when Lidarr's command ends",
      tag,
      access: 'authenticated',
      params: mbidParams,
      status: 202,
      response: z.object({ success: z.boolean(), commandId: z.number(), status: z.string() }),
      handler: ({ params }) => lidarr().library.refreshArtist(params.mbid),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/albums',
      summary: 'Add an album: to Lidarr (its artist first when needed, monitored, searched when asked), or self-managed (aurral: a download job per track)',
      tag,
      access: { permission: 'addAlbum' },
      body: albumAddBody,
      status: 201,
      response: albumRequestResponse,
      handler: ({ body, principal }) =>
        lidarr().library.requestAlbum(principal, {
          albumMbid: (body.foreignAlbumId ?? body.albumMbid)!,
          albumName: body.title ?? body.albumName,
          artistMbid: body.foreignArtistId ?? body.artistMbid,
          artistName: body.artistName,
          triggerSearch: body.searchForNewAlbum ?? body.triggerSearch,
          managedBy: body.managedBy,
        }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/albums/request',
      summary: 'Request an album from search data; creates the artist in Lidarr first when needed',
      tag,
      access: { permission: 'addAlbum' },
      body: albumRequestBody,
      status: 201,
      response: albumRequestResponse,
      handler: ({ body, principal }) => lidarr().library.requestAlbum(principal, body),
    }),
    defineRoute({
      method: 'put',
      path: '/api/library/albums/:id',
      summary: 'Update an album in Lidarr (Lidarr album id or release-group MBID): monitored, anyReleaseOk',
      tag,
      access: { permission: 'changeMonitoring' },
      params: keyParams,
      body: z.object({ monitored: z.boolean().optional(), anyReleaseOk: z.boolean().optional() }),
      response: albumSchema,
      handler: ({ params, body }) => lidarr().library.updateAlbum(params.id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/library/albums/:id',
      summary: 'Delete an album from Lidarr (Lidarr album id or MBID; deleteFiles=true deletes its files)',
      tag,
      access: { permission: 'deleteAlbum' },
      params: keyParams,
      query: deleteQuery,
      response: z.object({ success: z.boolean(), deletedFiles: z.boolean(), albumId: z.number(), mbid: z.string(), jobId: z.string().nullable() }),
      handler: ({ params, query }) => lidarr().library.deleteAlbum(params.id, query.deleteFiles ?? false),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/rootfolder',
      summary: "Lidarr's root folders",
      tag,
      access: 'authenticated',
      response: z.array(z.object({
        id: z.number(), path: z.string(), name: z.string().nullable(), accessible: z.boolean().nullable(),
        freeSpace: z.number().nullable(), totalSpace: z.number().nullable(),
      })),
      handler: () => lidarr().library.rootFolders(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/downloads',
      summary: "Download jobs: Lidarr's queue",
      tag,
      access: 'authenticated',
      response: z.array(jobSchema),
      handler: () => lidarr().statuses.jobs(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/downloads/status',
      summary: 'Download statuses (required albumIds, comma-separated): Lidarr album ids, and aurral:<id> for self-managed albums, keyed as asked',
      tag,
      access: 'authenticated',
      query: albumIdsQuery,
      response: z.record(z.string(), z.union([statusSchema, aurralAlbumStatusSchema])),
      handler: async ({ query }) => {
        const ids = albumIdList(query.albumIds);
        const own = ctx.albumDownloads.statuses(ids.aurral);
        const fromLidarr = ids.lidarr.length > 0 ? await lidarr().statuses.forAlbums(ids.lidarr) : {};
        return { ...fromLidarr, ...own };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/downloads/status/all',
      summary: "Download statuses of every album in Lidarr's queue or with a pending request (when Lidarr is set up), and of every self-managed album (aurral:<id>)",
      tag,
      access: 'authenticated',
      response: z.record(z.string(), z.union([statusSchema, aurralAlbumStatusSchema])),
      handler: async () => {
        const own = ctx.albumDownloads.allStatuses();
        const fromLidarr = lidarr().connection.configured ? await lidarr().statuses.all() : {};
        return { ...fromLidarr, ...own };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/downloads/album',
      summary: 'Monitor an album in Lidarr and optionally search for it (search defaults to the search-on-add setting)',
      tag,
      access: { permission: 'addAlbum' },
      body: z
        .object({ albumId: z.union([z.number().int().positive(), mbid]).optional(), albumMbid: mbid.optional(), search: z.boolean().optional() })
        .refine((b) => b.albumId !== undefined || b.albumMbid, { message: 'albumId or albumMbid is required', path: ['albumId'] }),
      response: z.object({ success: z.boolean(), albumId: z.number(), monitored: z.boolean(), searched: z.boolean(), commandId: z.number().nullable() }),
      handler: ({ body }) => lidarr().library.downloadAlbum(String(body.albumId ?? body.albumMbid), body.search),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/downloads/album/search',
      summary: 'Run a Lidarr album search (albumId or albumIds)',
      tag,
      access: { permission: 'addAlbum' },
      body: z.object({
        albumId: z.union([z.number().int().positive(), mbid]).optional(),
        albumIds: z.array(z.union([z.number().int().positive(), mbid])).max(500).optional(),
      }),
      response: z.object({ success: z.boolean(), albumIds: z.array(z.number()), commandId: z.number(), status: z.string() }),
      handler: ({ body }) =>
        lidarr().library.searchAlbums([...(body.albumIds ?? []), ...(body.albumId !== undefined ? [body.albumId] : [])].map(String)),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/downloads/track',
      summary:
        'Request one track: 200 alreadyOwned, 202 alreadyQueued (jobId), else 202: self-managed (aurral) a download job of its own ' +
        '(409 NOT_CONFIGURED without a download source), through Lidarr its album requested',
      tag,
      access: { userPermission: 'addAlbum' },
      body: z.object({
        artistName: z.string().trim().min(1),
        trackName: z.string().trim().min(1),
        trackMbid: mbid.optional(),
        albumMbid: mbid.optional(),
        albumId: z.number().int().positive().optional(),
        albumName: z.string().optional(),
        artistMbid: mbid.optional(),
        managedBy,
      }),
      status: 202,
      response: z.looseObject({ success: z.boolean(), queued: z.boolean() }),
      handler: async ({ body, principal, res }) => {
        const result = await lidarr().requests.requestTrack(principal!, body);
        res.status(result.httpStatus).json(result.body);
        return undefined;
      },
    }),
  ];
}
