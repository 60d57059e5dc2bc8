import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
afterEach(async () => {
  await server?.stop();
});

const json = async (res: Response) => (await res.json()) as Record<string, any>;

async function createUser(s: TestServer, username: string, extra: Record<string, unknown> = {}) {
  const res = await s.api('/api/users', { method: 'POST', token: s.admin.token, json: { username, password: 'password-123', ...extra } });
  expect(res.status).toBe(201);
  const user = await json(res);
  const login = await json(await s.api('/api/auth/login', { method: 'POST', json: { username, password: 'password-123' } }));
  return { user, token: login.token as string };
}

function openSocket(url: string) {
  const ws = new WebSocket(url);
  const messages: any[] = [];
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  const next = () =>
    new Promise<any>((resolve) => {
      if (messages.length) return resolve(messages.shift());
      ws.once('message', () => resolve(messages.shift()));
    });
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  return { ws, next, closed };
}

describe('onboarding and login', () => {
  it('walks from an empty data folder through onboarding, login and me', async () => {
    server = await startTestServer({ onboard: false });
    const boot = await json(await server.api('/api/health/bootstrap'));
    expect(boot).toMatchObject({ status: 'ok', authRequired: false, onboardingRequired: true, api: { version: 1 } });
    expect(boot.user).toBeUndefined();

    const done = await server.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'Owner', authPassword: 'secret-pass' } });
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ success: true, session: { user: { username: 'Owner', role: 'admin' } } });

    const again = await server.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'x', authPassword: 'secret-pass' } });
    expect(again.status).toBe(403);
    expect(await json(again)).toEqual({ error: 'Onboarding already completed', message: 'Onboarding already completed' });

    const login = await server.api('/api/auth/login', { method: 'POST', json: { username: 'owner', password: 'secret-pass' } });
    expect(login.status).toBe(200);
    const session = await json(login);
    expect(session.expiresAt).toBe(server.clock.now() + 720 * 3600 * 1000);
    expect(session.user).toEqual({
      id: 1,
      username: 'Owner',
      role: 'admin',
      permissions: {
        accessSettings: true,
        accessFlow: true,
        addArtist: true,
        addAlbum: true,
        changeMonitoring: true,
        deleteArtist: true,
        deleteAlbum: true,
      },
    });
    const me = await json(await server.api('/api/auth/me', { token: session.token }));
    expect(me).toEqual({ user: session.user, expiresAt: session.expiresAt });
    const boot2 = await json(await server.api('/api/health/bootstrap', { token: session.token }));
    expect(boot2).toMatchObject({ authRequired: true, onboardingRequired: false, user: { username: 'Owner' } });
  });

  it('rejects bad onboarding input without creating anything', async () => {
    server = await startTestServer({ onboard: false });
    const short = await server.api('/api/onboarding/complete', { method: 'POST', json: { authUser: 'a', authPassword: 'short' } });
    expect(short.status).toBe(400);
    const badUrl = await server.api('/api/onboarding/complete', {
      method: 'POST',
      json: { authUser: 'a', authPassword: 'long-enough', lidarr: { url: 'not a url' } },
    });
    expect(badUrl.status).toBe(400);
    expect((await json(badUrl)).code).toBe('VALIDATION_ERROR');
    expect(server.ctx.users.count()).toBe(0);
    expect(server.ctx.auth.isOnboarded()).toBe(false);
  });

  it('answers wrong passwords and disabled accounts with the right statuses', async () => {
    server = await startTestServer();
    expect((await server.api('/api/auth/login', { method: 'POST', json: { username: 'admin', password: 'nope-nope' } })).status).toBe(401);
    expect((await server.api('/api/auth/login', { method: 'POST', json: {} })).status).toBe(400);
    const { user } = await createUser(server, 'dana');
    await server.api(`/api/users/${user.id}`, { method: 'PATCH', token: server.admin.token, json: { status: 'disabled' } });
    const res = await server.api('/api/auth/login', { method: 'POST', json: { username: 'dana', password: 'password-123' } });
    expect(res.status).toBe(403);
  });
});

describe('credentials', () => {
  it('accepts a session, the API key in header or query, and basic auth on a protected route', async () => {
    server = await startTestServer();
    expect((await server.api('/api/health/ws', { token: server.admin.token })).status).toBe(200);
    expect((await server.api('/api/health/ws', { headers: { 'x-api-key': server.apiKey } })).status).toBe(200);
    expect((await server.api(`/api/health/ws?api_key=${server.apiKey}`)).status).toBe(200);
    const basic = Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64');
    expect((await server.api('/api/health/ws', { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });

  it('gives 401 with the contract body for missing, invalid and expired credentials', async () => {
    server = await startTestServer();
    const none = await server.api('/api/users');
    expect(none.status).toBe(401);
    expect(await json(none)).toEqual({ error: 'Unauthorized', code: 'AUTH_REQUIRED', message: 'Authentication required' });
    const bad = await server.api('/api/users', { token: 'garbage' });
    expect(bad.status).toBe(401);
    expect(await json(bad)).toEqual({ error: 'Unauthorized', code: 'SESSION_INVALID', message: 'Session expired or invalid' });
    expect((await server.api('/api/users', { headers: { 'x-api-key': 'f'.repeat(64) } })).status).toBe(401);
    server.clock.advance(720 * 3600 * 1000 + 1);
    const expired = await server.api('/api/users', { token: server.admin.token });
    expect(expired.status).toBe(401);
    expect((await json(expired)).code).toBe('SESSION_INVALID');
  });

  it('gives 403 for missing permissions, admin-only routes, and the API key on user-owned routes', async () => {
    server = await startTestServer();
    const { token } = await createUser(server, 'lee');
    const users = await server.api('/api/users', { token });
    expect(users.status).toBe(403);
    expect(await json(users)).toEqual({ error: 'Forbidden', message: 'Admin access required' });
    expect((await server.api('/api/settings', { token })).status).toBe(403);
    const key = await server.api('/api/users/me/lidarr-preferences', { headers: { 'x-api-key': server.apiKey } });
    expect(key.status).toBe(403);
    expect((await json(key)).error).toBe('User account required');
    expect((await server.api('/api/users/me/lidarr-preferences', { token })).status).toBe(200);
  });

  it('logout ends the session', async () => {
    server = await startTestServer();
    const { token } = await createUser(server, 'kim');
    expect((await server.api('/api/auth/logout', { method: 'POST', token })).status).toBe(200);
    expect((await server.api('/api/auth/me', { token })).status).toBe(401);
  });

  it('rotating the API key kills the old one at once', async () => {
    server = await startTestServer();
    const old = server.apiKey;
    expect(old).toMatch(/^[0-9a-f]{64}$/);
    const rotated = await json(await server.api('/api/auth/api-key/rotate', { method: 'POST', token: server.admin.token }));
    expect(rotated.apiKey).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.apiKey).not.toBe(old);
    expect((await server.api('/api/health/ws', { headers: { 'x-api-key': old } })).status).toBe(401);
    expect((await server.api('/api/health/ws', { headers: { 'x-api-key': rotated.apiKey } })).status).toBe(200);
  });

  it('accepts a stream token for 120 seconds and then rejects it', async () => {
    server = await startTestServer();
    const issued = await json(await server.api('/api/health/stream-token', { method: 'POST', token: server.admin.token }));
    expect(issued.expiresIn).toBe(120);
    const resolved = server.ctx.auth.resolveStreamToken(issued.token);
    expect(resolved?.username).toBe('admin');
    server.clock.advance(119_000);
    expect(server.ctx.auth.resolveStreamToken(issued.token)).not.toBeNull();
    server.clock.advance(2_000);
    expect(server.ctx.auth.resolveStreamToken(issued.token)).toBeNull();
  });

  it('disabling a user ends its sessions and closes its sockets with 4403', async () => {
    server = await startTestServer();
    const { user, token } = await createUser(server, 'sam');
    const sock = openSocket(`ws://127.0.0.1:${server.port}/ws?token=${token}`);
    expect((await sock.next()).type).toBe('connected');
    const res = await server.api(`/api/users/${user.id}`, { method: 'PATCH', token: server.admin.token, json: { status: 'disabled' } });
    expect(res.status).toBe(200);
    expect((await sock.closed).code).toBe(4403);
    expect((await server.api('/api/auth/me', { token })).status).toBe(401);
  });

  it('changing your password needs the current one and keeps only the current session', async () => {
    server = await startTestServer();
    const { token } = await createUser(server, 'pat');
    const other = (await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'pat', password: 'password-123' } }))).token;
    const wrong = await server.api('/api/users/me/password', { method: 'POST', token, json: { currentPassword: 'nope', newPassword: 'new-password-1' } });
    expect(wrong.status).toBe(400);
    const ok = await server.api('/api/users/me/password', {
      method: 'POST',
      token,
      json: { currentPassword: 'password-123', newPassword: 'new-password-1' },
    });
    expect(ok.status).toBe(200);
    expect((await server.api('/api/auth/me', { token })).status).toBe(200);
    expect((await server.api('/api/auth/me', { token: other })).status).toBe(401);
    expect((await server.api('/api/auth/login', { method: 'POST', json: { username: 'pat', password: 'new-password-1' } })).status).toBe(200);
  });

  it('honours the proxy identity header only from trusted addresses, and then refuses password login', async () => {
    server = await startTestServer({ env: { AUTH_PROXY_HEADER: 'x-forwarded-user', AUTH_PROXY_TRUSTED_IPS: '127.0.0.1' } });
    const me = await json(await server.api('/api/auth/me', { headers: { 'x-forwarded-user': 'proxied' } }));
    expect(me.user.username).toBe('proxied');
    expect(me.user.role).toBe('user');
    expect((await server.api('/api/auth/login', { method: 'POST', json: ADMIN })).status).toBe(403);
    await server.stop();
    server = await startTestServer({ env: { AUTH_PROXY_HEADER: 'x-forwarded-user', AUTH_PROXY_TRUSTED_IPS: '10.9.9.9' } });
    expect((await server.api('/api/auth/me', { headers: { 'x-forwarded-user': 'proxied' } })).status).toBe(401);
  });
});

describe('LAN auto-login', () => {
  const lan = () => ({ eth0: [{ address: '192.168.1.20', netmask: '255.255.255.0', family: 'IPv4' as const, mac: '', internal: false, cidr: '192.168.1.20/24' }] });

  it('is off by default, logs the sole admin in from loopback when on, and switches itself off for a second user', async () => {
    server = await startTestServer({ interfaces: lan });
    const health = await json(await server.api('/api/health', { token: server.admin.token }));
    expect(health.localNetworkBypass).toEqual({ enabled: false, eligible: true, active: false, reason: 'disabled' });
    expect((await server.api('/api/auth/me')).status).toBe(401);

    const on = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { security: { localNetworkBypass: { enabled: true } } } });
    expect(on.status).toBe(200);
    const me = await json(await server.api('/api/auth/me'));
    expect(me.user.username).toBe('admin');

    await createUser(server, 'second');
    expect(server.ctx.settings.get().security.localNetworkBypass.enabled).toBe(false);
    expect((await server.api('/api/auth/me')).status).toBe(401);
    const refused = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { security: { localNetworkBypass: { enabled: true } } } });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({
      code: 'NOT_SINGLE_USER',
      message:
        'LAN auto-login is only possible with a single administrator account, and this server has more than one account. Remove the other accounts first.',
    });
  });
});

describe('login limiter', () => {
  it('allows 10 failed logins per window, then answers 429 JSON', async () => {
    server = await startTestServer();
    for (let i = 0; i < 10; i++) {
      expect((await server.api('/api/auth/login', { method: 'POST', json: { username: 'admin', password: 'wrong-pass' } })).status).toBe(401);
    }
    const blocked = await server.api('/api/auth/login', { method: 'POST', json: ADMIN });
    expect(blocked.status).toBe(429);
    expect(await json(blocked)).toMatchObject({ error: 'Too many requests', code: 'RATE_LIMITED' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
