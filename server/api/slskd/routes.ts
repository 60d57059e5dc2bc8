import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { slskdTestBody, testSlskdConnection } from '../../domain/slskd/connection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13: the p2pclient (slskd) settings check. */

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
      handler: ({ body }) => testSlskdConnection(ctx, body),
    }),
  ];
}
