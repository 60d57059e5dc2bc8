import type { Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { SCROBBLE_SERVICES } from '../../db/scrobbling.js';
import {
  completeLastfmLink,
  LINK_DONE_PATH,
  lastfmLink,
  linkKoito,
  linkListenBrainz,
  linkOf,
  scrobblingStatus,
  unlink,
} from '../../domain/scrobbling/service.js';
import { headerToken } from '../../domain/settings/fields.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** The origin the browser used, for Last.fm's callback when TONEARM_PUBLIC_URL is not set. */
function originOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

const serviceStatus = z.object({ configured: z.boolean(), linked: z.boolean(), username: z.string().nullable() });
const linkState = z.object({ linked: z.boolean(), username: z.string().nullable().optional(), url: z.string().nullable().optional() });
const unlinked = z.object({ success: z.literal(true), linked: z.literal(false) });
/** Tokens and keys go into an HTTP header: printable ASCII, checked here (400) rather than failing upstream. */
const secretText = headerToken.min(1).max(500);

/**
 * api.md §4.14 and decisions §11: each user's links to Last.fm (web authorization with a callback),
 * ListenBrainz (user token) and Koito (server address and API key). Every route but the callback
 * needs a user session (the API key gets 403 "User account required"); the callback is a browser
 * redirect from Last.fm and is tied to its user by the signed `state`.
 */
export function scrobblingRoutes(ctx: AppContext): RouteDefinition[] {
  const unlinkRoute = (service: (typeof SCROBBLE_SERVICES)[number], label: string) =>
    defineRoute({
      method: 'delete',
      path: `/api/scrobbling/${service}/link`,
      summary: `Unlink your ${label} account (plays still owed to it are dropped)`,
      tag: 'scrobbling',
      access: 'user',
      response: unlinked,
      handler: ({ principal }) => unlink(ctx, principal!.userId, service),
    });
  return [
    defineRoute({
      method: 'get',
      path: '/api/scrobbling/status',
      summary: 'Each scrobbling service: usable on this server, linked for you, your name there (never a token)',
      tag: 'scrobbling',
      access: 'user',
      response: z.object({ lastfm: serviceStatus, listenbrainz: serviceStatus, koito: serviceStatus }),
      handler: ({ principal }) => scrobblingStatus(ctx, principal!.userId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/scrobbling/lastfm/link',
      summary: "Start linking Last.fm: its authorization page with our callback ({url}), or the linked state",
      tag: 'scrobbling',
      access: 'user',
      response: linkState,
      handler: ({ principal, req, res }) => {
        res.setHeader('Cache-Control', 'no-store');
        return lastfmLink(ctx, principal!.userId, originOf(req));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/scrobbling/lastfm/link/callback',
      summary: 'Where Last.fm sends the browser back: completes the link (auth.getSession) and redirects to the account settings',
      tag: 'scrobbling',
      access: 'public',
      query: z.object({ token: z.string().max(200).default(''), state: z.string().max(1000).default('') }),
      response: 'empty',
      status: 302,
      handler: async ({ query, res }) => {
        res.setHeader('Cache-Control', 'no-store');
        try {
          await completeLastfmLink(ctx, query.state, query.token);
          res.redirect(302, `${ctx.config.basePath}${LINK_DONE_PATH}?lastfm=linked`);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          ctx.log.warn('Last.fm link not completed', { error: message });
          res.redirect(302, `${ctx.config.basePath}${LINK_DONE_PATH}?lastfm=error&message=${encodeURIComponent(message)}`);
        }
        return undefined;
      },
    }),
    unlinkRoute('lastfm', 'Last.fm'),
    defineRoute({
      method: 'get',
      path: '/api/scrobbling/listenbrainz/link',
      summary: 'Your ListenBrainz link',
      tag: 'scrobbling',
      access: 'user',
      response: linkState,
      handler: ({ principal }) => linkOf(ctx, principal!.userId, 'listenbrainz'),
    }),
    defineRoute({
      method: 'put',
      path: '/api/scrobbling/listenbrainz/link',
      summary: 'Link ListenBrainz with your user token (checked with validate-token before it is stored)',
      tag: 'scrobbling',
      access: 'user',
      body: z.object({ token: secretText }),
      response: linkState,
      handler: ({ principal, body }) => linkListenBrainz(ctx, principal!.userId, body.token),
    }),
    unlinkRoute('listenbrainz', 'ListenBrainz'),
    defineRoute({
      method: 'get',
      path: '/api/scrobbling/koito/link',
      summary: 'Your Koito link (server address and user name)',
      tag: 'scrobbling',
      access: 'user',
      response: linkState,
      handler: ({ principal }) => linkOf(ctx, principal!.userId, 'koito'),
    }),
    defineRoute({
      method: 'put',
      path: '/api/scrobbling/koito/link',
      summary: 'Link your Koito server: its address (private or loopback only for administrators or hosts they allowed) and an API key (checked before it is stored)',
      tag: 'scrobbling',
      access: 'user',
      body: z.object({ url: z.string().trim().min(1).max(2000), token: secretText }),
      response: linkState,
      handler: ({ principal, body }) => linkKoito(ctx, principal!, body.url, body.token),
    }),
    unlinkRoute('koito', 'Koito'),
  ];
}
