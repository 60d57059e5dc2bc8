import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { COMPLETE_PATH, OidcLoginError, oidcOf } from '../../domain/auth/oidc.js';
import { defineRoute } from '../../http/route.js';
import { sessionSchema } from '../schemas.js';

/** The origin the browser used, for the redirect URI when TONEARM_PUBLIC_URL is not set. */
function originOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

/**
 * OIDC sign-in (decisions §3): `GET /api/auth/oidc/login` → provider → `/sso/callback` →
 * `/sso/complete#code=…` → `POST /api/auth/oidc/exchange {code}` → session.
 */
export function oidcRoutes(ctx: AppContext) {
  const service = oidcOf(ctx);
  return [
    defineRoute({
      method: 'get',
      path: '/api/auth/oidc/login',
      summary: "Start OpenID sign-in: redirects to the provider's sign-in page (PKCE, state and nonce)",
      tag: 'auth',
      access: 'public',
      response: 'empty',
      status: 302,
      handler: async ({ req, res }) => {
        const url = await service.authorizationUrl(originOf(req));
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(302, url);
        return undefined;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/oidc/exchange',
      summary: 'Trade the one-time code of an OpenID sign-in (60 s, single use) for a session',
      tag: 'auth',
      access: 'public',
      body: z.object({ code: z.string().min(1).max(256) }),
      response: sessionSchema,
      handler: ({ body, req }) => service.exchange(body.code, { ip: req.ip, userAgent: req.get('user-agent') }),
    }),
  ];
}

/**
 * `/sso/callback`: where the provider sends the browser back. Success and failure both end on the
 * web UI's `/sso/complete` page, with the one-time code or the reason in the fragment (never in a
 * query string, so it stays out of server logs and Referer headers).
 */
export function ssoRouter(ctx: AppContext): express.Router {
  const service = oidcOf(ctx);
  const router = express.Router({ caseSensitive: true });
  router.get('/callback', async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const code = await service.complete(new URL(req.originalUrl, originOf(req)));
      res.redirect(302, `${COMPLETE_PATH}#code=${encodeURIComponent(code)}`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof OidcLoginError)) ctx.log.warn('OpenID sign-in failed', { error: message });
      res.redirect(302, `${COMPLETE_PATH}#error=${encodeURIComponent(message)}`);
    }
  });
  return router;
}
