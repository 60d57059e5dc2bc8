import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtistRecord } from '../fakes/lidarr/index.js';
import { makeUser, setup, type Setup } from './helpers.js';

let s: Setup;
let hook: string;
const LIDARR_ROOT = '/data/music';

/** Lidarr's path → where the test mounted it. */
const local = (p: string) => path.join(s.root, path.relative(LIDARR_ROOT, p));

async function job(id: string) {
  await s.indexed();
  return (await s.call('GET', `/api/library/refresh/${id}`)).body;
}

beforeAll(async () => {
  s = await setup({ rootFolderPath: LIDARR_ROOT });
  s.fake.seedLibrary({ artists: 5, albumsPerArtist: 2, tracksPerAlbum: 3, withFiles: true, rootFolderPath: LIDARR_ROOT });
  // Only the first artist's first album is on this computer's disk.
  const lib = s.fake.state.library;
  const first = lib.albumsOf(lib.artists.get(1)!)[0]!;
  for (let i = 0; i < first.trackCount; i++) {
    const file = local(lib.trackFilePath(first, i));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `fLaC track ${i}`);
  }
  s.fake.state.resetCounts();
  // Changing the path mappings starts a full index.
  await s.call('POST', '/api/settings', { integrations: { lidarr: { pathMappings: [{ from: LIDARR_ROOT, to: s.root }] } } });
  await s.indexed();
  hook = `/api/webhooks/lidarr?api_key=${s.server.apiKey}`;
});
afterAll(() => s.close());

describe('indexing Lidarr into the canonical library', () => {
  it('indexes every artist, album and track, with availability checked on disk through the path mapping', async () => {
    const count = (kind: string, extra = '') => s.call('GET', `/api/library/canonical?kind=${kind}&pageSize=1&source=lidarr${extra}`).then((r) => r.body.total);
    expect(await count('artists')).toBe(5);
    expect(await count('albums')).toBe(10);
    expect(await count('tracks')).toBe(30);
    expect(await count('tracks', '&availableOnly=true')).toBe(3);
    // One /artist, then /album, /track and /trackfile per changed artist.
    expect(s.fake.state.countOf('GET /artist')).toBe(1);
    expect(s.fake.state.countOf('GET /track')).toBe(5);
    expect(s.fake.state.countOf('GET /trackFile')).toBe(5);
    const tracks = await s.call('GET', '/api/library/canonical?kind=tracks&pageSize=100&source=lidarr&availableOnly=true');
    const stream = await s.server.api(`/api/library/canonical-stream/${tracks.body.items[0].id}`, { headers: s.server.admin.headers });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toMatch(/^fLaC track \d$/);
  });

  it('skips artists whose Lidarr statistics are unchanged: a no-op run reads /artist only', async () => {
    s.fake.state.resetCounts();
    const id = s.server.ctx.lidarr.index.requestFull('test');
    const run = await job(String(id));
    expect(run).toMatchObject({ status: 'completed', filesSkipped: 30 });
    expect(s.fake.state.requestCount).toBe(1);
  });

  it('re-indexes a changed artist only', async () => {
    const lib = s.fake.state.library;
    lib.artists.get(3)!.monitored = false;
    s.fake.state.resetCounts();
    await job(String(s.server.ctx.lidarr.index.requestFull('test')));
    expect(s.fake.state.countOf('GET /track')).toBe(1);
    expect(s.fake.state.countOf('GET /artist')).toBe(1);
  });

  it('keeps one index worker for consecutive runs (a webhook re-index pays no thread start)', async () => {
    const index = s.server.ctx.lidarr.index;
    await job(String(index.requestArtists([2], 'test')));
    expect(index.hasWorker()).toBe(true);
    const thread = index.workerThreadId();
    expect(thread).not.toBeNull();
    const run = await job(String(index.requestArtists([2], 'test')));
    expect(run).toMatchObject({ status: 'completed' });
    expect(index.workerThreadId()).toBe(thread);
  });

  it('refuses a Lidarr file swapped for a link out of the root folder, and the next index reports it', async () => {
    const tracks = await s.call('GET', '/api/library/canonical?kind=tracks&pageSize=100&source=lidarr&availableOnly=true');
    const trackId = tracks.body.items[0].id;
    const { path: file } = s.server.ctx.db.prepare("SELECT path FROM library_media_files WHERE track_id = ? AND source = 'lidarr'").get(trackId) as { path: string };
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-lidarr-outside-'));
    const original = fs.readFileSync(file);
    try {
      fs.writeFileSync(path.join(outside, 'secret.flac'), 'fLaC SECRET');
      fs.rmSync(file);
      fs.symlinkSync(path.join(outside, 'secret.flac'), file);
      const stream = await s.server.api(`/api/library/canonical-stream/${trackId}`, { headers: s.server.admin.headers });
      expect(stream.status).toBe(404);
      expect(await stream.text()).not.toContain('SECRET');

      const index = s.server.ctx.lidarr.index;
      const run = await job(String(index.requestArtists([1], 'test')));
      expect(run.errors).toContainEqual({ path: file, reason: 'symbolic link to a place outside the Lidarr root folder' });
      const row = s.server.ctx.db.prepare("SELECT available FROM library_media_files WHERE track_id = ? AND source = 'lidarr'").get(trackId);
      expect(row).toEqual({ available: 0 });
    } finally {
      fs.rmSync(file, { force: true });
      fs.writeFileSync(file, original);
      fs.rmSync(outside, { recursive: true, force: true });
      await job(String(s.server.ctx.lidarr.index.requestArtists([1], 'test')));
    }
  });
});

describe('POST /api/webhooks/lidarr', () => {
  const send = (event: Parameters<Setup['fake']['sendWebhook']>[1], options: Parameters<Setup['fake']['sendWebhook']>[2] = {}) =>
    s.fake.sendWebhook(`${s.server.url}${hook}`, event, options);

  it('Download, Rename and Retag re-index that artist only', async () => {
    for (const event of ['Download', 'Rename', 'Retag'] as const) {
      s.fake.state.resetCounts();
      const delivery = await send(event, { artistId: 2 });
      expect(delivery.status).toBe(200);
      const body = JSON.parse(delivery.body);
      expect(body).toMatchObject({ handled: true, scanJobId: expect.any(String) });
      const run = await job(body.scanJobId);
      expect(run.status).toBe('completed');
      expect(s.fake.state.countOf('GET /artist/{id}')).toBe(1);
      expect(s.fake.state.countOf('GET /track')).toBe(1);
      expect(s.fake.state.countOf('GET /artist')).toBe(0);
    }
  });

  it('AlbumDelete re-indexes the artist and the album leaves the library', async () => {
    const lib = s.fake.state.library;
    const artist = lib.artists.get(4)!;
    const album = lib.albumsOf(artist)[0]!;
    const snapshot = { ...album };
    lib.deleteAlbum(album, false);
    const delivery = await send('AlbumDelete', { artist, album: snapshot });
    expect(delivery.status).toBe(200);
    await job(JSON.parse(delivery.body).scanJobId);
    const albums = await s.call('GET', `/api/library/albums?artistId=${artist.foreignArtistId}`);
    expect(albums.body.map((a: any) => a.mbid)).toEqual(lib.albumsOf(artist).map((a) => a.foreignAlbumId));
  });

  it('ArtistDelete runs a full reconciliation and the artist leaves the library', async () => {
    const lib = s.fake.state.library;
    const artist: ArtistRecord = { ...lib.artists.get(5)! };
    lib.deleteArtist(lib.artists.get(5)!, false);
    s.fake.state.resetCounts();
    const delivery = await send('ArtistDelete', { artist });
    expect(delivery.status).toBe(200);
    await job(JSON.parse(delivery.body).scanJobId);
    expect(s.fake.state.countOf('GET /artist')).toBe(1);
    expect((await s.call('GET', `/api/library/artists/${artist.foreignArtistId}`)).status).toBe(404);
    expect((await s.call('GET', '/api/library/canonical?kind=artists&pageSize=1&source=lidarr')).body.total).toBe(4);
  });

  it('answers 204 to Test and unknown events', async () => {
    expect((await send('Test')).status).toBe(204);
    const health = await s.server.api(hook, { method: 'POST', json: { eventType: 'Health', level: 'warning', message: 'x' } });
    expect(health.status).toBe(204);
  });

  it('marks the matching album request available on Download', async () => {
    const lib = s.fake.state.library;
    const album = lib.albumsOf(lib.artists.get(1)!)[1]!;
    s.server.ctx.db
      .prepare(
        `INSERT INTO lidarr_requests (kind, request_key, album_mbid, artist_name, title, lidarr_album_id, status, created_at, updated_at)
         VALUES ('album', ?, ?, 'x', ?, ?, 'processing', 0, 0)`,
      )
      .run(album.foreignAlbumId, album.foreignAlbumId, album.title, album.id);
    const delivery = await send('Download', { albumId: album.id });
    expect(JSON.parse(delivery.body)).toMatchObject({ handled: true, requestsCompleted: 1 });
    const list = (await s.call('GET', '/api/requests')).body as any[];
    expect(list.find((r) => r.albumMbid === album.foreignAlbumId)).toMatchObject({ status: 'available', kind: 'album_requested' });
  });

  it('rejects invalid bodies with 400 and missing credentials with 401, never crashing', async () => {
    for (const body of [{}, { eventType: 42 }, [], 'Download', { eventType: 'Download', artist: { id: 'seven' } }]) {
      const res = await s.server.api(hook, { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as any).code).toBe('VALIDATION_ERROR');
    }
    const broken = await s.server.api(hook, { method: 'POST', body: '{"eventType":', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    const anonymous = await s.server.api('/api/webhooks/lidarr', { method: 'POST', json: { eventType: 'Test' } });
    expect(anonymous.status).toBe(401);
  });

  it('takes the API key or an administrator only: another account gets 403 and nothing happens', async () => {
    const lib = s.fake.state.library;
    const album = lib.albumsOf(lib.artists.get(3)!)[1]!;
    s.server.ctx.db
      .prepare(
        `INSERT INTO lidarr_requests (kind, request_key, album_mbid, artist_name, title, lidarr_album_id, status, created_at, updated_at)
         VALUES ('album', ?, ?, 'x', ?, ?, 'processing', 0, 0)`,
      )
      .run(album.foreignAlbumId, album.foreignAlbumId, album.title, album.id);
    const userHeaders = await makeUser(s, 'webhook-user', { addAlbum: true });
    s.fake.state.resetCounts();
    for (const path of ['/api/webhooks/lidarr', '/api/webhooks/libmgr']) {
      const res = await s.fake.sendWebhook(`${s.server.url}${path}`, 'Download', { albumId: album.id, headers: userHeaders });
      expect(res.status, path).toBe(403);
    }
    const basic = await s.fake.sendWebhook(`${s.server.url}/api/webhooks/lidarr`, 'Download', { albumId: album.id, basicAuth: { username: 'webhook-user', password: 'a long enough password' } });
    expect(basic.status).toBe(403);
    expect(s.fake.state.countOf('GET /artist/{id}')).toBe(0);
    const stored = () => (s.server.ctx.db.prepare('SELECT status FROM lidarr_requests WHERE album_mbid = ?').get(album.foreignAlbumId) as { status: string }).status;
    expect(stored()).toBe('processing');
    // The administrator's own credentials still work.
    const admin = await s.fake.sendWebhook(`${s.server.url}/api/webhooks/lidarr`, 'Download', { albumId: album.id, basicAuth: { username: 'admin', password: 'correct horse battery' } });
    expect(JSON.parse(admin.body)).toMatchObject({ handled: true, requestsCompleted: 1 });
    expect(stored()).not.toBe('processing');
    await s.indexed();
  });

  it('accepts Basic auth and the neutral path /api/webhooks/libmgr', async () => {
    const basic = await s.fake.sendWebhook(`${s.server.url}/api/webhooks/libmgr`, 'Retag', {
      artistId: 1,
      basicAuth: { username: 'admin', password: 'correct horse battery' },
    });
    expect(basic.status).toBe(200);
    expect(JSON.parse(basic.body).handled).toBe(true);
    await s.indexed();
  });
});
