import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrobbleLinks } from '../../server/db/scrobbling.js';
import { decrypt } from '../../server/secrets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { configureLastFm, createUser, json, linkLastFm, scrobbleEnv, startScrobbleFakes, type ScrobbleFakes } from './helpers.js';

let fakes: ScrobbleFakes;
let server: TestServer;
let token: string;
let userId: number;

beforeAll(async () => {
  fakes = await startScrobbleFakes();
  server = await startTestServer({ env: scrobbleEnv(fakes) });
  token = await createUser(server, 'ann');
  userId = (server.ctx.db.prepare('SELECT id FROM users WHERE username = ?').get('ann') as { id: number }).id;
});
afterAll(async () => {
  await server?.stop();
  await fakes?.close();
});

const status = async (t = token) => json(await server.api('/api/scrobbling/status', { token: t }));

describe('status', () => {
  it('has each service with configured, linked and username, and never a secret', async () => {
    expect(await status()).toEqual({
      lastfm: { configured: false, linked: false, username: null },
      listenbrainz: { configured: true, linked: false, username: null },
      koito: { configured: true, linked: false, username: null },
    });
  });

  it('the API key gets 403 "User account required" on every user-owned route', async () => {
    const headers = { 'x-api-key': server.apiKey };
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/scrobbling/status'],
      ['GET', '/api/scrobbling/lastfm/link'],
      ['DELETE', '/api/scrobbling/lastfm/link'],
      ['PUT', '/api/scrobbling/listenbrainz/link', { token: 'x' }],
      ['DELETE', '/api/scrobbling/listenbrainz/link'],
      ['PUT', '/api/scrobbling/koito/link', { url: fakes.koito.url, token: 'x' }],
      ['DELETE', '/api/scrobbling/koito/link'],
      ['POST', '/api/play-events', { title: 'x', artist: 'y' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await server.api(path, { method, headers, ...(body !== undefined && { json: body }) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await json(res)).error).toBe('User account required');
    }
    // The neutral spelling is the same route.
    expect((await server.api('/api/scrobbling/scrobbler2/link', { method: 'PUT', headers, json: { token: 'x' } })).status).toBe(403);
  });
});

describe('Last.fm', () => {
  it('is not configured without an API key and secret: linking answers 409 naming the setting', async () => {
    const res = await server.api('/api/scrobbling/lastfm/link', { token });
    expect(res.status).toBe(409);
    expect((await json(res)).message).toMatch(/integrations\.lastfm\.apiKey/);
  });

  it('links through the web authorization: callback, signed auth.getSession, session key stored encrypted', async () => {
    await configureLastFm(server, fakes);
    expect((await status()).lastfm).toEqual({ configured: true, linked: false, username: null });
    const start = await json(await server.api('/api/scrobbling/lastfm/link', { token }));
    const url = new URL(start.url);
    expect(url.origin + url.pathname).toBe(fakes.lastfm.authUrl);
    expect(url.searchParams.get('api_key')).toBe(fakes.lastfm.apiKey);
    expect(new URL(url.searchParams.get('cb')!).pathname).toBe('/api/scrobbling/lastfm/link/callback');

    fakes.lastfm.authUser = 'RJ';
    expect(await linkLastFm(server, token)).toBe('/settings/account?lastfm=linked');
    expect((await status()).lastfm).toEqual({ configured: true, linked: true, username: 'RJ' });
    expect(await json(await server.api('/api/scrobbling/lastfm/link', { token }))).toEqual({ linked: true, username: 'RJ' });
    // The session key the fake issued is stored, but not in clear.
    const [key] = [...fakes.lastfm.sessions.keys()];
    const [stored] = scrobbleLinks.list(server.ctx.db, userId).filter((l) => l.service === 'lastfm');
    expect(key).toBeTruthy();
    expect(stored!.secretEnc).not.toContain(key);
    expect(decrypt(server.ctx.secrets.encryptionKey, stored!.secretEnc)).toBe(key);
    expect(JSON.stringify(await status())).not.toContain(key);

    const unlinked = await server.api('/api/scrobbling/lastfm/link', { method: 'DELETE', token });
    expect(await json(unlinked)).toEqual({ success: true, linked: false });
    expect((await status()).lastfm.linked).toBe(false);
  });

  it('a bad signature is refused by Last.fm (error 13) and the callback says so clearly', async () => {
    const start = await json(await server.api('/api/scrobbling/lastfm/link', { token }));
    const page = await fetch(start.url, { redirect: 'manual' });
    const saved = fakes.lastfm.apiSecret;
    fakes.lastfm.apiSecret = 'a-different-secret';
    try {
      const done = await fetch(page.headers.get('location')!, { redirect: 'manual' });
      expect(done.status).toBe(302);
      const back = new URL(done.headers.get('location')!, server.url);
      expect(back.pathname).toBe('/settings/account');
      expect(back.searchParams.get('lastfm')).toBe('error');
      expect(back.searchParams.get('message')).toMatch(/signature.*error 13.*integrations\.lastfm\.apiSecret/);
    } finally {
      fakes.lastfm.apiSecret = saved;
    }
    expect((await status()).lastfm.linked).toBe(false);
  });

  it('a forged, replayed or missing state never links anyone', async () => {
    const start = await json(await server.api('/api/scrobbling/lastfm/link', { token }));
    const page = await fetch(start.url, { redirect: 'manual' });
    const callback = new URL(page.headers.get('location')!);
    const state = callback.searchParams.get('state')!;
    const forged = new URL(callback);
    forged.searchParams.set('state', `${state.split('.')[0]}.${'A'.repeat(43)}`);
    const r1 = await fetch(forged, { redirect: 'manual' });
    expect(new URL(r1.headers.get('location')!, server.url).searchParams.get('message')).toMatch(/not valid/);
    expect((await status()).lastfm.linked).toBe(false);
    // The genuine one still works once…
    expect((await fetch(callback, { redirect: 'manual' })).headers.get('location')).toBe('/settings/account?lastfm=linked');
    // …and only once.
    const again = await fetch(callback, { redirect: 'manual' });
    expect(new URL(again.headers.get('location')!, server.url).searchParams.get('message')).toMatch(/used already/);
    await server.api('/api/scrobbling/lastfm/link', { method: 'DELETE', token });
  });
});

describe('ListenBrainz', () => {
  it('an invalid token is 400 with an error, and nothing is stored', async () => {
    const res = await server.api('/api/scrobbling/listenbrainz/link', { method: 'PUT', token, json: { token: 'nope' } });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBeTruthy();
    expect(body.message).toMatch(/ListenBrainz did not accept/);
    expect((await status()).listenbrainz.linked).toBe(false);
  });

  it('a token or key that cannot go into an HTTP header is 400 at the door, and nothing is sent', async () => {
    const before = fakes.listenbrainz.requests.length + fakes.koito.requests.length;
    for (const bad of ['tok\u20acen', 'two\nlines', 'with space', 'nul\u0001x']) {
      const lb = await server.api('/api/scrobbling/listenbrainz/link', { method: 'PUT', token, json: { token: bad } });
      expect(lb.status, JSON.stringify(bad)).toBe(400);
      const body = await json(lb);
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.message).toMatch(/^token: must be printable ASCII/);
      const koito = await server.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url: fakes.koito.url, token: bad } });
      expect(koito.status, JSON.stringify(bad)).toBe(400);
    }
    expect(fakes.listenbrainz.requests.length + fakes.koito.requests.length).toBe(before);
    // Settings keys too: refused when saved, not when a request with them fails later.
    const saved = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: 'key\u20ac' } } } });
    expect(saved.status).toBe(400);
    expect((await json(saved)).message).toMatch(/API key: must be printable ASCII/);
  });

  it('a valid token links, the answer carries the user name; unlink removes it', async () => {
    fakes.listenbrainz.tokens.set('lb-secret-token', 'ann_lb');
    const res = await server.api('/api/scrobbling/listenbrainz/link', { method: 'PUT', token, json: { token: 'lb-secret-token' } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({ linked: true, username: 'ann_lb' });
    expect(fakes.listenbrainz.requests.some((r) => r.path === '/1/validate-token' && r.headers.authorization === 'Token lb-secret-token')).toBe(true);
    expect(await json(await server.api('/api/scrobbling/listenbrainz/link', { token }))).toEqual({ linked: true, username: 'ann_lb' });
    const st = await status();
    expect(st.listenbrainz).toEqual({ configured: true, linked: true, username: 'ann_lb' });
    expect(JSON.stringify(st)).not.toContain('lb-secret-token');
    expect((await server.api('/api/scrobbling/listenbrainz/link', { method: 'DELETE', token })).status).toBe(200);
    expect((await status()).listenbrainz.linked).toBe(false);
  });
});

describe('Koito', () => {
  it('checks the API key on the server the user gives (a pasted …/apis/listenbrainz/1 address is accepted)', async () => {
    fakes.koito.apiKeys.set('koito-key', 'ann_k');
    const bad = await server.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url: fakes.koito.url, token: 'wrong' } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).message).toMatch(/Koito did not accept/);
    const res = await server.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url: `${fakes.koito.url}/apis/listenbrainz/1/`, token: 'koito-key' } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ linked: true, username: 'ann_k', url: fakes.koito.url });
    expect((await status()).koito).toEqual({ configured: true, linked: true, username: 'ann_k' });
    expect((await server.api('/api/scrobbling/koito/link', { method: 'DELETE', token })).status).toBe(200);
    expect((await status()).koito.linked).toBe(false);
  });

  it('refuses addresses the private-address guard forbids, and non-URLs', async () => {
    const meta = await server.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url: 'http://169.254.169.254', token: 'koito-key' } });
    expect(meta.status).toBe(400);
    // Someone other than an administrator hears one neutral answer (private-targets.test.ts has the rest).
    expect((await json(meta)).code).toBe('KOITO_UNREACHABLE');
    const notUrl = await server.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url: 'ftp://example.com', token: 'koito-key' } });
    expect(notUrl.status).toBe(400);
    expect((await status()).koito.linked).toBe(false);
  });
});
