import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { completeUserPin, linkManagedPlexUser, plexHomeUsers, plexLinkStatus, startUserPin, unlinkManagedPlexUser, unlinkPlex } from '../../domain/plex/links.js';
import {
  checkServerPin,
  disconnectPlex,
  listPlexServers,
  plexLibraries,
  plexLibraryAccess,
  plexStatus,
  startServerPin,
  testPlexServer,
} from '../../domain/plex/setup.js';
import { syncPlex } from '../../domain/plex/sync.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import {
  accessCheckSchema,
  disconnectedSchema,
  homeUsersSchema,
  librariesSchema,
  linkStatusSchema,
  plexStatusSchema,
  serverPinCheckSchema,
  serversSchema,
  serverTestSchema,
  startedPinSchema,
  syncResultSchema,
  unlinkedSchema,
  userPinCheckSchema,
} from './schemas.js';

/**
 * Plex (api.md §4.13 `mediaserver/*` and §4.12 `mediaserver-link`, spelled `plex` on the wire by
 * decisions §1; the neutral spellings are served by the alias table). No answer carries a token.
 */

const pinStart = z.object({ forwardUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).optional() }).strict().optional();
const pinCheckBody = z.object({ pinId: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^\d{1,20}$/, 'must be the PIN id')), code: z.string().min(1).max(200).optional() }).strict();

const userId = z.object({ id: z.coerce.number().int().positive() });

export function plexRoutes(ctx: AppContext): RouteDefinition[] {
  return [
    // ---- Settings → Library → Plex (administrators) ----------------------------------------------------
    defineRoute({
      method: 'post',
      path: '/api/settings/plex/auth/pin',
      summary: "Start connecting the server's Plex account: a plex.tv PIN and the app.plex.tv page to approve it on",
      tag: 'settings',
      access: 'admin',
      body: pinStart,
      response: startedPinSchema,
      handler: ({ principal, body }) => startServerPin(ctx, principal!, body?.forwardUrl),
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/plex/auth/check',
      summary: 'Poll the PIN: pending, expired, or connected (the token is stored encrypted; only the Plex user name is answered)',
      tag: 'settings',
      access: 'admin',
      body: pinCheckBody,
      response: serverPinCheckSchema,
      handler: ({ principal, body }) => checkServerPin(ctx, principal!, body.pinId, body.code),
    }),
    defineRoute({
      method: 'get',
      path: '/api/settings/plex/status',
      summary: 'Whether a Plex account is connected (its user name), the chosen server and library, and the last sync',
      tag: 'settings',
      access: 'admin',
      response: plexStatusSchema,
      handler: () => plexStatus(ctx),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/settings/plex/auth',
      summary: "Disconnect the server's Plex account (its stored tokens are deleted)",
      tag: 'settings',
      access: 'admin',
      response: disconnectedSchema,
      handler: () => disconnectPlex(ctx),
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/plex/resources',
      summary: 'The Plex servers the connected account can reach, with their connections (never their tokens)',
      tag: 'settings',
      access: 'admin',
      // A `token` some clients send is ignored: only the stored account token is used.
      body: z.object({}).optional(),
      response: serversSchema,
      handler: () => listPlexServers(ctx),
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/plex/test',
      summary: "Test a Plex server address (the saved one when none is given): its identity, then the account's token on its libraries",
      tag: 'settings',
      access: 'admin',
      // A `token` some clients send is ignored: only stored tokens are used.
      body: z.object({ url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).optional() }).optional(),
      response: serverTestSchema,
      handler: ({ body }) => testPlexServer(ctx, body?.url),
    }),
    defineRoute({
      method: 'get',
      path: '/api/settings/plex/libraries',
      summary: "The chosen server's music libraries and their folders as Plex sees them",
      tag: 'settings',
      access: 'admin',
      response: librariesSchema,
      handler: () => plexLibraries(ctx),
    }),
    defineRoute({
      method: 'get',
      path: '/api/settings/plex/libraries/:sectionId/access-check',
      summary: "Whether this computer can read a Plex library's files (one track's file, through the path mappings)",
      tag: 'settings',
      access: 'admin',
      params: z.object({ sectionId: z.string().regex(/^\w{1,32}$/, 'must be a Plex library key') }),
      response: accessCheckSchema,
      handler: ({ params }) => plexLibraryAccess(ctx, params.sectionId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/plex/sync',
      summary: "Read the chosen Plex music library and match its tracks to this library's by file path (what publishing playlists to Plex uses)",
      tag: 'settings',
      access: 'admin',
      response: syncResultSchema,
      handler: () => syncPlex(ctx),
    }),

    // ---- Each user's Plex link ---------------------------------------------------------------
    defineRoute({
      method: 'get',
      path: '/api/users/me/plex-link/status',
      summary: 'Your Plex link: linked, how (your account or a managed Home user), and the Plex name',
      tag: 'users',
      access: 'user',
      response: linkStatusSchema,
      handler: ({ principal }) => plexLinkStatus(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users/me/plex-link/oauth/pin',
      summary: 'Start linking your Plex account: a PIN and the app.plex.tv page to approve it on',
      tag: 'users',
      access: 'user',
      body: pinStart,
      response: startedPinSchema,
      handler: ({ principal, body }) => startUserPin(ctx, principal!.userId, body?.forwardUrl),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users/me/plex-link/oauth/complete',
      summary: 'Poll your PIN: pending, expired, or linked (the token is stored encrypted, never answered)',
      tag: 'users',
      access: 'user',
      body: pinCheckBody,
      response: userPinCheckSchema,
      handler: ({ principal, body }) => completeUserPin(ctx, principal!.userId, body.pinId, body.code),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/users/me/plex-link',
      summary: 'Remove your Plex link',
      tag: 'users',
      access: 'user',
      response: unlinkedSchema,
      handler: ({ principal }) => unlinkPlex(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/plex-link/home-users',
      summary: "The Plex Home users of the server's Plex account, each with the user linked to it",
      tag: 'users',
      access: 'admin',
      response: homeUsersSchema,
      handler: () => plexHomeUsers(ctx),
    }),
    defineRoute({
      method: 'post',
      path: '/api/users/:id/plex-link/managed',
      summary: "Link a Plex Home user (e.g. a managed user) to this user, switching to it with the server's Plex account",
      tag: 'users',
      access: 'admin',
      params: userId,
      body: z.object({ homeUserId: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^\d{1,20}$/, 'must be a Plex Home user id')), pin: z.string().regex(/^\d{4}$/, 'must be the 4-digit PIN').optional() }).strict(),
      response: linkStatusSchema,
      handler: ({ principal, params, body }) => linkManagedPlexUser(ctx, principal!, params.id, body.homeUserId, body.pin),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/users/:id/plex-link',
      summary: "Remove a user's Plex link",
      tag: 'users',
      access: 'admin',
      params: userId,
      response: unlinkedSchema,
      handler: ({ params }) => unlinkManagedPlexUser(ctx, params.id),
    }),
  ];
}
