import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_STALE_MS } from '../../server/domain/discovery/service.js';
import { startDeezerFake, type DeezerFake } from '../fakes/deezer/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { json } from './helpers.js';

/** Preset artwork (sharp, cached on disk), Deezer previews, POST /api/discover/clear, and the 15-minute check. */

let server: TestServer;
let lastfm: LastFmFake;
let deezer: DeezerFake;

beforeAll(async () => {
  [lastfm, deezer] = await Promise.all([
    startLastFmFake([
      { name: 'Indie One', tags: ['indie'], listeners: 900 },
      { name: 'Indie Two', tags: ['indie'], listeners: 800 },
    ]),
    startDeezerFake([
      { id: 11, name: 'Indie One', top: [{ id: 101, title: 'First Song', durationS: 200, rank: 900, album: { id: 1001, title: 'First Album' } }] },
      { id: 12, name: 'Indie Two', top: [{ id: 102, title: 'No Preview', durationS: 200, rank: 900, preview: false }] },
    ]),
  ]);
  server = await startTestServer({
    env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_DEEZER_URL: deezer.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
  });
  expect((await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } } } })).status).toBe(200);
});
afterAll(async () => {
  await Promise.all([server.stop(), lastfm.close(), deezer.close()]);
});

describe('discover presets', () => {
  it('draws a PNG cover per preset and size once, then serves the cached file', async () => {
    const res = await server.api('/api/discover/artwork/indie-discoveries?size=200', { token: server.admin.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([200, 200]);
    const file = path.join(server.dataDir, 'discover-artwork', 'indie-discoveries-200-v1.png');
    const mtime = fs.statSync(file).mtimeMs;
    const again = await server.api('/api/discover/artwork/indie-discoveries?size=200', { token: server.admin.token });
    expect(again.status).toBe(200);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    const etag = again.headers.get('etag')!;
    expect((await server.api('/api/discover/artwork/indie-discoveries?size=200', { token: server.admin.token, headers: { 'if-none-match': etag } })).status).toBe(304);
    expect(await json(await server.api('/api/discover/artwork/nope', { token: server.admin.token }), 404)).toMatchObject({ error: 'Preset not found' });
  });

  it('previews come from Deezer for the preset artists that have one, and are cached', async () => {
    const body = await json(await server.api('/api/discover/playlists/indie-discoveries/previews', { token: server.admin.token }));
    expect(body.previews).toEqual([expect.objectContaining({ artistName: 'Indie One', trackTitle: 'First Song', deezerTrackId: 101, previewUrl: expect.stringContaining('/preview/101') })]);
    const calls = deezer.requests.length;
    await json(await server.api('/api/discover/playlists/indie-discoveries/previews', { token: server.admin.token }));
    expect(deezer.requests.length).toBe(calls);
  });

  it('clear removes cached links, fetched pictures nobody else uses and provider caches, and nothing else', async () => {
    const db = server.ctx.db;
    const now = Date.now();
    db.prepare("INSERT INTO remote_images (cache_key, url, image_key, created_at) VALUES ('k1', 'https://x.example/a.jpg', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', ?)").run(now);
    db.prepare("INSERT INTO remote_images (cache_key, url, image_key, created_at) VALUES ('k2', 'https://x.example/b.jpg', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', ?)").run(now);
    db.prepare("INSERT INTO library_images (cache_key, mime, bytes, origin, created_at) VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'image/jpeg', 3, 'remote', ?)").run(now);
    db.prepare("INSERT INTO library_images (cache_key, mime, bytes, origin, created_at) VALUES ('bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'image/jpeg', 3, 'folder', ?)").run(now);
    // (The previews registered a third link: the album cover.) The second picture is also a library artist's artwork: it stays.
    db.prepare("INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, image_key) VALUES ('name:pic', 'Pic', 'pic', 0, 0, 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')").run();
    const images = path.join(server.dataDir, 'images');
    for (const k of ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb']) {
      fs.mkdirSync(path.join(images, k.slice(0, 2)), { recursive: true });
      fs.writeFileSync(path.join(images, k.slice(0, 2), k), 'img');
    }
    db.prepare("INSERT INTO metadata_cache (kind, key, payload, fetched_at) VALUES ('artist', 'x', '{}', ?)").run(now);
    db.prepare("INSERT INTO metadata_overrides (artist_mbid, deezer_artist_id, updated_at) VALUES ('m', '1', ?)").run(now);
    await json(await server.api('/api/discover/feedback', { method: 'POST', token: server.admin.token, json: { artistName: 'Someone', kind: 'less' } }), 201);

    const user = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'plain', password: 'password-123' } });
    expect(user.status).toBeLessThan(300);
    const plain = await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'plain', password: 'password-123' } }));
    expect((await server.api('/api/discover/clear', { method: 'POST', token: plain.token })).status).toBe(403);

    const cleared = await json(await server.api('/api/discover/clear', { method: 'POST', token: server.admin.token }));
    expect(cleared).toMatchObject({ success: true, clearedImageLinks: 3, clearedImageFiles: 1 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM remote_images').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT cache_key FROM library_images ORDER BY cache_key').all()).toEqual([{ cache_key: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' }]);
    expect(fs.existsSync(path.join(images, 'aa', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'))).toBe(false);
    expect(fs.existsSync(path.join(images, 'bb', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'))).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM metadata_cache').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM metadata_overrides').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM discovery_feedback').get()).toEqual({ n: 1 });
  });

  it('the 15-minute check queues the discovery users whose recommendations are stale, and only those', async () => {
    const service = server.ctx.discovery;
    await service.refreshUser(1);
    // The admin is fresh; the plain user never opened Discover, so no upstream calls are spent on them.
    expect(service.check()).toBe(0);
    server.clock.advance(USER_STALE_MS + 60_000);
    expect(service.check()).toBe(1);
    // Already queued: not queued twice.
    expect(service.enqueue(1).created).toBe(false);
  });
});
