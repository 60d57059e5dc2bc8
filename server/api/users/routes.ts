import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { permissionsPatchSchema, permissionsSchema, roleSchema } from '../../domain/auth/permissions.js';
import { ForbiddenError, ValidationError } from '../../domain/errors.js';
import { lidarrPreferencesSchema, listeningHistoryProviders } from '../../domain/users/service.js';
import { defineRoute } from '../../http/route.js';
import { idParams, successSchema } from '../schemas.js';

const userOut = z.object({
  id: z.number().int(),
  username: z.string(),
  role: roleSchema,
  permissions: permissionsSchema,
  status: z.enum(['active', 'disabled']),
  createdAt: z.number(),
  listeningHistory: z.object({ provider: z.enum(listeningHistoryProviders), username: z.string().nullable(), url: z.string().nullable() }),
});

const listeningHistorySchema = z
  .object({
    provider: z.enum(listeningHistoryProviders).nullable(),
    username: z.string().trim().max(128).nullable(),
    /** Koito's base URL (self-hosted); fetched later through the private-address guard. */
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048).nullable().optional(),
  })
  .strict();

const lidarrPrefsOut = z.object({
  managedBy: z.enum(['aurral', 'lidarr']).nullable(),
  rootFolderPath: z.string().nullable(),
  qualityProfileId: z.number().nullable(),
  metadataProfileId: z.number().nullable(),
});

export function usersRoutes(ctx: AppContext) {
  /** LAN auto-login is only for a single-administrator install; it turns itself off otherwise. */
  const recheckLanBypass = () => {
    const s = ctx.settings.get();
    if (s.security.localNetworkBypass.enabled && ctx.auth.ineligibility() !== null) {
      ctx.settings.update({ security: { localNetworkBypass: { enabled: false } } });
      ctx.hub.closeVia('lan');
    }
  };
  return [
    defineRoute({
      method: 'get',
      path: '/api/users',
      summary: 'List users',
      tag: 'users',
      access: 'admin',
      response: z.array(userOut),
      handler: () => ctx.users.list(),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users',
      summary: 'Create a user',
      tag: 'users',
      access: 'admin',
      status: 201,
      body: z
        .object({
          username: z.string().min(1).max(64),
          password: z.string().max(1024),
          role: roleSchema.default('user'),
          permissions: permissionsPatchSchema.optional(),
        })
        .strict(),
      response: userOut,
      handler: async ({ body }) => {
        const user = await ctx.users.create(body);
        recheckLanBypass();
        return user;
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/users/:id',
      summary: 'Update a user (administrators: everything; users: their own listening history)',
      tag: 'users',
      access: 'authenticated',
      params: idParams,
      body: z
        .object({
          username: z.string().min(1).max(64),
          role: roleSchema,
          permissions: permissionsPatchSchema,
          status: z.enum(['active', 'disabled']),
          password: z.string().max(1024),
          listeningHistory: listeningHistorySchema,
        })
        .partial()
        .strict(),
      response: userOut,
      handler: async ({ params, body, principal }) => {
        const self = principal!.userId === params.id;
        const onlyOwnHistory = self && Object.keys(body).every((k) => k === 'listeningHistory');
        if (principal!.role !== 'admin' && !onlyOwnHistory) throw new ForbiddenError('Admin access required');
        const user = await ctx.users.update(params.id, body);
        recheckLanBypass();
        return user;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/users/:id',
      summary: 'Delete a user',
      tag: 'users',
      access: 'admin',
      params: idParams,
      response: successSchema,
      handler: ({ params }) => {
        ctx.users.delete(params.id);
        recheckLanBypass();
        return { success: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/users/me/password',
      summary: 'Change your own password (needs the current one); other sessions end',
      tag: 'users',
      access: 'user',
      whilePasswordChangeRequired: true,
      body: z.object({ currentPassword: z.string().max(1024), newPassword: z.string().max(1024) }).strict(),
      response: successSchema,
      handler: async ({ body, principal, req }) => {
        // A wrong current password is a failed password check like a failed login.
        const changed = await ctx.failedLogins.attempt({ client: req.ip, account: principal!.username }, () =>
          ctx.users.changeOwnPassword(principal!.userId, body.currentPassword, body.newPassword, principal!.sessionId).then(
            () => true,
            (err: unknown) => {
              if (err instanceof ValidationError && err.code === 'INVALID_PASSWORD') return null;
              throw err;
            },
          ),
        );
        if (!changed) throw new ValidationError('Current password is incorrect', 'INVALID_PASSWORD');
        return { success: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/me/discover-layout',
      summary: 'Your discovery layout',
      tag: 'users',
      access: 'user',
      response: z.object({ layout: z.unknown() }),
      handler: ({ principal }) => ({ layout: ctx.users.discoverLayout(principal!.userId) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/users/me/discover-layout',
      summary: 'Replace your discovery layout',
      tag: 'users',
      access: 'user',
      body: z.object({
        layout: z
          .array(z.object({ id: z.string().min(1).max(64), visible: z.boolean().default(true) }).strict())
          .max(50),
      }),
      response: z.object({ layout: z.unknown() }),
      handler: ({ principal, body }) => ({ layout: ctx.users.setDiscoverLayout(principal!.userId, body.layout) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/me/lidarr-preferences',
      summary: 'Your Lidarr preferences (who manages what you add, and where)',
      tag: 'users',
      access: 'user',
      response: lidarrPrefsOut,
      handler: ({ principal }) => ctx.users.lidarrPreferences(principal!.userId),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/users/me/lidarr-preferences',
      summary: 'Update your Lidarr preferences',
      tag: 'users',
      access: 'user',
      body: lidarrPreferencesSchema,
      response: lidarrPrefsOut,
      handler: ({ principal, body }) => ctx.users.setLidarrPreferences(principal!.userId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/me/listening-history',
      summary: 'Your listening-history provider, username and Koito URL (provider `local` until another is chosen)',
      tag: 'users',
      access: 'user',
      response: z.object({
        listenHistoryProvider: z.enum(listeningHistoryProviders),
        listenHistoryUsername: z.string().nullable(),
        listenHistoryUrl: z.string().nullable(),
        lastfmUsername: z.string().nullable(),
      }),
      handler: ({ principal }) => {
        const h = ctx.users.get(principal!.userId).listeningHistory;
        return {
          listenHistoryProvider: h.provider as (typeof listeningHistoryProviders)[number],
          listenHistoryUsername: h.username,
          listenHistoryUrl: h.provider === 'koito' ? h.url : null,
          // The linked Last.fm account for scrobbling: none until account linking exists in this build.
          lastfmUsername: null,
        };
      },
    }),
  ];
}
