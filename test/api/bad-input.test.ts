import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const json = async (res: Response) => (await res.json()) as Record<string, any>;
const admin = () => server.admin.headers;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('unreadable requests are 4xx JSON, never 500', () => {
  it('a malformed percent-encoding in a path parameter is 400 INVALID_PATH on every route with parameters, media ones too', async () => {
    const doc = await json(await server.api('/api/openapi.json'));
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).filter(([p]) => p.includes('{'));
    expect(routes.flatMap(([, ops]) => Object.keys(ops)).length).toBeGreaterThanOrEqual(19);
    for (const [route, ops] of routes) {
      for (const method of Object.keys(ops)) {
        const url = route.replace(/\{\w+\}/g, '%E0%A4%A');
        const res = await server.api(url, { method: method.toUpperCase(), headers: admin() });
        expect([res.status, method, route]).toEqual([400, method, route]);
        expect(await json(res)).toEqual({ error: 'Invalid request', code: 'INVALID_PATH', message: 'The URL path has a malformed percent-encoding' });
      }
    }
    // Before authentication too: the path is read first.
    const anonymous = await server.api('/api/library/stream/%FF');
    expect(anonymous.status).toBe(400);
  });

  it('a body whose Content-Encoding does not decode is 400, an unknown encoding or charset 415, without credentials as with', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      server.api('/api/users', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    for (const auth of [{}, admin()]) {
      const garbage = await post({ ...auth, 'content-encoding': 'gzip' }, 'certainly not gzip');
      expect(garbage.status).toBe(400);
      expect(await json(garbage)).toEqual({ error: 'Invalid request', code: 'INVALID_BODY', message: 'Request body could not be decoded' });
      const unknown = await post({ ...auth, 'content-encoding': 'x-squash' }, '{}');
      expect(unknown.status).toBe(415);
      expect(await json(unknown)).toEqual({ error: 'Unsupported media type', code: 'UNSUPPORTED_ENCODING', message: 'Unsupported Content-Encoding "x-squash"' });
      const charset = await post({ ...auth, 'content-type': 'application/json; charset=klingon' }, '{}');
      expect(charset.status).toBe(415);
      expect(await json(charset)).toEqual({ error: 'Unsupported media type', code: 'UNSUPPORTED_CHARSET', message: 'Unsupported charset "klingon"' });
    }
    // A body that does decode is still read: gzip is supported, not just refused.
    const zipped = await server.api('/api/users', {
      method: 'POST',
      headers: { ...admin(), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(JSON.stringify({ username: 'zipped', password: 'zipped-password' }))),
    });
    expect(zipped.status).toBe(201);
  });
});

describe('NUL characters and numbers past what SQLite and JavaScript hold', () => {
  it('refuses a NUL in a query, path or body field with 400 VALIDATION_ERROR naming the field', async () => {
    for (const kind of ['artists', 'albums', 'tracks']) {
      const res = await server.api(`/api/library/canonical?kind=${kind}&pageSize=10&query=a%00b`, { headers: admin() });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: 'Invalid request', code: 'INVALID_QUERY', message: 'query: must not contain NUL characters' });
    }
    const path = await server.api('/api/library/artists/a%00b', { headers: admin() });
    expect(path.status).toBe(400);
    expect((await json(path)).message).toBe('mbid: must not contain NUL characters');
    const body = await server.api('/api/filesystem/ensure', { method: 'POST', headers: admin(), json: { path: '/tmp/a\u0000b' } });
    expect(body.status).toBe(400);
    expect(await json(body)).toMatchObject({ code: 'VALIDATION_ERROR', message: 'path: must not contain NUL characters' });
  });

  it('refuses offsets and ids past 2^53 with 400 instead of an SQLite error', async () => {
    for (const url of [
      '/api/play-events?offset=99999999999999999999',
      '/api/library/artists?offset=99999999999999999999',
      '/api/library/canonical?kind=tracks&pageSize=10&page=99999999999999999999',
      '/api/library/tracks/99999999999999999999',
    ]) {
      const res = await server.api(url, { method: url.includes('/tracks/') ? 'DELETE' : 'GET', headers: admin() });
      expect([url, res.status]).toEqual([url, 400]);
    }
  });
});

describe('play times', () => {
  it('POST /api/play-events refuses a time no date can show, and GET survives one already stored', async () => {
    const huge = await server.api('/api/play-events', { method: 'POST', headers: admin(), json: { title: 'Song', playedAt: 9_000_000_000_000_000 } });
    expect(huge.status).toBe(400);
    expect((await json(huge)).message).toMatch(/^playedAt: /);
    const ok = await server.api('/api/play-events', { method: 'POST', headers: admin(), json: { title: 'Fine', playedAt: 1_700_000_000_000 } });
    expect(ok.status).toBe(201);
    // A row stored before the check existed.
    server.ctx.db
      .prepare('INSERT INTO play_events (user_id, title, played_at, source, created_at) VALUES (1, ?, ?, ?, ?)')
      .run('Poisoned', 99999999999999999, 'subsonic', 1_700_000_500_000);
    const list = await server.api('/api/play-events', { headers: admin() });
    expect(list.status).toBe(200);
    const items = (await json(list)).items as { title: string; playedAt: string | null }[];
    expect(items.map((i) => [i.title, i.playedAt])).toEqual([
      ['Poisoned', null],
      ['Fine', '2023-11-14T22:13:20.000Z'],
    ]);
    server.ctx.db.prepare("DELETE FROM play_events WHERE title = 'Poisoned'").run();
  });
});
