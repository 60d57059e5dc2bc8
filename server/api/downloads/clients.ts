import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { downloadClients, testDownloadClient } from '../../domain/downloads/clients.js';
import { DOWNLOAD_CLIENTS, DOWNLOAD_SOURCE_IDS } from '../../domain/downloads/sources/index.js';
import { testYtdlp, ytdlpTestBody } from '../../domain/ytdlp/connection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/**
 * api.md §4.13: the download clients of every source in one list (domain/downloads/clients.ts, read
 * from the list of sources) with their settings fields, one test route that dispatches to each
 * client's own connection test, and yt-dlp's test.
 */

const clientKeys = DOWNLOAD_CLIENTS.map((c) => c.key) as [string, ...string[]];

const fieldSchema = z.object({
  key: z.string(),
  setting: z.string(),
  label: z.string(),
  type: z.enum(['url', 'text', 'secret', 'path', 'number', 'boolean', 'select']),
  secret: z.boolean(),
  required: z.boolean(),
  options: z.array(z.string()).optional(),
  /** For secrets: whether one is saved (its value is never sent). */
  hasValue: z.boolean().optional(),
});
const clientSchema = z.object({
  key: z.enum(clientKeys),
  label: z.string(),
  source: z.enum(DOWNLOAD_SOURCE_IDS),
  role: z.string(),
  configured: z.boolean(),
  enabled: z.boolean(),
  priority: z.number().nullable(),
  testPath: z.string(),
  /** Why it is not configured, when that is known (yt-dlp: where it was looked for). */
  reason: z.string().nullable(),
  fields: z.array(fieldSchema),
});

const ytdlpResult = z.object({
  success: z.literal(true),
  version: z.string(),
  path: z.string(),
  ffmpegFound: z.boolean(),
  ffmpegPath: z.string().nullable(),
  message: z.string(),
});

export function downloadClientRoutes(ctx: AppContext): RouteDefinition[] {
  const admin = { tag: 'settings', access: 'admin' as const };
  return [
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/ytdlp/test',
      summary:
        "Test yt-dlp: runs the binary (the body's path, else the integrations.ytdlp.path setting, YTDLP_PATH or PATH) for its version and says whether ffmpeg was found",
      body: ytdlpTestBody,
      response: ytdlpResult,
      handler: ({ body }) => testYtdlp(ctx, body?.path || undefined),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/download-clients',
      summary: 'Every download client of every source (slskd, Prowlarr, SABnzbd, NZBGet, yt-dlp): configured, enabled, priority and its settings fields',
      response: z.object({ clients: z.array(clientSchema) }),
      handler: () => ({ clients: downloadClients(ctx) }),
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/download-clients/:key/test',
      summary: "Test one download client with its own test (the body is that test's body); unknown keys answer 404",
      params: z.object({ key: z.string().max(64) }),
      body: z.unknown(),
      response: z.record(z.string(), z.unknown()),
      handler: ({ params, body }) => testDownloadClient(ctx, params.key, body),
    }),
  ];
}
