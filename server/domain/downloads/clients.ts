import { NotFoundError, ValidationError } from '../errors.js';
import { settingLabel } from '../settings/labels.js';
import { DOWNLOAD_CLIENTS, type SourcesDeps } from './sources/index.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { settings: SettingsStore } & SourcesDeps;

/**
 * The download clients of every source (DOWNLOAD_SOURCES, sources/index.ts) as GET
 * /api/settings/download-clients lists them, and the one test route that runs each client's own test.
 */

/** Every download client with its state and settings fields, in the order of the list of sources. */
export function downloadClients(ctx: Deps) {
  const integrations = ctx.settings.get().integrations as Record<string, Record<string, unknown>>;
  return DOWNLOAD_CLIENTS.map((client) => {
    const saved = integrations[client.key] ?? {};
    return {
      key: client.key,
      label: client.label,
      source: client.source,
      role: client.role,
      ...client.state(ctx),
      testPath: `/api/settings/${client.key}/test`,
      fields: client.fields.map((f) => ({
        key: f.key,
        setting: `integrations.${client.key}.${f.key}`,
        label: settingLabel(['integrations', client.key, f.key]),
        type: f.type,
        secret: f.type === 'secret',
        required: f.required ?? false,
        ...(f.options && { options: f.options }),
        ...(f.type === 'secret' && { hasValue: typeof saved[f.key] === 'string' && (saved[f.key] as string) !== '' }),
      })),
    };
  });
}

/** Runs one client's connection test, its body checked by the client's own schema (400 naming the field); unknown keys are 404. */
export function testDownloadClient(ctx: Deps, key: string, body: unknown): Promise<unknown> {
  const client = DOWNLOAD_CLIENTS.find((c) => c.key === key);
  if (!client) throw new NotFoundError('Download client not found', `no download client named ${key.slice(0, 64)}`);
  const r = client.testBody.safeParse(body === null ? undefined : body);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ValidationError(`${issue.path.join('.') || 'body'}: ${issue.message}`, 'VALIDATION_ERROR');
  }
  return client.test(ctx, r.data);
}
