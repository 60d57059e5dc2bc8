import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { settingLabel } from '../../domain/settings/labels.js';
import { usenetStatus } from '../../domain/usenet/connection.js';
import { testYtdlp, ytdlpStatus } from '../../domain/ytdlp/connection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { testSlskdConnection } from '../../domain/slskd/connection.js';
import { testUsenetConnection } from '../../domain/usenet/connection.js';
import { slskdTestBody } from '../slskd/routes.js';
import { usenetTestBodies } from '../usenet/routes.js';

/**
 * api.md §4.13: the download clients in one list (slskd, Prowlarr, SABnzbd, NZBGet, yt-dlp) with
 * their settings fields, one test route that dispatches to each client's own connection test, and
 * yt-dlp's test.
 */

export const DOWNLOAD_CLIENT_KEYS = ['slskd', 'prowlarr', 'sabnzbd', 'nzbget', 'ytdlp'] as const;
export type DownloadClientKey = (typeof DOWNLOAD_CLIENT_KEYS)[number];

type FieldType = 'url' | 'text' | 'secret' | 'path' | 'number' | 'boolean' | 'select';
interface FieldSpec {
  key: string;
  type: FieldType;
  options?: string[];
  required?: boolean;
}

const enabledField: FieldSpec = { key: 'enabled', type: 'boolean' };
const priorityField: FieldSpec = { key: 'priority', type: 'number' };

const CLIENTS: Record<DownloadClientKey, { label: string; source: 'slskd' | 'usenet' | 'ytdlp'; role: string; fields: FieldSpec[] }> = {
  slskd: {
    label: 'Soulseek (slskd)',
    source: 'slskd',
    role: 'peer-to-peer',
    fields: [
      { key: 'url', type: 'url', required: true },
      { key: 'apiKey', type: 'secret', required: true },
      enabledField,
      priorityField,
      { key: 'downloadPath', type: 'path' },
      { key: 'confirmedDownloadPath', type: 'path' },
    ],
  },
  prowlarr: {
    label: 'Prowlarr',
    source: 'usenet',
    role: 'indexer',
    fields: [{ key: 'url', type: 'url', required: true }, { key: 'apiKey', type: 'secret', required: true }, enabledField],
  },
  sabnzbd: {
    label: 'SABnzbd',
    source: 'usenet',
    role: 'usenet-client',
    fields: [
      { key: 'url', type: 'url', required: true },
      { key: 'apiKey', type: 'secret', required: true },
      enabledField,
      priorityField,
      { key: 'category', type: 'text' },
      { key: 'completedPath', type: 'path' },
      { key: 'confirmedCompletedPath', type: 'path' },
    ],
  },
  nzbget: {
    label: 'NZBGet',
    source: 'usenet',
    role: 'usenet-client',
    fields: [
      { key: 'url', type: 'url', required: true },
      { key: 'username', type: 'text' },
      { key: 'password', type: 'secret' },
      enabledField,
      priorityField,
      { key: 'category', type: 'text' },
      { key: 'completedPath', type: 'path' },
      { key: 'confirmedCompletedPath', type: 'path' },
    ],
  },
  ytdlp: {
    label: 'yt-dlp',
    source: 'ytdlp',
    role: 'command-line',
    fields: [
      { key: 'path', type: 'path' },
      enabledField,
      priorityField,
      { key: 'searchResults', type: 'number' },
      { key: 'audioFormat', type: 'select', options: ['best', 'm4a', 'opus', 'mp3', 'flac'] },
    ],
  },
};

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
  key: z.enum(DOWNLOAD_CLIENT_KEYS),
  label: z.string(),
  source: z.enum(['slskd', 'usenet', 'ytdlp']),
  role: z.string(),
  configured: z.boolean(),
  enabled: z.boolean(),
  priority: z.number().nullable(),
  testPath: z.string(),
  /** Why it is not configured, when that is known (yt-dlp: where it was looked for). */
  reason: z.string().nullable(),
  fields: z.array(fieldSchema),
});

/** Every download client with its state and settings fields. */
export function downloadClients(ctx: AppContext): z.infer<typeof clientSchema>[] {
  const i = ctx.settings.get().integrations;
  const usenet = usenetStatus(i);
  const ytdlp = ytdlpStatus(ctx);
  const filled = (...v: string[]) => v.every((x) => x.trim() !== '');
  const state: Record<DownloadClientKey, { configured: boolean; enabled: boolean; priority: number | null; reason: string | null }> = {
    slskd: { configured: filled(i.slskd.url, i.slskd.apiKey), enabled: i.slskd.enabled, priority: i.slskd.priority, reason: null },
    prowlarr: { configured: usenet.prowlarrConfigured, enabled: i.prowlarr.enabled, priority: null, reason: null },
    sabnzbd: { configured: usenet.sabnzbdConfigured, enabled: i.sabnzbd.enabled, priority: i.sabnzbd.priority, reason: null },
    nzbget: { configured: usenet.nzbgetConfigured, enabled: i.nzbget.enabled, priority: i.nzbget.priority, reason: null },
    ytdlp: { configured: ytdlp.configured, enabled: ytdlp.enabled, priority: ytdlp.priority, reason: ytdlp.reason },
  };
  return DOWNLOAD_CLIENT_KEYS.map((key) => {
    const spec = CLIENTS[key];
    const saved = i[key] as Record<string, unknown>;
    return {
      key,
      label: spec.label,
      source: spec.source,
      role: spec.role,
      ...state[key],
      testPath: `/api/settings/${key}/test`,
      fields: spec.fields.map((f) => ({
        key: f.key,
        setting: `integrations.${key}.${f.key}`,
        label: settingLabel(['integrations', key, f.key]),
        type: f.type,
        secret: f.type === 'secret',
        required: f.required ?? false,
        ...(f.options && { options: f.options }),
        ...(f.type === 'secret' && { hasValue: typeof saved[f.key] === 'string' && (saved[f.key] as string) !== '' }),
      })),
    };
  });
}

const ytdlpBody = z.object({ path: z.string().max(4096) }).partial().strict().optional();
const ytdlpResult = z.object({
  success: z.literal(true),
  version: z.string(),
  path: z.string(),
  ffmpegFound: z.boolean(),
  ffmpegPath: z.string().nullable(),
  message: z.string(),
});

/** Parses a test body with the client's own schema (400 naming the field otherwise). */
function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body === null ? undefined : body);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new ValidationError(`${issue.path.join('.') || 'body'}: ${issue.message}`, 'VALIDATION_ERROR');
}

/** Runs one client's connection test; unknown keys are 404 "Download client not found". */
export function testDownloadClient(ctx: AppContext, key: string, body: unknown): Promise<unknown> {
  switch (key) {
    case 'slskd':
      return testSlskdConnection(ctx, parseBody(slskdTestBody, body));
    case 'prowlarr':
    case 'sabnzbd':
    case 'nzbget':
      return testUsenetConnection(ctx.settings, key, parseBody(usenetTestBodies[key], body));
    case 'ytdlp':
      return testYtdlp(ctx, parseBody(ytdlpBody, body)?.path || undefined);
    default:
      throw new NotFoundError('Download client not found', `no download client named ${key.slice(0, 64)}`);
  }
}

export function downloadClientRoutes(ctx: AppContext): RouteDefinition[] {
  const admin = { tag: 'settings', access: 'admin' as const };
  return [
    defineRoute({
      ...admin,
      method: 'post',
      path: '/api/settings/ytdlp/test',
      summary:
        "Test yt-dlp: runs the binary (the body's path, else the integrations.ytdlp.path setting, YTDLP_PATH or PATH) for its version and says whether ffmpeg was found",
      body: ytdlpBody,
      response: ytdlpResult,
      handler: ({ body }) => testYtdlp(ctx, body?.path || undefined),
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/api/settings/download-clients',
      summary: 'Every download client (slskd, Prowlarr, SABnzbd, NZBGet, yt-dlp): configured, enabled, priority and its settings fields',
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
