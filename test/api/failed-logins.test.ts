import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
afterEach(async () => {
  await server?.stop();
});

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
/** TRUST_PROXY=loopback lets each request name its client address in X-Forwarded-For. */
const from = (ip: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...extra });
const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });

async function start() {
  server = await startTestServer({ env: { TRUST_PROXY: 'loopback', TONEARM_LIBRARY_WATCH: '0', TONEARM_SCAN_ON_START: '0' } });
  return server;
}

function login(ip: string, username: string, password: string) {
  return server.api('/api/auth/login', { method: 'POST', headers: from(ip), json: { username, password } });
}

async function rest(ip: string, auth: string) {
  const res = await fetch(`${server.url}/rest/ping?${auth}&v=1.16.1&c=test&f=json`, { headers: from(ip) });
  expect(res.status).toBe(200);
  return { res, body: ((await res.json()) as any)['subsonic-response'] };
}

describe('one failed-login limiter per client', () => {
  it('counts failures by Basic, /rest p, /rest t+s and the password change together, never successes', async () => {
    await start();
    const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'pat', password: 'password-123' } });
    expect(created.status).toBe(201);
    const pat = ((await (await login('192.0.2.1', 'pat', 'password-123')).json()) as { token: string }).token;
    const A = '203.0.113.5';

    // Successful checks do not count.
    for (let i = 0; i < 12; i++) expect((await rest(A, `u=admin&p=${encodeURIComponent(ADMIN.password)}`)).body.status).toBe('ok');

    // Ten failures, spread over accounts so no account back-off starts.
    for (let i = 0; i < 3; i++) expect((await server.api('/api/auth/me', { headers: from(A, basic('admin', 'wrong-pass')) })).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await rest(A, 'u=nobody&p=wrong')).body.error.code).toBe(40);
    for (let i = 0; i < 2; i++) expect((await rest(A, `u=pat&t=${md5(`wrong${i}salt${i}`)}&s=salt${i}`)).body.error.code).toBe(40);
    for (let i = 0; i < 2; i++) {
      const wrong = await server.api('/api/users/me/password', {
        method: 'POST',
        token: pat,
        headers: from(A),
        json: { currentPassword: 'not-it-at-all', newPassword: 'new-password-1' },
      });
      expect(wrong.status).toBe(400);
    }

    // The eleventh check is refused everywhere, even with the right password.
    const refused = await server.api('/api/auth/me', { headers: from(A, basic('admin', ADMIN.password)) });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: 'Too many requests', code: 'RATE_LIMITED', message: expect.stringContaining('this address') });
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect((await login(A, 'admin', ADMIN.password)).status).toBe(429);
    const changeRefused = await server.api('/api/users/me/password', {
      method: 'POST',
      token: pat,
      headers: from(A),
      json: { currentPassword: 'password-123', newPassword: 'new-password-1' },
    });
    expect(changeRefused.status).toBe(429);

    // /rest: the Subsonic envelope, code 0 with the wait, and Retry-After.
    const r = await rest(A, `u=admin&p=${encodeURIComponent(ADMIN.password)}`);
    expect(r.body.status).toBe('failed');
    expect(r.body.error.code).toBe(0);
    expect(r.body.error.message).toMatch(/try again in \d+ (s|min)/);
    expect(Number(r.res.headers.get('retry-after'))).toBeGreaterThan(0);
    const token = await rest(A, `u=admin&t=${md5(`${ADMIN.password}abc`)}&s=abc`);
    expect(token.body.error.code).toBe(0);

    // Sessions and API keys are not password checks; other addresses are not affected.
    expect((await server.api('/api/auth/me', { token: pat, headers: from(A) })).status).toBe(200);
    expect((await server.api('/api/health', { headers: from(A, { 'x-api-key': server.apiKey }) })).status).toBe(200);
    expect((await login('203.0.113.6', 'admin', ADMIN.password)).status).toBe(200);

    // The window ends.
    server.clock.advance(15 * 60 * 1000);
    expect((await login(A, 'admin', ADMIN.password)).status).toBe(200);
  });
});

describe('per-account back-off', () => {
  it('refuses attempts for the account without checking, then lets the right password in after the delay', async () => {
    await start();
    // Five failures from five addresses: no per-client limit is near.
    for (let i = 1; i <= 5; i++) expect((await login(`198.51.100.${i}`, 'admin', 'wrong-pass')).status).toBe(401);
    const refused = await login('198.51.100.50', 'admin', ADMIN.password);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('this account') });
    expect(refused.headers.get('retry-after')).toBe('1');
    // /rest and Basic are held back the same way.
    expect((await rest('198.51.100.51', `u=admin&p=${encodeURIComponent(ADMIN.password)}`)).body.error.code).toBe(0);
    expect((await server.api('/api/auth/me', { headers: from('198.51.100.52', basic('admin', ADMIN.password)) })).status).toBe(429);
    // Other accounts are not.
    expect((await login('198.51.100.50', 'someone-else', 'wrong-pass')).status).toBe(401);

    server.clock.advance(1000);
    // The back-off doubles with each further failure.
    expect((await login('198.51.100.6', 'admin', 'wrong-pass')).status).toBe(401);
    expect((await login('198.51.100.7', 'admin', ADMIN.password)).headers.get('retry-after')).toBe('2');
    server.clock.advance(2000);
    expect((await login('198.51.100.7', 'admin', ADMIN.password)).status).toBe(200);
    // That success cleared the account's back-off.
    expect((await login('198.51.100.8', 'admin', 'wrong-pass')).status).toBe(401);
    expect((await login('198.51.100.9', 'admin', ADMIN.password)).status).toBe(200);
  });

  it("someone else's failures from many addresses never lock the owner out for the window", async () => {
    await start();
    const home = '192.0.2.10';
    expect((await login(home, 'admin', ADMIN.password)).status).toBe(200);
    // An attacker on many addresses keeps failing, each time as soon as the back-off allows.
    let failures = 0;
    for (let i = 1; i <= 40 && failures < 12; i++) {
      const res = await login(`198.51.100.${i}`, 'admin', 'guess-' + i);
      if (res.status === 401) failures++;
      else {
        expect(res.status).toBe(429);
        server.clock.advance(Number(res.headers.get('retry-after')) * 1000);
      }
    }
    expect(failures).toBe(12);
    // The owner's usual address signs in at once, by every mechanism.
    expect((await login(home, 'admin', ADMIN.password)).status).toBe(200);
    expect((await server.api('/api/auth/me', { headers: from(home, basic('admin', ADMIN.password)) })).status).toBe(200);
    // From a new address the owner waits at most the cap, not the window.
    const away = '192.0.2.99';
    const wait = await login(away, 'admin', ADMIN.password);
    expect(wait.status).toBe(429);
    const seconds = Number(wait.headers.get('retry-after'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    server.clock.advance(seconds * 1000);
    expect((await login(away, 'admin', ADMIN.password)).status).toBe(200);
  });
});
