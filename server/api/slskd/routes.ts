import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotConfiguredError } from '../../domain/errors.js';
import { headerToken } from '../../domain/settings/schema.js';
import { secretForTest } from '../../domain/settings/secretOrigin.js';
import { SLSKD_NOT_CONFIGURED, slskdClient, slskdOf, testSlskd } from '../../domain/slskd/connection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13: the p2pclient (slskd) settings check. */

export const slskdTestBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    apiKey: headerToken.min(1),
  })
  .partial()
  .optional();

export const slskdTestResult = z.object({
  success: z.literal(true),
  version: z.string(),
  soulseekConnected: z.boolean(),
  downloadsFolder: z.object({
    reported: z.string().nullable(),
    localPath: z.string().nullable(),
    reachable: z.boolean(),
    reason: z.string().nullable(),
  }),
  /** The folder this test confirmed (saved as integrations.slskd.confirmedDownloadPath); null when downloadPath is set or the folder is not reachable. */
  confirmedFolder: z.string().nullable(),
  message: z.string(),
});

export type SlskdTestBody = z.infer<typeof slskdTestBody>;

/** The slskd connection test (also behind POST /api/settings/download-clients/slskd/test). */
export function runSlskdTest(ctx: AppContext, body: SlskdTestBody) {
  const connection = slskdOf(ctx);
  const saved = connection.settings;
  const url = body?.url ?? saved.url;
  const apiKey = secretForTest({
    setting: 'integrations.slskd',
    field: 'apiKey',
    saved: { url: saved.url, secret: saved.apiKey },
    url,
    secret: body?.apiKey,
  });
  if (!url || !apiKey) throw new NotConfiguredError('integrations.slskd', SLSKD_NOT_CONFIGURED);
  const client = connection.configured && url === saved.url && apiKey === saved.apiKey ? connection.require() : slskdClient(url, apiKey, ctx.clock, 10_000);
  return testSlskd(client, ctx.settings);
}

export function slskdSettingsRoutes(ctx: AppContext): RouteDefinition[] {
  return [
    defineRoute({
      tag: 'settings',
      access: 'admin',
      method: 'post',
      path: '/api/settings/slskd/test',
      summary:
        "Test an slskd URL and API key: its version, Soulseek connection and whether its downloads folder is reachable here (with downloadPath empty, a reachable folder is saved as the confirmed one, the only folder downloads are then taken from); absent or masked values are the saved ones, and the saved key is only sent to the saved address",
      body: slskdTestBody,
      response: slskdTestResult,
      handler: ({ body }) => runSlskdTest(ctx, body),
    }),
  ];
}
