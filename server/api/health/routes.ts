import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { publicUser } from '../../domain/auth/principal.js';
import { healthReport } from '../../domain/health.js';
import { DOWNLOAD_SOURCE_IDS, type DownloadSourceId, type SourcesDeps } from '../../domain/downloads/sources/index.js';
import type { DownloadSourceDescriptor } from '../../domain/downloads/types.js';
import { defineRoute } from '../../http/route.js';
import type { Same } from '../../http/same.js';
import { userSchema } from '../schemas.js';

export const API_VERSION = 1;

/**
 * `downloadSources.<id>` of GET /api/health: a source of DOWNLOAD_SOURCES (domain/downloads/sources)
 * with its health entry; a source may add flags of its own (Usenet: which of its programs are set up).
 */
const downloadSourceHealth = z
  .object({ id: z.enum(DOWNLOAD_SOURCE_IDS), label: z.string(), configured: z.boolean(), enabled: z.boolean(), priority: z.number() })
  .catchall(z.unknown());
type DownloadSourceHealth = { id: DownloadSourceId; label: string } & ReturnType<DownloadSourceDescriptor<DownloadSourceId, SourcesDeps>['health']>['entry'];
/** Fails to compile when the sources' health entries and the schema drift apart. */
export const downloadSourceHealthMatches = true satisfies Same<z.infer<typeof downloadSourceHealth>, DownloadSourceHealth>;

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
          /** With a credential: every download source, keyed by its id, in the server's order. */
          downloadSources: z.record(z.string(), downloadSourceHealth).optional(),
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
