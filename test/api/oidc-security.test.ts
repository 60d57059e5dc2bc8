import crypto from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../fakes/oidc/provider.js';
import { browserSignIn, callback, linkIdentity, oidcSession, throughProvider } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 22 §1: an OpenID identity never takes over an existing account by name; it is bound to one
 * only by a link from Settings → Account (or a verified email, when the administrator opts in); ID
 * tokens are checked against the provider's keys; the provider is reached through the guarded fetch;
 * a flood of sign-in starts from one client does not push out anyone else's.
 */

let server: TestServer;
let idp: TestOidcProvider;

async function saveOidc(fields: Record<string, unknown>) {
  const res = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { oidc: fields } } });
  expect(res.status).toBe(200);
}

async function localUser(username: string, role: 'user' | 'admin' = 'user') {
  const password = `${username} local password`;
  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username, password, role } });
  expect(created.status).toBe(201);
  const login = await server.api('/api/auth/login', { method: 'POST', json: { username, password } });
  const body = (await login.json()) as { token: string; user: { id: number } };
  return { id: body.user.id, token: body.token };
}

const identitiesOf = async (token: string, userId?: number) =>
  (await (await server.api(`/api/auth/oidc/identities${userId ? `?userId=${userId}` : ''}`, { token })).json()) as {
    enabled: boolean;
    identities: { id: number; subject: string; createdAccount: boolean }[];
  };

beforeAll(async () => {
  server = await startTestServer({ env: { OIDC_ALLOW_HTTP: 'true' } });
  idp = await startOidcProvider({ redirectUris: [`${server.url}/sso/callback`] });
  await saveOidc({ enabled: true, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: 'Home ID' });
}, 30_000);

afterAll(async () => {
  await idp?.close();
  await server?.stop();
});

describe('binding identities to accounts', () => {
  it('a signed-in user links an identity from Settings → Account; it then signs in to that account', async () => {
    const grace = await localUser('grace');
    const done = await linkIdentity(server, idp, grace.token, { sub: 'u-grace', preferred_username: 'gracie' });
    expect(done.pathname + done.search).toBe('/settings/account?oidc=linked');
    const listed = await identitiesOf(grace.token);
    expect(listed.enabled).toBe(true);
    expect(listed.identities).toMatchObject([{ subject: 'u-grace', createdAccount: false }]);
    const session = await oidcSession(server, idp, { sub: 'u-grace', preferred_username: 'gracie' });
    expect(session.body.user).toMatchObject({ id: grace.id, username: 'grace' });
    // A second link at the same provider is refused before the provider is even asked.
    const again = await server.api('/api/auth/oidc/link', { method: 'POST', token: grace.token });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'ALREADY_LINKED' });
  });

  it('a link only completes in the browser that started it, and never takes an identity bound to another account', async () => {
    const heidi = await localUser('heidi');
    // Someone sends heidi's link to a victim signed in at the provider: without heidi's cookie it is refused.
    const stolen = await linkIdentity(server, idp, heidi.token, { sub: 'u-victim', preferred_username: 'victim' }, { withCookie: false });
    expect(stolen.pathname).toBe('/settings/account');
    expect(stolen.searchParams.get('oidc')).toBe('error');
    expect(stolen.searchParams.get('message')).toMatch(/another browser/);
    expect((await identitiesOf(heidi.token)).identities).toEqual([]);

    // An identity that already created its own account is not moved to heidi's.
    await oidcSession(server, idp, { sub: 'u-ivan', preferred_username: 'ivan' });
    const taken = await linkIdentity(server, idp, heidi.token, { sub: 'u-ivan', preferred_username: 'ivan' });
    expect(taken.searchParams.get('message')).toMatch(/already signs in to another account/);
    expect((await identitiesOf(heidi.token)).identities).toEqual([]);
  });

  it('unlinking: your own link yes, the identity that created your account no; an administrator removes any', async () => {
    const judy = await localUser('judy');
    await linkIdentity(server, idp, judy.token, { sub: 'u-judy', preferred_username: 'judy' });
    const [linked] = (await identitiesOf(judy.token)).identities;
    // Another user cannot see or remove it.
    const mallory = await localUser('mallory');
    expect((await server.api(`/api/auth/oidc/identities?userId=${judy.id}`, { token: mallory.token })).status).toBe(403);
    expect((await server.api(`/api/auth/oidc/identities/${linked!.id}`, { method: 'DELETE', token: mallory.token })).status).toBe(404);
    expect((await server.api(`/api/auth/oidc/identities/${linked!.id}`, { method: 'DELETE', token: judy.token })).status).toBe(204);
    expect((await identitiesOf(judy.token)).identities).toEqual([]);
    // Unbound again, the identity gets an account of its own, not judy's.
    const fresh = await oidcSession(server, idp, { sub: 'u-judy', preferred_username: 'judy' });
    expect(fresh.body.user).toMatchObject({ username: 'judy-2' });

    const [created] = (await identitiesOf(fresh.body.token)).identities;
    expect(created).toMatchObject({ subject: 'u-judy', createdAccount: true });
    const refused = await server.api(`/api/auth/oidc/identities/${created!.id}`, { method: 'DELETE', token: fresh.body.token });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: 'Conflict', code: 'IDENTITY_IN_USE' });
    // The instance API key has no identities of its own.
    const keyOwn = await server.api('/api/auth/oidc/identities', { headers: { 'x-api-key': server.apiKey } });
    expect(keyOwn.status).toBe(403);
    expect(await keyOwn.json()).toMatchObject({ error: 'User account required' });
    // The administrator lists and removes it (the instance API key works as well).
    expect((await identitiesOf(server.admin.token, fresh.body.user.id)).identities).toHaveLength(1);
    const removed = await server.api(`/api/auth/oidc/identities/${created!.id}`, { method: 'DELETE', headers: { 'x-api-key': server.apiKey } });
    expect(removed.status).toBe(204);
    expect((await identitiesOf(server.admin.token, fresh.body.user.id)).identities).toEqual([]);
  });

  it('binding by verified email is opt-in, needs email_verified and a real address, and never by name', async () => {
    const kim = await localUser('kim@example.test');
    // Off (the default): a new account even though the provider verified the address.
    const off = await oidcSession(server, idp, { sub: 'u-kim-1', preferred_username: 'kimmy', email: 'kim@example.test' });
    expect(off.body.user.id).not.toBe(kim.id);

    await saveOidc({ bindVerifiedEmail: true });
    try {
      const unverified = await oidcSession(server, idp, { sub: 'u-kim-2', preferred_username: 'kimmy', email: 'Kim@Example.test', email_verified: false });
      expect(unverified.body.user.id).not.toBe(kim.id);
      // Not an address: the issue's `{"email":"Carol"}` stays away from the local account carol.
      const carol = await localUser('carol');
      const notAddress = await oidcSession(server, idp, { sub: 'u-carol-x', email: 'Carol' });
      expect(notAddress.body.user).toMatchObject({ username: 'carol-2' });
      expect(notAddress.body.user.id).not.toBe(carol.id);
      const verified = await oidcSession(server, idp, { sub: 'u-kim-3', preferred_username: 'kimmy', email: 'Kim@Example.test' });
      expect(verified.body.user).toMatchObject({ id: kim.id, username: 'kim@example.test' });
      // One identity per provider and account: a second verified identity gets its own account.
      const second = await oidcSession(server, idp, { sub: 'u-kim-4', email: 'kim@example.test' });
      expect(second.body.user.id).not.toBe(kim.id);
    } finally {
      await saveOidc({ bindVerifiedEmail: false });
    }
  });
});

/** RS256 with a key that is not the provider's: what someone on the path of an http:// issuer can mint. */
function forge(idToken: string, claims: Record<string, unknown>): string {
  const [header, payload] = idToken.split('.');
  const body = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...claims };
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = `${header}.${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
  return `${input}.${crypto.sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

describe('talking to the provider', () => {
  it("an ID token not signed by the provider's keys is refused", async () => {
    idp.tamperTokens = (body) => ({ ...body, id_token: forge(String(body.id_token), { sub: 'u-forged', preferred_username: 'forged' }) });
    try {
      const fragment = await browserSignIn(server, idp, { sub: 'u-real', preferred_username: 'real' });
      expect(fragment.get('code')).toBeNull();
      expect(fragment.get('error')).toMatch(/not accepted/);
    } finally {
      idp.tamperTokens = null;
    }
    const users = (await (await server.api('/api/users', { token: server.admin.token })).json()) as { username: string }[];
    const names = users.map((u) => u.username);
    expect(names).not.toContain('forged');
    expect(names).not.toContain('real');
  });

  it('requests go through the guarded fetch: a link-local or metadata issuer is refused without a connection', async () => {
    const s = await startTestServer({ env: { OIDC_ALLOW_HTTP: 'true', OIDC_ENABLED: 'true', OIDC_ISSUER: 'http://169.254.169.254', OIDC_CLIENT_ID: 'x' } });
    try {
      const res = await s.api('/api/auth/oidc/login');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'Address refused', code: 'TARGET_REFUSED' });
    } finally {
      await s.stop();
    }
  }, 30_000);
});

/** GET /api/auth/oidc/login from another loopback address (127.0.0.2), as another client. */
function loginFrom(localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.url}/api/auth/oidc/login`, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

describe('pending sign-ins', () => {
  it('a flood of sign-in starts from one client is limited with 429 and does not push out anyone else', async () => {
    idp.signInAs({ sub: 'u-lena', preferred_username: 'lena' });
    const start = await fetch(`${server.url}/api/auth/oidc/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const back = await throughProvider(idp, start.headers.get('location')!);

    const statuses: number[] = [];
    for (let i = 0; i < 1005; i++) statuses.push(await loginFrom('127.0.0.2'));
    const first429 = statuses.indexOf(429);
    expect(first429).toBe(30);
    expect(statuses.slice(0, 30).every((s) => s === 302)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);

    // lena's sign-in, started before the flood, still finishes.
    const done = await callback(back);
    expect(done.pathname).toBe('/sso/complete');
    expect(new URLSearchParams(done.hash.slice(1)).get('code')).toMatch(/^[\w-]{43}$/);
  }, 60_000);

  it('the 429 is in the contract’s error shape with Retry-After', async () => {
    const res = await new Promise<http.IncomingMessage & { body: string }>((resolve, reject) => {
      http
        .get(`${server.url}/api/auth/oidc/login`, { localAddress: '127.0.0.2', agent: false }, (r) => {
          let body = '';
          r.setEncoding('utf8');
          r.on('data', (c: string) => (body += c));
          r.on('end', () => resolve(Object.assign(r, { body })));
        })
        .on('error', reject);
    });
    expect(res.statusCode).toBe(429);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'Too many requests', code: 'RATE_LIMITED' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
