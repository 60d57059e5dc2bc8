import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listIndexers, savedProwlarr, testUsenetConnection, usenetTestBodies } from '../../domain/usenet/connection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13: the Usenet source's connection tests and Prowlarr's indexer list (admin). */

const { prowlarr: apiKeyBody, nzbget: nzbgetBody } = usenetTestBodies;

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

export const usenetTestResults = { prowlarr: prowlarrResult, sabnzbd: clientResult, nzbget: clientResult } as const;

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
      handler: ({ body }) => testUsenetConnection(ctx.settings, 'prowlarr', body),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/prowlarr/indexers',
      summary: "The saved Prowlarr's indexers",
      response: z.array(indexerSchema),
      handler: () => listIndexers(savedProwlarr(ctx.settings)),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/sabnzbd/test',
      summary: 'Test a SABnzbd URL and API key (with completedPath empty, a readable completed folder it reports is saved as the confirmed one, the only folder downloads are then taken from); absent or masked values are the saved ones (the saved key only goes to the saved address)',
      body: apiKeyBody,
      response: clientResult,
      handler: ({ body }) => testUsenetConnection(ctx.settings, 'sabnzbd', body),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/nzbget/test',
      summary: 'Test an NZBGet URL, username and password (with completedPath empty, a readable completed folder it reports is saved as the confirmed one, the only folder downloads are then taken from); absent or masked values are the saved ones (the saved password only goes to the saved address)',
      body: nzbgetBody,
      response: clientResult,
      handler: ({ body }) => testUsenetConnection(ctx.settings, 'nzbget', body),
    }),
  ];
}
