import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, xmlParser, type Fixture } from './harness.js';

let fx: Fixture;
let server: TestServer;
let admin: RestClient;
let listener: RestClient;
let post: { id: string; armyOfMe: string; hyperballad: string; bjork: string };
let abbey: { id: string; comeTogether: string };

const LISTENER = { username: 'listener', password: 'listener-password' };
const SHARE_ID = /^[0-9A-Za-z]{22}$/;

const setSharing = async (enabled: boolean) => {
  const r = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { sharing: { enabled } } });
  expect(r.status).toBe(200);
  expect(((await r.json()) as { sharing: { enabled: boolean } }).sharing).toEqual({ enabled });
};

const entryIds = (share: { entry?: { id: string }[] }) => (share.entry ?? []).map((e) => e.id);

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-shares-'));
  fx = makeLibrary(dir, { bulk: false });
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  await server.api('/api/users', { method: 'POST', token: server.admin.token, json: LISTENER });
  listener = new RestClient(server, LISTENER);
  const army = (await admin.ok('search3', { query: 'Army of Me', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
  const album = await admin.ok('getAlbum', { id: army.albumId });
  post = { id: army.albumId, armyOfMe: army.id, hyperballad: album.album.song[1].id, bjork: army.artistId };
  const come = (await admin.ok('search3', { query: 'Come Together', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
  abbey = { id: come.albumId, comeTogether: come.id };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('sharing off (the default)', () => {
  it('the four methods answer error 50 naming the setting; shareRole is false', async () => {
    for (const [method, params] of [
      ['getShares', {}],
      ['createShare', { id: post.armyOfMe }],
      ['updateShare', { id: 'x', description: 'd' }],
      ['deleteShare', { id: 'x' }],
    ] as const) {
      const r = await admin.json(method, params);
      expect(r.status).toBe('failed');
      expect(r.error.code).toBe(50);
      expect(r.error.message).toContain('sharing.enabled');
    }
    expect((await admin.ok('getUser', { username: 'admin' })).user.shareRole).toBe(false);
  });

  it('/share paths are 404 pages, never the web UI', async () => {
    for (const p of ['/share', '/share/', '/share/AAAAAAAAAAAAAAAAAAAAAA', '/share/AAAAAAAAAAAAAAAAAAAAAA/tr-00000000000000', '/share/a/b/c']) {
      const r = await fetch(server.url + p);
      expect(r.status, p).toBe(404);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await r.text()).toContain('There is no such share');
    }
  });
});

describe('sharing on', () => {
  beforeAll(() => setSharing(true));
  afterAll(() => setSharing(false));

  it('createShare shares songs and albums: random id, url, entries in order without repeats', async () => {
    expect((await admin.ok('getUser', { username: 'admin' })).user.shareRole).toBe(true);
    const expires = server.clock.now() + 3_600_000;
    const r = await admin.ok('createShare', { id: [abbey.comeTogether, post.id, post.armyOfMe], description: 'Road trip', expires });
    const share = r.shares.share[0];
    expect(share.id).toMatch(SHARE_ID);
    expect(share).toMatchObject({
      url: `${server.url}/share/${share.id}`,
      description: 'Road trip',
      username: 'admin',
      expires: new Date(expires).toISOString(),
      visitCount: 0,
    });
    expect(share.lastVisited).toBeUndefined();
    expect(entryIds(share)).toEqual([abbey.comeTogether, post.armyOfMe, post.hyperballad]);
    // Library entries are kept by their stable key, never by a row id a prune could hand to another track.
    expect(server.ctx.db.prepare('SELECT kind, target FROM share_entries WHERE share_id = ? ORDER BY position').all(share.id)).toEqual([
      { kind: 'track', target: abbey.comeTogether.slice(3) },
      { kind: 'album', target: post.id.slice(3) },
      { kind: 'track', target: post.armyOfMe.slice(3) },
    ]);
    const second = (await admin.ok('createShare', { id: post.armyOfMe })).shares.share[0];
    expect(second.id).not.toBe(share.id);
    const listed = (await admin.ok('getShares')).shares.share as { id: string }[];
    expect(listed.map((s) => s.id)).toEqual([share.id, second.id]);
  });

  it('the public page lists the tracks with a player, needs no login, and counts visits', async () => {
    const share = (await admin.ok('createShare', { id: post.id, description: '<Björk & co>' })).shares.share[0];
    const page = await fetch(share.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<title>&lt;Björk &amp; co&gt;</title>');
    expect(html).toContain('Army of Me');
    expect(html).toContain('Hyperballad');
    expect(html).toContain(`<audio controls preload="none" src="/share/${share.id}/${post.armyOfMe}"></audio>`);
    expect(html).not.toContain('Come Together');
    await fetch(share.url);
    const after = ((await admin.ok('getShares')).shares.share as any[]).find((s) => s.id === share.id);
    expect(after.visitCount).toBe(2);
    expect(after.lastVisited).toBe(new Date(server.clock.now()).toISOString());
  });

  it('a share streams the files it contains, with ranges, and nothing else', async () => {
    const share = (await admin.ok('createShare', { id: post.armyOfMe })).shares.share[0];
    const original = fs.readFileSync(path.join(fx.music, 'Björk', 'Post', '01 Army of Me.flac'));
    const full = await fetch(`${share.url}/${post.armyOfMe}`);
    expect(full.status).toBe(200);
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await full.arrayBuffer()).equals(original)).toBe(true);
    const part = await fetch(`${share.url}/${post.armyOfMe}`, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(original.subarray(0, 10))).toBe(true);
    for (const other of [post.hyperballad, abbey.comeTogether, 'tr-00000000000000', 'al-00000000000000', '..%2F..%2Fetc%2Fpasswd']) {
      const r = await fetch(`${share.url}/${other}`);
      expect(r.status, other).toBe(404);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    // Streams are not page visits.
    expect(((await admin.ok('getShares')).shares.share as any[]).find((s) => s.id === share.id).visitCount).toBe(0);
  });

  it('artists and playlists can be shared; a playlist only by someone who can read it', async () => {
    const artist = (await admin.ok('createShare', { id: post.bjork })).shares.share[0];
    expect(entryIds(artist).sort()).toEqual([post.armyOfMe, post.hyperballad].sort());
    const { playlist } = await listener.ok('createPlaylist', { name: 'Mine', songId: [post.hyperballad, abbey.comeTogether] });
    expect((await admin.json('createShare', { id: playlist.id })).error.code).toBe(70);
    const shared = (await listener.ok('createShare', { id: playlist.id })).shares.share[0];
    expect(entryIds(shared)).toEqual([post.hyperballad, abbey.comeTogether]);
    expect((await fetch(`${shared.url}/${abbey.comeTogether}`)).status).toBe(200);
    // The share follows the playlist: a track removed from it can no longer be streamed.
    await listener.ok('updatePlaylist', { playlistId: playlist.id, songIndexToRemove: [1] });
    expect((await fetch(`${shared.url}/${abbey.comeTogether}`)).status).toBe(404);
  });

  it('owners (and administrators) manage shares; others cannot see or change them', async () => {
    const share = (await listener.ok('createShare', { id: post.armyOfMe, description: 'first' })).shares.share[0];
    const mine = (await listener.ok('getShares')).shares.share as { id: string; username: string }[];
    expect(mine.every((s) => s.username === 'listener')).toBe(true);
    expect(mine.map((s) => s.id)).toContain(share.id);
    expect(((await admin.ok('getShares')).shares.share as { id: string }[]).map((s) => s.id)).toContain(share.id);

    const expires = server.clock.now() + 86_400_000;
    await listener.ok('updateShare', { id: share.id, description: 'second', expires });
    let got = ((await listener.ok('getShares')).shares.share as any[]).find((s) => s.id === share.id);
    expect([got.description, got.expires]).toEqual(['second', new Date(expires).toISOString()]);
    await listener.ok('updateShare', { id: share.id, expires: 0 });
    got = ((await listener.ok('getShares')).shares.share as any[]).find((s) => s.id === share.id);
    expect([got.description, got.expires]).toEqual(['second', undefined]);

    const other = (await admin.ok('createShare', { id: post.armyOfMe })).shares.share[0];
    expect((await listener.json('updateShare', { id: other.id, description: 'mine now' })).error.code).toBe(70);
    expect((await listener.json('deleteShare', { id: other.id })).error.code).toBe(70);
    await admin.ok('updateShare', { id: share.id, description: 'moderated' });

    await listener.ok('deleteShare', { id: share.id });
    expect((await fetch(share.url)).status).toBe(404);
    expect(((await listener.ok('getShares')).shares.share as { id: string }[]).map((s) => s.id)).not.toContain(share.id);
    expect((await listener.json('deleteShare', { id: share.id })).error.code).toBe(70);
  });

  it('bad input gets clear errors', async () => {
    expect((await admin.json('createShare', {})).error.code).toBe(10);
    expect((await admin.json('createShare', { id: 'tr-00000000000000' })).error.code).toBe(70);
    expect((await admin.json('createShare', { id: post.armyOfMe, expires: server.clock.now() - 1 })).error).toMatchObject({ code: 0, message: expect.stringContaining('expires') });
    expect((await admin.json('createShare', { id: post.armyOfMe, expires: 'soon' })).error.code).toBe(0);
    expect((await admin.json('updateShare', { description: 'x' })).error.code).toBe(10);
    expect((await admin.json('updateShare', { id: 'AAAAAAAAAAAAAAAAAAAAAA', description: 'x' })).error.code).toBe(70);
  });

  it('an expired share answers 410 for its page and its streams', async () => {
    const share = (await admin.ok('createShare', { id: post.armyOfMe, expires: server.clock.now() + 60_000 })).shares.share[0];
    expect((await fetch(share.url)).status).toBe(200);
    server.clock.advance(120_000);
    const page = await fetch(share.url);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This share has expired');
    expect((await fetch(`${share.url}/${post.armyOfMe}`)).status).toBe(410);
    // Still listed for its owner, who may extend it.
    await admin.ok('updateShare', { id: share.id, expires: server.clock.now() + 60_000 });
    expect((await fetch(share.url)).status).toBe(200);
  });

  it('XML carries the same share with its entries', async () => {
    const share = (await admin.ok('createShare', { id: abbey.comeTogether, description: 'xml' })).shares.share[0];
    const doc = xmlParser.parse(await admin.xml('getShares'));
    const shares = doc['subsonic-response'].shares.share as any[];
    const found = shares.find((s) => s['@id'] === share.id);
    expect(found).toMatchObject({ '@url': share.url, '@description': 'xml', '@username': 'admin', '@visitCount': '0' });
    expect(found.entry).toMatchObject({ '@id': abbey.comeTogether, '@title': 'Come Together' });
  });

  it('turning sharing off closes every share at once', async () => {
    const share = (await admin.ok('createShare', { id: post.armyOfMe })).shares.share[0];
    await setSharing(false);
    expect((await fetch(share.url)).status).toBe(404);
    expect((await fetch(`${share.url}/${post.armyOfMe}`)).status).toBe(404);
    expect((await admin.json('getShares')).error.code).toBe(50);
    await setSharing(true);
    expect((await fetch(share.url)).status).toBe(200);
  });
});
