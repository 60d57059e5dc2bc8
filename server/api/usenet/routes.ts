import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotConfiguredError } from '../../domain/errors.js';
import { headerToken } from '../../domain/settings/schema.js';
import { secretForTest } from '../../domain/settings/secretOrigin.js';
import {
  listIndexers,
  NZBGET_NOT_CONFIGURED,
  nzbgetClient,
  PROWLARR_NOT_CONFIGURED,
  prowlarrClient,
  SABNZBD_NOT_CONFIGURED,
  sabnzbdClient,
  testNzbget,
  testProwlarr,
  testSabnzbd,
} from '../../domain/usenet/connection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13: the Usenet source's connection tests and Prowlarr's indexer list (admin). */

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const apiKeyBody = z.object({ url, apiKey: headerToken }).partial().strict().optional();
const nzbgetBody = z.object({ url, username: z.string().max(256), password: z.string().max(1024) }).partial().strict().optional();

const testResult = z.object({ success: z.literal(true), version: z.string(), message: z.string() });
const prowlarrResult = testResult.extend({ usenetIndexers: z.number() });
const clientResult = testResult.extend({
  completedFolder: z.object({ reported: z.string(), local: z.string(), readable: z.boolean(), reason: z.string().nullable() }),
  /** The folder this test confirmed (saved as integrations.<client>.confirmedCompletedPath); null when completedPath is set or the folder is not readable. */
  confirmedFolder: z.string().nullable(),
});
const indexerSchema = z.object({
  id: z.number(),
  name: z.string(),
  protocol: z.string(),
  enabled: z.boolean(),
  priority: z.number().nullable(),
  supportsSearch: z.boolean().nullable(),
  audioCategories: z.boolean(),
});

export const usenetTestBodies = { prowlarr: apiKeyBody, sabnzbd: apiKeyBody, nzbget: nzbgetBody } as const;
export const usenetTestResults = { prowlarr: prowlarrResult, sabnzbd: clientResult, nzbget: clientResult } as const;
export type UsenetTestName = keyof typeof usenetTestBodies;

/** The URL and API key a test uses: the body's, or the saved ones (the saved key only to the saved origin). */
function keyed(ctx: AppContext, name: 'prowlarr' | 'sabnzbd', body: z.infer<typeof apiKeyBody>, notConfigured: string) {
  const saved = ctx.settings.get().integrations[name];
  const target = body?.url ?? saved.url;
  const apiKey = secretForTest({ setting: `integrations.${name}`, field: 'apiKey', saved: { url: saved.url, secret: saved.apiKey }, url: target, secret: body?.apiKey });
  if (!target || !apiKey) throw new NotConfiguredError(`integrations.${name}`, notConfigured);
  return { url: target, apiKey };
}

/** The connection tests of Prowlarr, SABnzbd and NZBGet (also behind POST /api/settings/download-clients/:key/test). */
export function runUsenetTest(
  ctx: AppContext,
  name: UsenetTestName,
  body: { url?: string; apiKey?: string; username?: string; password?: string } | undefined,
): Promise<unknown> {
  const integrations = ctx.settings.get().integrations;
  if (name === 'prowlarr') {
    const c = keyed(ctx, 'prowlarr', body, PROWLARR_NOT_CONFIGURED);
    return testProwlarr(prowlarrClient(c.url, c.apiKey));
  }
  if (name === 'sabnzbd') {
    const c = keyed(ctx, 'sabnzbd', body, SABNZBD_NOT_CONFIGURED);
    return testSabnzbd(sabnzbdClient(c.url, c.apiKey), ctx.settings);
  }
  const saved = integrations.nzbget;
  const target = body?.url ?? saved.url;
  const username = body?.username ?? saved.username;
  const password = secretForTest({
    setting: 'integrations.nzbget',
    field: 'password',
    saved: { url: saved.url, secret: saved.password },
    url: target,
    secret: body?.password,
  });
  if (!target) throw new NotConfiguredError('integrations.nzbget', NZBGET_NOT_CONFIGURED);
  return testNzbget(nzbgetClient(target, username, password), ctx.settings);
}

export function usenetSettingsRoutes(ctx: AppContext): RouteDefinition[] {
  const admin = { tag: 'settings', access: 'admin' as const };

  return [
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/prowlarr/test',
      summary: 'Test a Prowlarr URL and API key; absent or masked values are the saved ones (the saved key only goes to the saved address)',
      body: apiKeyBody,
      response: prowlarrResult,
      handler: ({ body }) => runUsenetTest(ctx, 'prowlarr', body),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/prowlarr/indexers',
      summary: "The saved Prowlarr's indexers",
      response: z.array(indexerSchema),
      handler: () => {
        const c = keyed(ctx, 'prowlarr', undefined, PROWLARR_NOT_CONFIGURED);
        return listIndexers(prowlarrClient(c.url, c.apiKey));
      },
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/sabnzbd/test',
      summary: 'Test a SABnzbd URL and API key (with completedPath empty, a readable completed folder it reports is saved as the confirmed one, the only folder downloads are then taken from); absent or masked values are the saved ones (the saved key only goes to the saved address)',
      body: apiKeyBody,
      response: clientResult,
      handler: ({ body }) => runUsenetTest(ctx, 'sabnzbd', body),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/nzbget/test',
      summary: 'Test an NZBGet URL, username and password (with completedPath empty, a readable completed folder it reports is saved as the confirmed one, the only folder downloads are then taken from); absent or masked values are the saved ones (the saved password only goes to the saved address)',
      body: nzbgetBody,
      response: clientResult,
      handler: ({ body }) => runUsenetTest(ctx, 'nzbget', body),
    }),
  ];
}
