import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { handleLidarrWebhook, webhookBody } from '../../domain/lidarr/webhook.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/**
 * api.md §4.4: Lidarr's Connect → Webhook (POST, or PUT when so configured). The events start
 * re-indexes and complete requests, so only the instance API key (`?api_key=`, X-Api-Key) or an
 * administrator's credentials (Basic auth as Lidarr sends it) are accepted; other accounts get 403.
 */
export function webhookRoutes(ctx: AppContext): RouteDefinition[] {
  const route = (method: 'post' | 'put') =>
    defineRoute({
      method,
      path: '/api/webhooks/lidarr',
      summary: 'Lidarr events: Download/Rename/Retag/AlbumDelete re-index the artist, ArtistDelete reconciles all; others 204',
      tag: 'webhooks',
      access: 'admin',
      body: webhookBody,
      response: z.object({ handled: z.boolean(), scanJobId: z.string().optional(), requestsCompleted: z.number().optional() }),
      handler: ({ body, res }) => {
        const result = handleLidarrWebhook(ctx, body);
        if (!result) {
          res.status(204).end();
          return undefined;
        }
        return result;
      },
    });
  return [route('post'), route('put')];
}
