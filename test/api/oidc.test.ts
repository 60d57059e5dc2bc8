import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestAccount, type TestOidcProvider } from '../fakes/oidc/provider.js';
import { browserSignIn, throughProvider } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let idp: TestOidcProvider;

/** The whole browser journey: login route → provider → /sso/callback → /sso/complete#… */
const signIn = (account: TestAccount) => browserSignIn(server, idp, account);

async function exchange(code: string) {
  return server.api('/api/auth/oidc/exchange', { method: 'POST', json: { code } });
}

beforeAll(async () => {
  server = await startTestServer({ env: { OIDC_ALLOW_HTTP: 'true' } });
  idp = await startOidcProvider({ redirectUris: [`${server.url}/sso/callback`] });
  const saved = await server.api('/api/settings', {
    method: 'POST',
    token: server.admin.token,
    json: {
      integrations: {
        oidc: {
          enabled: true,
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
          adminGroups: ['music-admins'],
          logoutUrl: `${idp.issuer}/session/end`,
          label: 'Home ID',
        },
      },
    },
  });
  expect(saved.status).toBe(200);
}, 30_000);

afterAll(async () => {
  await idp?.close();
  await server?.stop();
});

describe('OpenID sign-in against a real provider', () => {
  it('bootstrap and health say it is on, with the sign-out address and the button label', async () => {
    const boot = await (await server.api('/api/health/bootstrap')).json();
    expect(boot).toMatchObject({ oidcEnabled: true, oidcLogoutUrl: `${idp.issuer}/session/end`, oidcLabel: 'Home ID' });
    const health = await (await server.api('/api/health', { token: server.admin.token })).json();
    expect(health).toMatchObject({ oidcEnabled: true, oidcLogoutUrl: `${idp.issuer}/session/end` });
  });

  it('a new user: PKCE code flow, account created with the default role, one-time code traded for a session', async () => {
    const login = await fetch(`${server.url}/api/auth/oidc/login`, { redirect: 'manual' });
    const authorize = new URL(login.headers.get('location')!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${server.url}/sso/callback`);

    const fragment = await signIn({ sub: 'u-bob', preferred_username: 'Bob', email: 'bob@example.test', groups: ['family'] });
    const code = fragment.get('code')!;
    expect(code).toMatch(/^[\w-]{43}$/);
    const session = await exchange(code);
    expect(session.status).toBe(200);
    const body = await session.json();
    expect(body.user).toMatchObject({ username: 'bob', role: 'user' });
    const me = await (await server.api('/api/auth/me', { token: body.token })).json();
    expect(me.user.username).toBe('bob');

    // The code worked once; a second use is a failed sign-in.
    const again = await exchange(code);
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ code: 'INVALID_CODE' });
  });

  it('groups from userinfo make an administrator; losing the group demotes an account the provider created', async () => {
    const first = await exchange((await signIn({ sub: 'u-carol', preferred_username: 'carol', groups: ['music-admins'] })).get('code')!);
    expect((await first.json()).user).toMatchObject({ username: 'carol', role: 'admin' });
    const second = await exchange((await signIn({ sub: 'u-carol', preferred_username: 'carol', groups: [] })).get('code')!);
    expect((await second.json()).user).toMatchObject({ username: 'carol', role: 'user' });
  });

  it('a new identity never takes over a local account of its name: it gets a new account, the local one stays as it was', async () => {
    // Before issue 22 an identity without a binding signed in to the local account of its name, the administrator included.
    const evil = await exchange((await signIn({ sub: 'evil-1', preferred_username: 'Admin', groups: [] })).get('code')!);
    const evilSession = await evil.json();
    expect(evilSession.user).toMatchObject({ username: 'admin-2', role: 'user' });
    expect(evilSession.user.id).not.toBe((await (await server.api('/api/auth/me', { token: server.admin.token })).json()).user.id);
    expect((await server.api('/api/settings', { token: evilSession.token })).status).toBe(403);

    const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'dave', password: 'local password 1' } });
    expect(created.status).toBe(201);
    const dave = await created.json();
    const other = await exchange((await signIn({ sub: 'evil-2', email: 'Dave' })).get('code')!);
    expect((await other.json()).user).toMatchObject({ username: 'dave-2', role: 'user' });
    // The local account keeps its password and has no identity bound.
    expect((await server.api('/api/auth/login', { method: 'POST', json: { username: 'dave', password: 'local password 1' } })).status).toBe(200);
    const identities = await (await server.api(`/api/auth/oidc/identities?userId=${dave.id}`, { token: server.admin.token })).json();
    expect(identities.identities).toEqual([]);
    // The same identity comes back to the account it created.
    const again = await exchange((await signIn({ sub: 'evil-2', email: 'Dave' })).get('code')!);
    expect((await again.json()).user).toMatchObject({ username: 'dave-2' });
  });

  it('a disabled account cannot sign in through the provider', async () => {
    const first = await exchange((await signIn({ sub: 'u-erin', preferred_username: 'erin' })).get('code')!);
    const erin = (await first.json()).user;
    expect(erin.username).toBe('erin');
    await server.api(`/api/users/${erin.id}`, { method: 'PATCH', token: server.admin.token, json: { status: 'disabled' } });
    const fragment = await signIn({ sub: 'u-erin', preferred_username: 'erin' });
    expect(fragment.get('error')).toMatch(/suspended or disabled/);
  });

  it('the provider refusing, a forged state and a replayed callback all end on /sso/complete with the reason', async () => {
    idp.denyNext = true;
    const refused = await signIn({ sub: 'u-frank', preferred_username: 'frank' });
    expect(refused.get('error')).toMatch(/refused the sign-in: The user said no/);

    const forged = await fetch(`${server.url}/sso/callback?code=abc&state=not-ours`, { redirect: 'manual' });
    const reason = new URLSearchParams(new URL(forged.headers.get('location')!, server.url).hash.slice(1));
    expect(reason.get('error')).toMatch(/expired or was already used/);

    idp.signInAs({ sub: 'u-gina', preferred_username: 'gina' });
    const start = await fetch(`${server.url}/api/auth/oidc/login`, { redirect: 'manual' });
    const back = await throughProvider(idp, start.headers.get('location')!);
    expect((await fetch(back, { redirect: 'manual' })).headers.get('location')).toMatch(/#code=/);
    const replay = await fetch(back, { redirect: 'manual' });
    expect(replay.headers.get('location')).toMatch(/#error=/);
  });

  it('wrong codes are failed sign-ins: limited per client like passwords', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await exchange(`wrong-${i}`)).status);
    // The replayed code of an earlier test was a failure too; the limit is 10 per client.
    const limited = statuses.indexOf(429);
    expect(limited).toBeGreaterThanOrEqual(8);
    expect(statuses.slice(0, limited).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(limited).every((s) => s === 429)).toBe(true);
  });
});

describe('OpenID sign-in configuration', () => {
  it('not configured: 409 NOT_CONFIGURED naming the settings; an http:// issuer needs OIDC_ALLOW_HTTP', async () => {
    const plain = await startTestServer();
    try {
      const off = await plain.api('/api/auth/oidc/login');
      expect(off.status).toBe(409);
      expect(await off.json()).toMatchObject({ code: 'NOT_CONFIGURED' });
      expect(await (await plain.api('/api/health/bootstrap')).json()).toMatchObject({ oidcEnabled: false, oidcLogoutUrl: null });
      await plain.api('/api/settings', {
        method: 'POST',
        token: plain.admin.token,
        json: { integrations: { oidc: { enabled: true, issuer: 'http://127.0.0.1:9/', clientId: 'x' } } },
      });
      const http = await plain.api('/api/auth/oidc/login');
      expect(http.status).toBe(409);
      expect((await http.json()).message).toMatch(/OIDC_ALLOW_HTTP/);
    } finally {
      await plain.stop();
    }
  });

  it('an unreachable provider is 502 UPSTREAM_UNAVAILABLE', async () => {
    const s = await startTestServer({ env: { OIDC_ALLOW_HTTP: 'true', OIDC_ENABLED: 'true', OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'x' } });
    try {
      const res = await s.api('/api/auth/oidc/login');
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    } finally {
      await s.stop();
    }
  });
});
