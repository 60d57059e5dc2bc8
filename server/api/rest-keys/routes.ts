import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { restKeysRepository } from '../../db/subsonicRestKeys.js';
import { RestKeyService } from '../../domain/subsonic/restKeys.js';
import { defineRoute } from '../../http/route.js';
import { idParams, successSchema } from '../schemas.js';

const restKeyOut = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The first characters of the key, to tell keys apart. */
  prefix: z.string(),
  createdAt: z.number(),
  lastUsedAt: z.number().nullable(),
});

/** The caller's API keys for Subsonic clients (`apiKey` on /rest, OpenSubsonic apiKeyAuthentication). */
export function restKeyRoutes(ctx: AppContext) {
  const keys = new RestKeyService(restKeysRepository(ctx.db), ctx.clock);
  return [
    defineRoute({
      method: 'get',
      path: '/api/users/me/rest-keys',
      summary: "List the caller's Subsonic API keys (the keys themselves are never shown again)",
      tag: 'users',
      access: 'user',
      response: z.array(restKeyOut),
      handler: ({ principal }) => keys.list(principal!.userId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users/me/rest-keys',
      summary: 'Create a Subsonic API key for a client app; the key is in this answer only',
      tag: 'users',
      access: 'user',
      status: 201,
      body: z.object({ name: z.string().trim().min(1).max(100) }).strict(),
      response: restKeyOut.extend({ key: z.string() }),
      handler: ({ principal, body }) => {
        const { key, restKey } = keys.create(principal!.userId, body.name);
        return { ...restKey, key };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/users/me/rest-keys/:id',
      summary: 'Revoke one of the caller\'s Subsonic API keys',
      tag: 'users',
      access: 'user',
      params: idParams,
      response: successSchema,
      handler: ({ principal, params }) => {
        keys.revoke(principal!.userId, params.id);
        return { success: true as const };
      },
    }),
  ];
}
