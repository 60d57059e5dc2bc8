import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { CALLBACK_PATH, COMPLETE_PATH, LINK_COOKIE, LOGIN_TTL_MS, OidcLoginError } from '../../domain/auth/oidc.js';
import type { UserIdentityRow } from '../../db/userIdentities.js';
import { defineRoute } from '../../http/route.js';
import { sessionSchema } from '../schemas.js';

/** The origin the browser used, for the redirect URI when TONEARM_PUBLIC_URL is not set. */
function originOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

/** Where a link from Settings → Account ends: back on that tab, with the outcome in the query. */
const ACCOUNT_PATH = '/settings/account';

const identitySchema = z.object({
  id: z.number().int(),
  issuer: z.string(),
  subject: z.string(),
  /** True when this identity's first sign-in created the account. */
  createdAccount: z.boolean(),
  createdAt: z.number().int(),
  lastLoginAt: z.number().int(),
});

const identityOf = (row: UserIdentityRow): z.infer<typeof identitySchema> => ({
  id: row.id,
  issuer: row.issuer,
  subject: row.subject,
  createdAccount: row.createdUser === 1,
  createdAt: row.createdAt,
  lastLoginAt: row.lastLoginAt,
});

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * OIDC sign-in (decisions §3): `GET /api/auth/oidc/login` → provider → `/sso/callback` →
 * `/sso/complete#code=…` → `POST /api/auth/oidc/exchange {code}` → session. Linking an identity to
 * the signed-in account: `POST /api/auth/oidc/link` → `{url}` → provider → `/sso/callback` →
 * `/settings/account?oidc=linked`. Bound identities: `GET /api/auth/oidc/identities` and
 * `DELETE /api/auth/oidc/identities/:id`.
 */
export function oidcRoutes(ctx: AppContext) {
  const service = ctx.oidc;
  return [
    defineRoute({
      method: 'get',
      path: '/api/auth/oidc/login',
      summary: "Start OpenID sign-in: redirects to the provider's sign-in page (PKCE, state and nonce); 429 past 30 sign-ins under way per client",
      tag: 'auth',
      access: 'public',
      response: 'empty',
      status: 302,
      handler: async ({ req, res }) => {
        const { url } = await service.start(originOf(req), req.ip);
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
    defineRoute({
      method: 'post',
      path: '/api/auth/oidc/link',
      summary:
        "Link an identity at the OpenID provider to the signed-in account: answers the provider's sign-in page to open in this browser; the callback binds the identity and returns to Settings → Account",
      tag: 'auth',
      access: 'user',
      response: z.object({ url: z.string() }),
      handler: async ({ req, res, principal }) => {
        const { url, binding } = await service.start(originOf(req), req.ip, { userId: principal!.userId });
        res.cookie(LINK_COOKIE, binding!, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: ctx.config.basePath + CALLBACK_PATH, maxAge: LOGIN_TTL_MS });
        res.setHeader('Cache-Control', 'no-store');
        return { url };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/oidc/identities',
      summary: "OpenID identities bound to the signed-in account, or (administrators) to the account `userId`; also whether OpenID sign-in is on and its label",
      tag: 'auth',
      access: 'authenticated',
      query: z.object({ userId: z.coerce.number().int().positive().optional() }),
      response: z.object({ enabled: z.boolean(), label: z.string(), identities: z.array(identitySchema) }),
      handler: ({ query, principal }) => ({
        enabled: service.enabled(),
        label: service.settings().label,
        identities: service.listIdentities(principal!, query.userId).map(identityOf),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/auth/oidc/identities/:id',
      summary:
        'Remove a binding: one of your own (not the identity that created your account), or any as an administrator; that identity then signs in to a new account',
      tag: 'auth',
      access: 'authenticated',
      params: z.object({ id: z.coerce.number().int().positive() }),
      response: 'empty',
      status: 204,
      handler: ({ params, principal }) => {
        service.removeIdentity(principal!, params.id);
        return undefined;
      },
    }),
  ];
}

/**
 * `/sso/callback`: where the provider sends the browser back. A sign-in ends on the web UI's
 * `/sso/complete` page, with the one-time code or the reason in the fragment (never in a query
 * string, so it stays out of server logs and Referer headers); a link ends on Settings → Account.
 */
export function ssoRouter(ctx: AppContext): express.Router {
  const service = ctx.oidc;
  const router = express.Router({ caseSensitive: true });
  router.get('/callback', async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    const linkCookie = cookieOf(req, LINK_COOKIE);
    if (linkCookie !== undefined) res.clearCookie(LINK_COOKIE, { path: ctx.config.basePath + CALLBACK_PATH });
    try {
      const result = await service.complete(new URL(req.originalUrl, originOf(req)), linkCookie);
      if (result.kind === 'link') res.redirect(302, `${ctx.config.basePath}${ACCOUNT_PATH}?oidc=linked`);
      else res.redirect(302, `${ctx.config.basePath}${COMPLETE_PATH}#code=${encodeURIComponent(result.code)}`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof OidcLoginError)) ctx.log.warn('OpenID sign-in failed', { error: message });
      if (err instanceof OidcLoginError && err.flow === 'link') res.redirect(302, `${ctx.config.basePath}${ACCOUNT_PATH}?oidc=error&message=${encodeURIComponent(message)}`);
      else res.redirect(302, `${ctx.config.basePath}${COMPLETE_PATH}#error=${encodeURIComponent(message)}`);
    }
  });
  return router;
}
