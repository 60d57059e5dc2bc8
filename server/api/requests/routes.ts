import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.7: requests and activity. */

const activitySchema = z.looseObject({
  id: z.string(),
  status: z.enum(['processing', 'available', 'failed']),
  title: z.string(),
  kind: z.enum(['album_requested', 'artist_added', 'track_download', 'track_reused', 'playlist_import']).nullable(),
  artistName: z.string().nullable(),
  trackName: z.string().nullable(),
});
const removed = z.object({ success: z.boolean(), removed: z.number() });

export function requestsRoutes(ctx: AppContext): RouteDefinition[] {
  const service = () => ctx.lidarr.requests;
  return [
    defineRoute({
      method: 'get',
      path: '/api/requests',
      summary: 'Artist, album and track requests with their status (refresh=1 bypasses the 10 s cache)',
      tag: 'requests',
      access: 'authenticated',
      query: z.object({ refresh: z.enum(['1', 'true', '0', 'false']).optional() }),
      response: z.array(activitySchema),
      handler: ({ query }) => service().list(query.refresh === '1' || query.refresh === 'true'),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/requests/album/:albumId',
      summary: 'Remove an album request (Lidarr album id or release-group MBID); Lidarr is not changed',
      tag: 'requests',
      access: 'authenticated',
      params: z.object({ albumId: z.string().min(1) }),
      response: removed,
      handler: ({ params }) => service().deleteAlbumRequest(params.albumId),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/requests/:mbid',
      summary: 'Remove an artist request; Lidarr is not changed',
      tag: 'requests',
      access: 'authenticated',
      params: z.object({ mbid: z.string().min(1) }),
      response: removed,
      handler: ({ params }) => service().deleteArtistRequest(params.mbid),
    }),
  ];
}
