import { click, container, find, one, setOrigin, text, waitFor, window, type El } from './dom.js';
import { h, render, type FunctionComponent, type VNode } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../fakes/oidc/provider.js';
import { linkIdentity } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Settings → Account, the identity-provider card, against a real server and a real OpenID provider:
 * "Link with …" asks the server for the provider's page and opens it; back with `?oidc=linked` the
 * linked identity is listed and can be unlinked; a refused link says why.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void };
  SettingsScreen: FunctionComponent<{ tab: string }>;
}

let server: TestServer;
let idp: TestOidcProvider;
let m: Modules;
let user: { token: string; user: { id: number } };
let root: El | null = null;

function accountTab(path: string, as: { token: string; user: unknown } = user, tab = 'account'): El {
  m.session.set({ token: as.token, user: as.user, notice: null });
  m.router.navigate(path);
  root = container();
  render(h(m.SettingsScreen, { tab }) as VNode, root as unknown as Element);
  return root;
}
const card = (r: El) => {
  const found = find(r, 'section').find((s) => text(find(s, 'h2')[0] ?? null) === 'Sign-in with your identity provider');
  if (!found) throw new Error('no identity-provider card');
  return found;
};
const identities = async () =>
  ((await (await server.api('/api/auth/oidc/identities', { token: user.token })).json()) as { identities: { subject: string }[] }).identities;

beforeAll(async () => {
  server = await startTestServer({ env: { OIDC_ALLOW_HTTP: 'true' } });
  idp = await startOidcProvider({ redirectUris: [`${server.url}/sso/callback`] });
  const saved = await server.api('/api/settings', {
    method: 'POST',
    token: server.admin.token,
    json: { integrations: { oidc: { enabled: true, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: 'Home ID' } } },
  });
  expect(saved.status).toBe(200);
  await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'nora', password: 'nora local password' } });
  user = await (await server.api('/api/auth/login', { method: 'POST', json: { username: 'nora', password: 'nora local password' } })).json();
  setOrigin(server.url, '/settings/account');
  const [session, router, screen] = await Promise.all([renderer('session.ts'), renderer('router.tsx'), renderer('settings/SettingsScreen.tsx')]);
  m = {
    session: (session as { session: Modules['session'] }).session,
    router: router as Modules['router'],
    SettingsScreen: (screen as { SettingsScreen: Modules['SettingsScreen'] }).SettingsScreen,
  };
}, 30_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  await idp?.close();
  await server?.stop();
});

describe('Settings → Account: identity provider', () => {
  it('"Link with Home ID…" opens the provider\'s sign-in page the server started', async () => {
    const opened: string[] = [];
    const location = window.location as unknown as { assign: (url: string) => void };
    const assign = location.assign;
    location.assign = (url: string) => void opened.push(url);
    try {
      const r = accountTab('/settings/account');
      const c = await waitFor(() => card(r));
      await waitFor(() => expect(text(c)).toContain('No identity is linked'));
      click(one(c, 'button', 'Link with Home ID…'));
      await waitFor(() => expect(opened).toHaveLength(1));
      const url = new URL(opened[0]!);
      expect(url.origin).toBe(idp.issuer);
      expect(url.searchParams.get('redirect_uri')).toBe(`${server.url}/sso/callback`);
      expect(url.searchParams.get('state')).toBeTruthy();
    } finally {
      location.assign = assign;
    }
  });

  it('back from a link: the identity is listed and Unlink removes it', async () => {
    const done = await linkIdentity(server, idp, user.token, { sub: 'u-nora', preferred_username: 'nora.s' });
    expect(done.pathname + done.search).toBe('/settings/account?oidc=linked');
    const r = accountTab(done.pathname + done.search);
    const c = await waitFor(() => card(r));
    await waitFor(() => expect(text(c)).toContain('Your identity is linked'));
    await waitFor(() => expect(text(c)).toContain(`u-nora at ${idp.issuer}`));
    expect(find(c, 'button', 'Link with Home ID…')).toEqual([]);
    click(one(c, 'button', 'Unlink u-nora'));
    await waitFor(() => expect(text(c)).toContain('No identity is linked'));
    expect(await identities()).toEqual([]);
  });

  it('a refused link says why', async () => {
    const r = accountTab(`/settings/account?oidc=error&message=${encodeURIComponent('This link was started in another browser')}`);
    const c = await waitFor(() => card(r));
    await waitFor(() => expect(text(c)).toContain('Not linked: This link was started in another browser'));
  });

  it('Settings → Users: an administrator sees the identity bound to an account and removes the binding', async () => {
    await linkIdentity(server, idp, user.token, { sub: 'u-nora-2', preferred_username: 'nora.s' });
    const adminSession = await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json();
    const r = accountTab('/settings/users', adminSession, 'users');
    click(await waitFor(() => one(r, 'button', 'Edit nora')));
    const binding = await waitFor(() => one(r, 'button', 'Remove binding u-nora-2'));
    expect(text(r)).toContain(`u-nora-2 at ${idp.issuer}`);
    click(binding);
    await waitFor(() => expect(find(r, 'button', 'Remove binding u-nora-2')).toEqual([]));
    expect(await identities()).toEqual([]);
  });
});
