import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOWNLOAD_CLIENTS, DOWNLOAD_SOURCE_IDS, DOWNLOAD_SOURCES } from '../../server/domain/downloads/sources/index.js';
import { DOWNLOAD_CLIENT_SETTINGS } from '../../server/domain/downloads/sources/settings.js';
import { settingsSchema } from '../../server/domain/settings/schema.js';
import { neutralNames, resolveAlias } from '../../server/http/aliases.js';
import { startYtdlpFake, type YtdlpFake } from '../fakes/ytdlp/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Download sources are declared in one list (server/domain/downloads/sources/index.ts). Everything
 * that names sources must cover exactly the sources of that list: the settings, the start-up
 * wiring, GET /api/health, the worker's priorities, the download-clients list and its tests, and
 * the neutral path aliases. A source added to the list and missed elsewhere (or the reverse) fails here.
 */

let server: TestServer;
let ytdlp: YtdlpFake;

beforeAll(async () => {
  ytdlp = await startYtdlpFake();
  server = await startTestServer({ ytdlp: ytdlp.bin });
});
afterAll(async () => {
  await server?.stop();
  await ytdlp?.stop();
});

async function call(method: string, pathname: string, json?: unknown) {
  const res = await server.api(pathname, { method, token: server.admin.token, ...(json !== undefined && { json }) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

const ids = DOWNLOAD_SOURCES.map((s) => s.id);
const clientKeys = DOWNLOAD_CLIENTS.map((c) => c.key);
const defaults = settingsSchema.parse({}).integrations as Record<string, Record<string, unknown>>;

describe('the one list of download sources', () => {
  it('has unique ids, client keys and neutral names', () => {
    expect(new Set(ids).size).toBe(ids.length);
    expect(DOWNLOAD_SOURCE_IDS).toEqual(ids);
    expect(new Set(clientKeys).size).toBe(clientKeys.length);
    expect(new Set(DOWNLOAD_CLIENTS.map((c) => c.neutralName)).size).toBe(clientKeys.length);
  });

  it('matches the settings: every client has its block with the fields it lists, and every block with a priority is a client', () => {
    for (const client of DOWNLOAD_CLIENTS) {
      expect(defaults[client.key], `integrations.${client.key}`).toBeDefined();
      for (const field of client.fields) expect(Object.keys(defaults[client.key]!), `integrations.${client.key}.${field.key}`).toContain(field.key);
    }
    const withPriority = Object.entries(defaults).filter(([, block]) => 'priority' in block).map(([key]) => key);
    for (const key of withPriority) expect(clientKeys, `integrations.${key} has a priority but no source lists it`).toContain(key);
  });

  it('declares the settings blocks: each source names one block per client, and settings/schema.ts holds exactly those blocks', () => {
    const integrations: Record<string, { unwrap(): unknown }> = settingsSchema.shape.integrations.unwrap().shape;
    for (const source of DOWNLOAD_SOURCES) {
      expect(Object.keys(source.settings), `${source.id}: its blocks are its clients'`).toEqual(source.clients.map((c) => c.key));
      for (const [key, block] of Object.entries(source.settings)) {
        expect(DOWNLOAD_CLIENT_SETTINGS[key as keyof typeof DOWNLOAD_CLIENT_SETTINGS], `${key} in sources/settings.ts`).toBe(block);
        expect(integrations[key]?.unwrap(), `integrations.${key} is the block ${source.id} names`).toBe(block);
      }
    }
    expect(Object.keys(DOWNLOAD_CLIENT_SETTINGS), 'every block of sources/settings.ts belongs to a client, in list order').toEqual(clientKeys);
  });

  it('is what the download service builds its sources from', async () => {
    const saved = await call('POST', '/api/settings', {
      integrations: {
        slskd: { url: 'http://127.0.0.1:9/slskd', apiKey: 'k', enabled: true },
        prowlarr: { url: 'http://127.0.0.1:9/prowlarr', apiKey: 'k', enabled: true },
        sabnzbd: { url: 'http://127.0.0.1:9/sabnzbd', apiKey: 'k', enabled: true },
        ytdlp: { enabled: true },
      },
    });
    expect(saved.status).toBe(200);
    expect(server.ctx.downloads.sources().map((s) => s.id).sort()).toEqual([...ids].sort());
  });

  it('is what GET /api/health reports: one downloadSources entry per source and its *Configured flags', async () => {
    const health = await call('GET', '/api/health');
    expect(health.status).toBe(200);
    expect(Object.keys(health.body.downloadSources)).toEqual(ids);
    for (const source of DOWNLOAD_SOURCES) {
      expect(health.body.downloadSources[source.id]).toMatchObject({ id: source.id, label: source.label });
      for (const flag of Object.keys(source.health(server.ctx).flags)) expect(typeof health.body[flag], flag).toBe('boolean');
    }
  });

  it("is the worker's list of priorities, each saved where its source keeps it", async () => {
    const wanted = Object.fromEntries(ids.map((id, n) => [id, 100 + n]));
    const put = await call('PUT', '/api/playlists/worker/settings', { sourcePriorities: wanted });
    expect(put.status).toBe(200);
    expect(put.body.sourcePriorities).toEqual(wanted);
    const health = await call('GET', '/api/health');
    for (const id of ids) expect(health.body.downloadSources[id].priority).toBe(wanted[id]);
    expect((await call('PUT', '/api/playlists/worker/settings', { sourcePriorities: { tidal: 1 } })).status).toBe(400);
  });

  it('is the list of download clients, each with a test reachable by its real and its neutral name', async () => {
    const clients = await call('GET', '/api/settings/download-clients');
    expect(clients.status).toBe(200);
    expect(clients.body.clients.map((c: { key: string }) => c.key)).toEqual(clientKeys);
    expect(clients.body.clients.map((c: { source: string }) => c.source)).toEqual(DOWNLOAD_CLIENTS.map((c) => c.source));
    for (const client of DOWNLOAD_CLIENTS) {
      expect(neutralNames[client.neutralName]).toBe(client.key);
      expect(resolveAlias(`/api/settings/${client.neutralName}/test`)).toBe(`/api/settings/${client.key}/test`);
      // A body the client's test refuses: 400 from the test itself, so the route exists under both names.
      for (const name of [client.key, client.neutralName]) {
        const res = await call('POST', `/api/settings/download-clients/${name}/test`, { unknownField: 1, url: 'not a url' });
        expect(res.status, `download-clients/${name}/test`).toBe(400);
      }
    }
    expect((await call('POST', '/api/settings/download-clients/tidal/test', {})).status).toBe(404);
  });
});
