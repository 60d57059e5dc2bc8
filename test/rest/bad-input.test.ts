import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../../server/db/connection.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, xmlParser, type Fixture } from './harness.js';

let fx: Fixture;
let server: TestServer;
let client: RestClient;
let song: { id: string; albumId: string; trackId: number };

beforeAll(async () => {
  fx = makeLibrary(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-bad-')), { bulk: false });
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  client = new RestClient(server, ADMIN);
  const found = (await client.ok('search3', { query: 'Army of Me' })).searchResult3.song[0];
  const trackId = server.ctx.db.prepare("SELECT id FROM library_tracks WHERE title = 'Army of Me'").pluck().get() as number;
  song = { id: found.id, albumId: found.albumId, trackId };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (fx) fs.rmSync(fx.dir, { recursive: true, force: true });
});

const failure = async (method: string, params: Record<string, string>) => {
  const r = await client.json(method, params);
  expect(r.status).toBe('failed');
  return r.error as { code: number; message: string };
};

describe('parameters', () => {
  it('a NUL in a parameter is error 0 naming it, not an SQLite failure', async () => {
    expect(await failure('search3', { query: 'a\u0000b' })).toEqual({ code: 0, message: 'Invalid parameter query: contains a NUL character' });
    expect(await failure('getSong', { id: `${song.id}\u0000` })).toEqual({ code: 0, message: 'Invalid parameter id: contains a NUL character' });
  });

  it('an integer past 2^53 is error 0 "out of range", not an SQLite failure', async () => {
    const outOfRange = (name: string) => ({ code: 0, message: `Invalid parameter ${name}: out of range (at most 9007199254740991 in magnitude)` });
    expect(await failure('search3', { query: 'a', songOffset: '99999999999999999999' })).toEqual(outOfRange('songOffset'));
    expect(await failure('search3', { query: 'a', songOffset: '9223372036854775808' })).toEqual(outOfRange('songOffset'));
    expect(await failure('getAlbumList2', { type: 'newest', offset: '99999999999999999999' })).toEqual(outOfRange('offset'));
    // Large but exact offsets are just past the end: an empty page.
    expect((await client.ok('search3', { query: '', songOffset: '9007199254740991' })).searchResult3.song ?? []).toEqual([]);
    expect((await client.ok('getAlbumList2', { type: 'newest', offset: '9007199254740991' })).albumList2.album ?? []).toEqual([]);
  });
});

describe('scrobble times', () => {
  it('refuses a time no date can show, and stores nothing', async () => {
    const before = server.ctx.db.prepare('SELECT COUNT(*) FROM play_events').pluck().get();
    expect(await failure('scrobble', { id: song.id, time: '9000000000000000' })).toEqual({
      code: 0,
      message: 'Invalid parameter time: must be milliseconds since 1970, before the year 10000',
    });
    expect((await failure('scrobble', { id: song.id, time: '99999999999999999' })).message).toMatch(/^Invalid parameter time: out of range/);
    expect(await failure('scrobble', { id: song.id, time: '-1' })).toMatchObject({ code: 0 });
    expect(server.ctx.db.prepare('SELECT COUNT(*) FROM play_events').pluck().get()).toBe(before);
    await client.ok('scrobble', { id: song.id, time: '1700000000000' });
    expect((await client.ok('getSong', { id: song.id })).song.played).toBe('2023-11-14T22:13:20.000Z');
  });

  it('reads survive a bad stored play time, and migration 032 repairs it', async () => {
    const db = server.ctx.db;
    const userId = server.ctx.users.list().find((u) => u.username === ADMIN.username)!.id;
    // What one bad scrobble stored before the check existed.
    db.prepare(
      `INSERT INTO play_events (user_id, track_id, title, played_at, source, created_at) VALUES (?, ?, 'Army of Me', 9000000000000000, 'subsonic', 1700000100000)`,
    ).run(userId, song.trackId);
    db.prepare(`UPDATE subsonic_play_stats SET last_played_at = 9000000000000000 WHERE user_id = ?`).run(userId);

    const songNow = (await client.ok('getSong', { id: song.id })).song;
    expect(songNow.played).toBeUndefined();
    expect(songNow.playCount).toBe(1);
    await client.ok('getAlbum', { id: song.albumId });
    await client.ok('search3', { query: 'Army' });
    await client.ok('getRandomSongs', { size: 10 });
    await client.ok('getAlbumList2', { type: 'recent' });
    const events = await server.api('/api/play-events', { token: server.admin.token });
    expect(events.status).toBe(200);
    expect(((await events.json()) as { items: { playedAt: string | null }[] }).items[0]!.playedAt).toBeNull();

    db.exec(loadMigrations().find((m) => m.version === 32)!.sql);
    const times = db.prepare('SELECT played_at FROM play_events WHERE user_id = ? ORDER BY id').pluck().all(userId);
    expect(times).toEqual([1_700_000_000_000, 1_700_000_100_000]);
    expect((await client.ok('getSong', { id: song.id })).song.played).toBe(new Date(1_700_000_100_000).toISOString());
    expect((await client.ok('getAlbum', { id: song.albumId })).album.played).toBe(new Date(1_700_000_100_000).toISOString());
  });
});

describe('bodies /rest cannot read', () => {
  const post = (query: string, headers: Record<string, string>, body: string) =>
    fetch(`${server.url}/rest/ping?${query}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

  it('answers a Subsonic error in the asked format (HTTP 200, like every protocol error)', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ 'content-encoding': 'gzip' }, 'not gzip', 'Request body could not be decoded'],
      [{ 'content-encoding': 'x-squash' }, 'u=a', 'Unsupported Content-Encoding "x-squash"'],
      [{ 'content-type': 'application/x-www-form-urlencoded; charset=klingon' }, 'u=a', 'Unsupported charset "klingon"'],
      [{}, `pad=${'x'.repeat(5 * 1024 * 1024 + 10)}`, 'Request body exceeds limit (5mb)'],
    ];
    for (const [headers, body, message] of cases) {
      const asJson = await post('f=json', headers, body);
      expect(asJson.status).toBe(200);
      expect(asJson.headers.get('content-type')).toMatch(/^application\/json/);
      const r = ((await asJson.json()) as any)['subsonic-response'];
      expect([r.status, r.error]).toEqual(['failed', { code: 0, message }]);
      const asXml = await post('f=xml', headers, body);
      expect(asXml.headers.get('content-type')).toMatch(/^text\/xml/);
      const x = xmlParser.parse(await asXml.text())['subsonic-response'];
      expect([x['@status'], x.error['@code'], x.error['@message']]).toEqual(['failed', '0', message]);
    }
  });
});
