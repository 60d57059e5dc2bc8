import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient, validatorFor, xmlParser } from './harness.js';

let server: TestServer;
let admin: RestClient;
let listener: RestClient;
let listenerToken: string;

const LISTENER = { username: 'listener', password: 'listener-password' };

async function raw(query: string, init?: RequestInit): Promise<{ status: number; type: string; text: string; json: () => any }> {
  const res = await fetch(`${server.url}/rest/${query}`, init);
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text)['subsonic-response'] };
}

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const auth = (u = 'admin', p = 'correct horse battery') => `u=${encodeURIComponent(u)}&p=${encodeURIComponent(p)}&v=1.16.1&c=test`;

/** The code of a failed JSON answer, after checking it against the schema. */
async function errorCode(method: string, query: string): Promise<number> {
  const r = await raw(`${method}?${query}&f=json`);
  expect(r.status).toBe(200);
  const body = JSON.parse(r.text);
  expect(validatorFor(method)(body)).toBe(true);
  expect(body['subsonic-response'].status).toBe('failed');
  return body['subsonic-response'].error.code;
}

beforeAll(async () => {
  server = await startTestServer({ env: { TONEARM_LIBRARY_WATCH: '0' } });
  admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { ...LISTENER } });
  expect(created.status).toBe(201);
  listener = new RestClient(server, LISTENER);
  const login = await server.api('/api/auth/login', { method: 'POST', json: LISTENER });
  listenerToken = ((await login.json()) as { token: string }).token;
});

afterAll(async () => {
  await server?.stop();
});

describe('envelope and formats', () => {
  it('answers XML by default in the Subsonic namespace with the OpenSubsonic attributes', async () => {
    const r = await raw(`ping.view?${auth()}`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('text/xml; charset=utf-8');
    expect(r.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><subsonic-response xmlns="http://subsonic.org/restapi" status="ok" version="1.16.1" type="tonearm" serverVersion="0.1.0" openSubsonic="true"/>',
    );
  });

  it('answers JSON with f=json and JSONP with a callback', async () => {
    const r = await raw(`ping?${auth()}&f=json`);
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(r.text)).toEqual({
      'subsonic-response': { status: 'ok', version: '1.16.1', type: 'tonearm', serverVersion: '0.1.0', openSubsonic: true },
    });
    const p = await raw(`ping?${auth()}&f=jsonp&callback=cb.handle_1`);
    expect(p.type).toBe('application/javascript; charset=utf-8');
    expect(p.text).toBe(`cb.handle_1(${r.text});`);
  });

  it('refuses a JSONP callback that is not an identifier, in JSON, with code 0', async () => {
    const r = await raw(`ping?${auth()}&f=jsonp&callback=alert(1)`);
    expect(r.json().error.code).toBe(0);
    const u = await raw(`ping?${auth()}&f=yaml`);
    expect(u.text).toContain('code="0"');
  });

  it('takes method names in any letter case, with or without .view, by GET and form POST', async () => {
    for (const name of ['PING', 'Ping.View', 'getlicense', 'getLicense.view']) {
      const r = await raw(`${name}?${auth()}&f=json`);
      expect(r.json().status).toBe('ok');
    }
    const post = await raw('getLicense.view', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${auth()}&f=json`,
    });
    expect(post.json().license).toEqual({ valid: true });
  });

  it('lists only the extensions that work, without authentication', async () => {
    const r = await raw('getOpenSubsonicExtensions?f=json');
    const body = JSON.parse(r.text);
    expect(validatorFor('getOpenSubsonicExtensions')(body)).toBe(true);
    expect(body['subsonic-response'].openSubsonicExtensions).toEqual([
      { name: 'apiKeyAuthentication', versions: [1] },
      { name: 'formPost', versions: [1] },
      { name: 'transcodeOffset', versions: [1] },
      { name: 'songLyrics', versions: [1] },
      { name: 'indexBasedQueue', versions: [1] },
      { name: 'getPodcastEpisode', versions: [1] },
    ]);
    const xml = await raw('getOpenSubsonicExtensions');
    expect(xml.text).toContain('<openSubsonicExtensions name="formPost"><versions>1</versions></openSubsonicExtensions>');
  });

  it('escapes text in XML attributes', async () => {
    const r = await raw(`getUser?${auth()}&username=${encodeURIComponent('a"<&>')}`);
    expect(r.text).toContain('code="70"');
    const parsed = xmlParser.parse(r.text);
    expect(parsed['subsonic-response']['@status']).toBe('failed');
  });
});

describe('error codes', () => {
  it('0: a tier-3 or unknown method is not supported', async () => {
    expect(await errorCode('getChatMessages', auth())).toBe(0);
    const r = await raw(`noSuchMethod?${auth()}&f=json`);
    expect(r.json().error).toEqual({ code: 0, message: 'Method not supported by this server: noSuchMethod' });
  });

  it('10: a required parameter is missing', async () => {
    expect(await errorCode('getAlbum', auth())).toBe(10);
    expect(await errorCode('ping', 'p=x&v=1.16.1&c=test')).toBe(10);
    expect(await errorCode('ping', 'u=admin&v=1.16.1&c=test')).toBe(10);
    expect(await errorCode('ping', 'u=admin&p=x&c=test')).toBe(10);
  });

  it('20 and 30: the protocol version is too old or too new', async () => {
    expect(await errorCode('ping', 'u=admin&p=x&v=0.9.0&c=test')).toBe(20);
    expect(await errorCode('ping', 'u=admin&p=x&v=1.17.0&c=test')).toBe(30);
    expect(await errorCode('ping', 'u=admin&p=x&v=2.0.0&c=test')).toBe(30);
  });

  it('40: wrong user name or password', async () => {
    expect(await errorCode('ping', auth('admin', 'nope'))).toBe(40);
    expect(await errorCode('ping', auth('nobody', 'x'))).toBe(40);
    expect(await errorCode('ping', `u=admin&t=${md5('wrong' + 'salt1')}&s=salt1&v=1.16.1&c=t`)).toBe(40);
  });

  it('41: token authentication for an account without a readable password copy', async () => {
    const db = server.ctx.db;
    const saved = db.prepare("SELECT password_enc FROM users WHERE username = 'listener'").pluck().get();
    db.prepare("UPDATE users SET password_enc = '' WHERE username = 'listener'").run();
    try {
      expect(await errorCode('ping', `u=listener&t=${md5('listener-password' + 'abc')}&s=abc&v=1.16.1&c=t`)).toBe(41);
    } finally {
      db.prepare("UPDATE users SET password_enc = ? WHERE username = 'listener'").run(saved);
    }
  });

  it('42: an unsupported mechanism (Navidrome jwt, HTTP Authorization)', async () => {
    expect(await errorCode('ping', 'jwt=abc&v=1.16.1&c=test')).toBe(42);
    const r = await raw('ping?v=1.16.1&c=test&f=json', { headers: { authorization: 'Basic YWRtaW46eA==' } });
    expect(r.json().error.code).toBe(42);
  });

  it('43: conflicting mechanisms', async () => {
    expect(await errorCode('ping', `${auth()}&t=abc&s=def`)).toBe(43);
    expect(await errorCode('ping', `apiKey=x&u=admin&v=1.16.1&c=test`)).toBe(43);
  });

  it('44: an invalid API key, and the instance API key is refused', async () => {
    expect(await errorCode('ping', 'apiKey=tsk_nope&v=1.16.1&c=test')).toBe(44);
    expect(await errorCode('ping', `apiKey=${server.apiKey}&v=1.16.1&c=test`)).toBe(44);
  });

  it('50: not authorized', async () => {
    const r = await listener.json('getUsers');
    expect(r.error.code).toBe(50);
    expect((await listener.json('startScan')).error.code).toBe(50);
    expect((await listener.json('getUser', { username: 'admin' })).error.code).toBe(50);
  });

  it('70: not found', async () => {
    expect((await admin.json('getAlbum', { id: 'al-00000000000000' })).error).toEqual({ code: 70, message: 'Album not found' });
    expect((await admin.json('getSong', { id: 'nonsense' })).error.code).toBe(70);
    expect((await admin.json('getPlaylist', { id: 'pl-9Z' })).error.code).toBe(70);
  });
});

describe('authentication', () => {
  it('accepts a plain password, an enc: hex password and a salted token', async () => {
    const hex = Buffer.from(LISTENER.password, 'utf8').toString('hex');
    expect((await raw(`ping?u=listener&p=enc:${hex}&v=1.16.1&c=t&f=json`)).json().status).toBe('ok');
    expect((await raw(`ping?u=listener&p=${LISTENER.password}&v=1.16.1&c=t&f=json`)).json().status).toBe('ok');
    // The worked example of the protocol: md5("sesame" + "c19b2d").
    expect(md5('sesame' + 'c19b2d')).toBe('26719a1196d2a940705a59634eb18eab');
    expect((await listener.json('ping')).status).toBe('ok');
  });

  it('applies a password change at once, for tokens and passwords', async () => {
    const res = await server.api('/api/users/me/password', {
      method: 'POST',
      token: listenerToken,
      json: { currentPassword: LISTENER.password, newPassword: 'another password 1' },
    });
    expect(res.status).toBeLessThan(300);
    expect((await listener.json('ping')).error.code).toBe(40);
    const changed = new RestClient(server, { username: 'listener', password: 'another password 1' });
    expect((await changed.json('ping')).status).toBe('ok');
    expect((await changed.json('ping', {}, 'password')).status).toBe('ok');
    const login = await server.api('/api/auth/login', { method: 'POST', json: { username: 'listener', password: 'another password 1' } });
    listenerToken = ((await login.json()) as { token: string }).token;
    await server.api('/api/users/me/password', {
      method: 'POST',
      token: listenerToken,
      json: { currentPassword: 'another password 1', newPassword: LISTENER.password },
    });
    expect((await listener.json('ping')).status).toBe('ok');
  });

  it('refuses disabled accounts', async () => {
    const users = (await (await server.api('/api/users', { token: server.admin.token })).json()) as { id: number; username: string }[];
    const id = users.find((u) => u.username === 'listener')!.id;
    await server.api(`/api/users/${id}`, { method: 'PATCH', token: server.admin.token, json: { status: 'disabled' } });
    expect((await listener.json('ping')).error.code).toBe(40);
    await server.api(`/api/users/${id}`, { method: 'PATCH', token: server.admin.token, json: { status: 'active' } });
    expect((await listener.json('ping')).status).toBe('ok');
    const login = await server.api('/api/auth/login', { method: 'POST', json: LISTENER });
    listenerToken = ((await login.json()) as { token: string }).token;
  });

  it('per-user API keys: created, listed and revoked from the account, usable as apiKey', async () => {
    const created = await server.api('/api/users/me/rest-keys', { method: 'POST', token: listenerToken, json: { name: 'Phone' } });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: number; key: string; name: string; prefix: string; lastUsedAt: null };
    expect(key.name).toBe('Phone');
    expect(key.key).toMatch(/^tsk_[A-Za-z0-9_-]{32}$/);
    expect(key.prefix).toBe(key.key.slice(0, 8));
    const ping = await raw(`ping?apiKey=${key.key}&v=1.16.1&c=t&f=json`);
    expect(ping.json().status).toBe('ok');
    const me = await raw(`getUser?apiKey=${key.key}&v=1.16.1&c=t&f=json`);
    expect(me.json().user.username).toBe('listener');
    const list = (await (await server.api('/api/users/me/rest-keys', { token: listenerToken })).json()) as { id: number; lastUsedAt: number | null }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(list)).not.toContain(key.key);
    // Another user cannot see or revoke it; the instance API key is not a user session.
    expect(((await (await server.api('/api/users/me/rest-keys', { token: server.admin.token })).json()) as unknown[]).length).toBe(0);
    expect((await server.api(`/api/users/me/rest-keys/${key.id}`, { method: 'DELETE', token: server.admin.token })).status).toBe(404);
    expect((await server.api('/api/users/me/rest-keys', { headers: { 'x-api-key': server.apiKey } })).status).toBe(403);
    expect((await server.api(`/api/users/me/rest-keys/${key.id}`, { method: 'DELETE', token: listenerToken })).status).toBe(200);
    expect((await raw(`ping?apiKey=${key.key}&v=1.16.1&c=t&f=json`)).json().error.code).toBe(44);
  });

  it('documents the rest-keys routes in the OpenAPI document', async () => {
    const doc = (await (await server.api('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/users/me/rest-keys'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/users/me/rest-keys/{id}'] ?? {})).toEqual(['delete']);
  });
});

describe('users', () => {
  it('getUser roles follow the account: administrator', async () => {
    const r = await admin.ok('getUser', { username: 'admin' });
    expect(r.user).toEqual({
      username: 'admin', scrobblingEnabled: true, adminRole: true, settingsRole: true, downloadRole: true, uploadRole: false,
      playlistRole: true, coverArtRole: true, commentRole: false, podcastRole: true, streamRole: true, jukeboxRole: false,
      shareRole: false, videoConversionRole: false, folder: [1],
    });
  });

  it('getUser roles follow the account: plain user; getUsers for administrators', async () => {
    const r = await listener.ok('getUser', { username: 'listener' });
    expect(r.user.adminRole).toBe(false);
    expect(r.user.settingsRole).toBe(false);
    expect(r.user.streamRole).toBe(true);
    const all = await admin.ok('getUsers');
    expect(all.users.user.map((u: { username: string }) => u.username)).toEqual(['admin', 'listener']);
    const other = await admin.ok('getUser', { username: 'listener' });
    expect(other.user.adminRole).toBe(false);
  });
});
