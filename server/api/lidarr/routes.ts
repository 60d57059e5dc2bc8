import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotConfiguredError } from '../../domain/errors.js';
import { LIDARR_NOT_CONFIGURED, lidarrClient } from '../../domain/lidarr/connection.js';
import { applyCommunityGuide, testLibraryAccess, testLidarr } from '../../domain/lidarr/settings.js';
import { testNavidrome } from '../../domain/navidrome/connection.js';
import { headerToken } from '../../domain/settings/fields.js';
import { testConnection } from '../../domain/settings/testConnection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13 (Lidarr and Navidrome settings checks) and §4.15 (their onboarding variants). */

const NAVIDROME_NOT_CONFIGURED = 'Navidrome is not configured: set its URL, username and password';

const connectionBody = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  apiKey: headerToken.min(1),
});
const navidromeBody = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  username: z.string().min(1),
  password: z.string().max(1024),
});

const profileSchema = z.looseObject({ id: z.number(), name: z.string() });
/** Before onboarding anyone on the LAN may call these, with any URL: answer only what the wizard shows. */
const onboardingProfileSchema = z.object({ id: z.number(), name: z.string() });
const idAndName = (profiles: Array<{ id: number; name: string }>) => profiles.map(({ id, name }) => ({ id, name }));
const testResult = z.object({ success: z.literal(true), version: z.string(), instanceName: z.string(), message: z.string() });
const navidromeResult = z.object({
  success: z.literal(true),
  version: z.string(),
  type: z.string().nullable(),
  serverVersion: z.string().nullable(),
  message: z.string(),
});
const rootFolderSchema = z.looseObject({ id: z.number(), path: z.string() });
const tagSchema = z.object({ id: z.number(), label: z.string() });
const libraryAccessSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  rootFolders: z.array(
    z.object({ path: z.string(), localPath: z.string(), accessible: z.boolean(), reason: z.string().nullable() }),
  ),
  pathMappings: z.array(z.object({ from: z.string(), to: z.string() })),
});
const guideSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  applied: z.array(
    z.object({ item: z.string(), action: z.string(), id: z.number().optional(), name: z.string().optional(), message: z.string() }),
  ),
  qualityProfileId: z.number().nullable(),
  metadataProfileId: z.number().nullable(),
});

export function lidarrSettingsRoutes(ctx: AppContext): RouteDefinition[] {
  const lidarr = () => ctx.lidarr;
  const configured = () => lidarr().connection.require();
  const onboardingClient = (body: z.infer<typeof connectionBody>) => lidarrClient(body.url, body.apiKey, ctx.clock, 10_000, true);
  const admin = { tag: 'settings', access: 'admin' as const };
  const onboarding = { tag: 'onboarding', access: 'onboarding' as const };

  return [
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/lidarr/profiles',
      summary: "Lidarr's quality profiles",
      response: z.array(profileSchema),
      handler: () => configured().qualityProfiles(),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/lidarr/metadata-profiles',
      summary: "Lidarr's metadata profiles",
      response: z.array(profileSchema),
      handler: () => configured().metadataProfiles(),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/lidarr/root-folders',
      summary: "Lidarr's root folders",
      response: z.array(rootFolderSchema),
      handler: () => configured().rootFolders(),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/lidarr/tags',
      summary: "Lidarr's tags",
      response: z.array(tagSchema),
      handler: async () => (await configured().tags()).map((t) => ({ id: t.id, label: t.label })),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/lidarr/test-library-access',
      summary: "Whether this computer can read Lidarr's root folders through the path mappings",
      response: libraryAccessSchema,
      handler: () => testLibraryAccess(configured(), lidarr().connection.settings.pathMappings),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/lidarr/test',
      summary: 'Test the saved Lidarr URL and API key (the client background work uses)',
      response: testResult,
      handler: () => testLidarr(configured()),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/lidarr/test',
      summary:
        'Test a Lidarr URL and API key; absent or masked values are the saved ones, and the saved key is only sent to the saved address',
      body: connectionBody.partial().optional(),
      response: testResult,
      handler: ({ body }) => {
        const c = testConnection({ setting: 'integrations.lidarr', field: 'apiKey', saved: lidarr().connection.settings, body, notConfigured: LIDARR_NOT_CONFIGURED });
        return testLidarr(c.isSaved ? configured() : lidarrClient(c.url, c.secret, ctx.clock, 10_000));
      },
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/lidarr/apply-community-guide',
      summary: 'Create the recommended quality and metadata profiles in Lidarr and use them for new artists',
      response: guideSchema,
      handler: () => applyCommunityGuide(configured(), ctx.settings),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/navidrome/test',
      summary:
        'Subsonic ping with token auth; tests the body values, or the saved ones when absent (the saved password only goes to the saved address)',
      body: navidromeBody.partial().optional(),
      response: navidromeResult,
      handler: ({ body }) => {
        const saved = ctx.settings.get().integrations.navidrome;
        const c = testConnection({ setting: 'integrations.navidrome', field: 'password', saved, body, notConfigured: NAVIDROME_NOT_CONFIGURED, secretRequired: false });
        const username = body?.username ?? saved.username;
        if (!username) throw new NotConfiguredError('integrations.navidrome', NAVIDROME_NOT_CONFIGURED);
        return testNavidrome(c.url, username, c.secret);
      },
    }),
    defineRoute({
      ...onboarding,
      method: 'post',
      path: '/api/onboarding/lidarr/profiles',
      summary: "Lidarr's quality profiles for a URL and API key (before onboarding completes)",
      body: connectionBody,
      response: z.array(onboardingProfileSchema),
      handler: async ({ body }) => idAndName(await onboardingClient(body).qualityProfiles()),
    }),
    defineRoute({
      ...onboarding,
      method: 'post',
      path: '/api/onboarding/lidarr/metadata-profiles',
      summary: "Lidarr's metadata profiles for a URL and API key (before onboarding completes)",
      body: connectionBody,
      response: z.array(onboardingProfileSchema),
      handler: async ({ body }) => idAndName(await onboardingClient(body).metadataProfiles()),
    }),
    defineRoute({
      ...onboarding,
      method: 'post',
      path: '/api/onboarding/lidarr/test',
      summary: 'Test a Lidarr URL and API key (before onboarding completes)',
      body: connectionBody,
      response: testResult,
      handler: ({ body }) => testLidarr(onboardingClient(body)),
    }),
    defineRoute({
      ...onboarding,
      method: 'post',
      path: '/api/onboarding/navidrome/test',
      summary: 'Test Navidrome credentials with a Subsonic ping (before onboarding completes)',
      body: navidromeBody,
      response: navidromeResult,
      handler: ({ body }) => testNavidrome(body.url, body.username, body.password),
    }),
  ];
}
