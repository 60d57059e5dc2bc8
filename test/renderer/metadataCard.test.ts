import { container, find, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent, type VNode } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMetadataFake, type MetadataFake } from '../fakes/metadata/index.js';
import { catalogue } from '../fixtures/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Settings → Integrations, the Metadata card, on a server started with TONEARM_METADATA_URL (issue 24,
 * a newcomer's finding): the card shows that address as the one in use, says the environment set it,
 * and offers the switch instead of "Not set up"; an address typed in takes its place.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);

let server: TestServer;
let sky: MetadataFake;
let root: El | null = null;
let m: {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void };
  SettingsScreen: FunctionComponent<{ tab: string }>;
  SourceFields: FunctionComponent<Record<string, unknown>>;
  metadataSpec: unknown;
};

function show(node: VNode): El {
  root = container();
  render(node, root as unknown as Element);
  return root;
}

const metadataPart = (r: El) => one(r, 'section[aria-labelledby="integration-metadata-title"] [data-source="metadata"]');
const addressBox = (part: El) => {
  const label = find(part, 'label').find((l) => text(l) === 'Metadata server address')!;
  return one(part, `#${label.getAttribute('for')}`);
};

beforeAll(async () => {
  sky = await startMetadataFake(catalogue);
  server = await startTestServer({ env: { TONEARM_METADATA_URL: sky.url, TONEARM_UPSTREAM_SPACING_MS: '0' } });
  setOrigin(server.url, '/settings/integrations');
  const login = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as { token: string; user: unknown };
  const [session, router, screen, integrations, card] = await Promise.all([
    renderer('session.ts'),
    renderer('router.tsx'),
    renderer('settings/SettingsScreen.tsx'),
    renderer('settings/IntegrationsSettings.tsx'),
    renderer('settings/SourceCard.tsx'),
  ]);
  m = { session: session.session, router, SettingsScreen: screen.SettingsScreen, SourceFields: card.SourceFields, metadataSpec: integrations.metadataSpec };
  m.session.set({ token: login.token, user: login.user, notice: null });
}, 30_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root?.remove();
  root = null;
});

afterAll(async () => {
  await server?.stop();
  await sky?.close();
});

describe('the Metadata card', () => {
  it('shows the TONEARM_METADATA_URL address as the one in use, set by the environment, with the switch instead of "Not set up"', async () => {
    m.router.navigate('/settings/integrations');
    const r = show(h(m.SettingsScreen, { tab: 'integrations' }) as VNode);
    const part = await waitFor(() => metadataPart(r));
    await waitFor(() => expect(find(part, '[data-environment]')).toHaveLength(1));
    expect(find(part, '[data-setup="missing"]')).toEqual([]);
    expect(text(one(part, '[data-environment]'))).toBe(
      `In use: ${sky.url}, set by the environment (TONEARM_METADATA_URL) when the server started. An address entered above takes its place.`,
    );
    expect(one(part, '[data-environment]').getAttribute('data-environment')).toBe('in-use');
    const box = addressBox(part);
    expect(box.value).toBe('');
    expect(box.getAttribute('placeholder')).toBe(sky.url);
    expect(text(find(part, 'label.switch')[0])).toBe('Use the metadata server');
    // An address of one's own takes the environment's place, and the card says so.
    await typeInto(box, 'https://meta.example.org');
    await waitFor(() => expect(one(part, '[data-environment]').getAttribute('data-environment')).toBe('overridden'));
    expect(text(one(part, '[data-environment]'))).toContain(`takes the place of ${sky.url}, set by the environment (TONEARM_METADATA_URL)`);
  });

  it('still reads "Not set up" when neither the setting nor the environment gives an address', () => {
    const r = show(h(m.SourceFields, { spec: m.metadataSpec, values: {}, fromEnvironment: null, onEdit: () => undefined }) as VNode);
    expect(text(one(r, '[data-setup="missing"]'))).toBe(
      'Not set up. Add the Metadata server address to use the metadata server. A TONEARM_METADATA_URL given when the server starts is used without it.',
    );
    expect(find(r, '[data-environment]')).toEqual([]);
  });
});
