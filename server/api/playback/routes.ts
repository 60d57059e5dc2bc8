import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { jellyfinPeople, setJellyfinUser } from '../../domain/playback/jellyfin.js';
import { headerToken } from '../../domain/settings/fields.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { Same } from '../../http/same.js';
import type { DestinationStatus } from '../../domain/playback/types.js';

/** api.md §4.13: the playback destinations' status and their connection test. */

const destinationSchema = z.object({
  key: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  configured: z.boolean(),
  publishFlows: z.boolean(),
  publishPlaylists: z.boolean(),
  published: z.number().int(),
  pending: z.number().int(),
  lastPublishedAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
});
true satisfies Same<z.infer<typeof destinationSchema>, DestinationStatus>;

const testBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    username: z.string().min(1).max(256),
    password: z.string().max(1024),
    /** Jellyfin's API key. */
    apiKey: headerToken,
  })
  .partial()
  .strict();

const jellyfinUser = z.object({ id: z.string(), name: z.string(), isAdministrator: z.boolean() });
const jellyfinPerson = z.object({
  userId: z.number().int(),
  username: z.string(),
  jellyfinUserId: z.string().nullable(),
  jellyfinUserName: z.string().nullable(),
});

const testResult = z.object({
  success: z.literal(true),
  key: z.string(),
  version: z.string(),
  type: z.string().nullable(),
  serverVersion: z.string().nullable(),
  authentication: z.enum(['token', 'password']),
  playlists: z.number().int(),
  canScan: z.boolean(),
  message: z.string(),
});

export function playbackRoutes(ctx: AppContext): RouteDefinition[] {
  const admin = { tag: 'settings', access: 'admin' as const };
  return [
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/playback',
      summary: 'Playback destinations: enabled, configured, what is published, pending changes, last publish and last error',
      response: z.object({ destinations: z.array(destinationSchema) }),
      handler: () => ({ destinations: ctx.playback.status() }),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/playback/:key/test',
      summary:
        'Test a playback destination (ping, playlists, scan permission) with the body values or the saved ones; the saved password or API key only goes to the saved address. `plex` checks the server and music library chosen in Settings → Library → Plex; `jellyfin` takes `url` and `apiKey`',
      params: z.object({ key: z.string().min(1).max(64) }),
      body: testBody.optional(),
      response: testResult,
      handler: ({ params, body }) => {
        // Plex uses the connection of Settings → Library → Plex (its token never leaves the server); a Subsonic
        // server the body's values or the saved ones (the saved password only to the saved address).
        return ctx.playback.test(params.key, body ?? {});
      },
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/playback/jellyfin/users',
      summary:
        "Jellyfin's users (asked with the saved address and API key), the one playlists go to by default (playback.jellyfin.userId, else Jellyfin's first administrator) and each Tonearm user's own Jellyfin user",
      response: z.object({ users: z.array(jellyfinUser), defaultUserId: z.string().nullable(), people: z.array(jellyfinPerson) }),
      handler: () => jellyfinPeople(ctx),
    }),
    defineRoute({
      ...admin,
      method: 'put',
      path: '/api/settings/playback/jellyfin/users/:userId',
      summary:
        "Chooses the Jellyfin user a Tonearm user's playlists become (their own: named without the owner prefix), or null for the default one; what was published moves there",
      params: z.object({ userId: z.coerce.number().int().positive() }),
      body: z.object({ jellyfinUserId: z.string().trim().min(1).max(64).regex(/^[0-9a-fA-F-]+$/, { error: 'must be a Jellyfin user id' }).nullable() }).strict(),
      response: jellyfinPerson,
      handler: async ({ params, body }) => {
        const person = await setJellyfinUser(ctx, params.userId, body.jellyfinUserId);
        ctx.playback.reconcile('jellyfin');
        return person;
      },
    }),
  ];
}
