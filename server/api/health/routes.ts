import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { publicUser } from '../../domain/auth/principal.js';
import { healthReport } from '../../domain/health.js';
import { defineRoute } from '../../http/route.js';
import { userSchema } from '../schemas.js';

export const API_VERSION = 1;

export function healthRoutes(ctx: AppContext) {
  const oidc = ctx.oidc;
  const basics = () => ({
    status: 'ok',
    appVersion: ctx.appVersion,
    authRequired: ctx.auth.isOnboarded(),
    onboardingRequired: !ctx.auth.isOnboarded(),
  });
  return [
    defineRoute({
      method: 'get',
      path: '/api/health/live',
      summary: 'Minimal liveness (no database work)',
      tag: 'health',
      access: 'public',
      openBeforeOnboarding: true,
      response: z.object({ status: z.literal('ok') }),
      handler: () => ({ status: 'ok' as const }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/health/bootstrap',
      summary: 'Start-up and authentication state',
      tag: 'health',
      access: 'public',
      openBeforeOnboarding: true,
      response: z.object({
        status: z.string(),
        appVersion: z.string(),
        authRequired: z.boolean(),
        onboardingRequired: z.boolean(),
        proxyAuthEnabled: z.boolean(),
        oidcEnabled: z.boolean(),
        oidcLogoutUrl: z.string().nullable(),
        /** What the login screen's OpenID button says ("Sign in with <oidcLabel>"). */
        oidcLabel: z.string().nullable(),
        /** The inbox is switched on (settings `inbox.enabled`), so the web UI shows it. */
        inboxEnabled: z.boolean(),
        api: z.object({ version: z.number().int().positive(), features: z.array(z.string()) }),
        user: userSchema.optional(),
        /** The caller signed in with a one-time password and must choose a new one first. */
        mustChangePassword: z.boolean().optional(),
      }),
      handler: ({ principal }) => ({
        ...basics(),
        proxyAuthEnabled: ctx.config.authProxy !== null,
        oidcEnabled: oidc.enabled(),
        oidcLogoutUrl: oidc.enabled() ? oidc.settings().logoutUrl : null,
        oidcLabel: oidc.enabled() ? oidc.settings().label || null : null,
        inboxEnabled: ctx.settings.get().inbox.enabled,
        api: { version: API_VERSION, features: [...ctx.features].sort() },
        ...(principal && { user: publicUser(principal) }),
        ...(principal?.mustChangePassword && { mustChangePassword: true }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/health',
      summary: 'Detailed health; details only with a valid credential',
      tag: 'health',
      access: 'public',
      openBeforeOnboarding: true,
      response: z
        .object({
          status: z.string(),
          timestamp: z.string(),
          appVersion: z.string(),
          authRequired: z.boolean(),
          onboardingRequired: z.boolean(),
          oidcEnabled: z.boolean(),
        })
        .loose(),
      handler: async ({ req, principal }) => {
        const base = { ...basics(), timestamp: new Date(ctx.clock.now()).toISOString(), oidcEnabled: oidc.enabled() };
        if (!principal) return base;
        return { ...base, ...(await healthReport(ctx, principal, req.socket.remoteAddress ?? '')) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/health/ws',
      summary: 'WebSocket connection statistics',
      tag: 'health',
      access: 'authenticated',
      response: z.object({ totalClients: z.number(), channels: z.record(z.string(), z.number()), uptime: z.number() }),
      handler: () => ctx.hub.stats(),
    }),
    defineRoute({
      method: 'post',
      path: '/api/health/stream-token',
      summary: 'Issue a 120-second token for media URLs (?st=)',
      tag: 'health',
      access: 'authenticated',
      response: z.object({ token: z.string(), expiresIn: z.literal(120) }),
      handler: ({ principal }) => ctx.auth.issueStreamToken(principal!) as { token: string; expiresIn: 120 },
    }),
  ];
}
