import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOWNLOAD_SOURCES } from '../../server/domain/downloads/sources/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Settings → Downloads shows one card per download source of the server's list, read from GET
 * /api/health and GET /api/settings/download-clients; a source the UI has no words for gets a card
 * built from the fields the server describes.
 */

// Loaded by a computed specifier so the server's typecheck does not follow it into the UI's TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);

type Spec = { key: string; name: string; fields: { key: string; label: string; kind?: string }[]; priority: boolean; test?: string; testFields?: string[]; needs?: string[] };
type Card = { id: string; anchor: string; title: string; intro: string; specs: Spec[] };
let m: {
  sourceCards(sources: unknown, clients: unknown, words: Record<string, { intro: string; specs: Record<string, Spec> }>): Card[];
  genericSpec(client: unknown): Spec;
};
let server: TestServer;

beforeAll(async () => {
  [m, server] = await Promise.all([renderer('settings/sourceCards.ts'), startTestServer()]);
});
afterAll(async () => {
  await server?.stop();
});

const get = async (pathname: string) => (await server.api(pathname, { token: server.admin.token })).json() as Promise<any>;

describe('the download-source cards', () => {
  it("are the server's sources, in its order, each with its programs", async () => {
    const [health, clients] = await Promise.all([get('/api/health'), get('/api/settings/download-clients')]);
    const cards = m.sourceCards(health.downloadSources, clients.clients, {});
    expect(cards.map((c) => c.id)).toEqual(DOWNLOAD_SOURCES.map((s) => s.id));
    for (const source of DOWNLOAD_SOURCES) {
      const card = cards.find((c) => c.id === source.id)!;
      expect(card).toMatchObject({ title: source.label, anchor: `source-${source.id}` });
      expect(card.specs.map((s) => s.key)).toEqual(source.clients.map((c) => c.key));
    }
  });

  it('use the UI’s own spec for a program it knows and build one for a program it does not', () => {
    const own: Spec = { key: 'slskd', name: 'slskd', fields: [], priority: true };
    const tidal = {
      key: 'tidal',
      label: 'Tidal',
      source: 'tidal',
      role: 'streaming',
      configured: false,
      enabled: true,
      priority: 30,
      testPath: '/api/settings/tidal/test',
      fields: [
        { key: 'url', setting: 'integrations.tidal.url', label: 'Tidal address', type: 'url', secret: false, required: true },
        { key: 'token', setting: 'integrations.tidal.token', label: 'Tidal token', type: 'secret', secret: true, required: true },
        { key: 'enabled', setting: 'integrations.tidal.enabled', label: 'Tidal enabled', type: 'boolean', secret: false, required: false },
        { key: 'priority', setting: 'integrations.tidal.priority', label: 'Tidal priority', type: 'number', secret: false, required: false },
        { key: 'quality', setting: 'integrations.tidal.quality', label: 'Tidal quality', type: 'select', secret: false, required: false, options: ['lossless'] },
        { key: 'confirmedPath', setting: 'integrations.tidal.confirmedPath', label: 'Tidal confirmed path', type: 'path', secret: false, required: false },
      ],
    };
    const slskd = { ...tidal, key: 'slskd', label: 'Soulseek (slskd)', source: 'slskd', fields: [] };
    const cards = m.sourceCards(
      { slskd: { id: 'slskd', label: 'Soulseek (slskd)' }, tidal: { id: 'tidal', label: 'Tidal' } },
      [slskd, tidal],
      { slskd: { intro: 'Soulseek.', specs: { slskd: own } } },
    );
    expect(cards.map((c) => [c.id, c.title, c.intro])).toEqual([
      ['slskd', 'Soulseek (slskd)', 'Soulseek.'],
      ['tidal', 'Tidal', ''],
    ]);
    expect(cards[0]!.specs).toEqual([own]);
    expect(cards[1]!.specs).toEqual([
      {
        key: 'tidal',
        name: 'Tidal',
        fields: [
          { key: 'url', label: 'Tidal address', kind: 'url' },
          { key: 'token', label: 'Tidal token', kind: 'password' },
          { key: 'quality', label: 'Tidal quality', kind: 'text' },
        ],
        priority: true,
        test: 'tidal',
        testFields: ['url', 'token'],
        needs: ['url', 'token'],
      },
    ]);
  });
});
