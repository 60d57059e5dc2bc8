import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryWriter } from '../../server/db/libraryWrites.js';
import { refreshDerived } from '../../server/db/libraryDerived.js';
import { playQueues } from '../../server/db/libraryUserData.js';
import { holdScans } from '../helpers/holdScans.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeAudioFile, makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

let dir: string;
let music: string;
let server: TestServer;
let userToken: string;

type Json = Record<string, any>;

async function get(pathname: string, headers: Record<string, string> = server.admin.headers): Promise<{ status: number; body: any }> {
  const res = await server.api(pathname, { headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function post(pathname: string, json: unknown, headers: Record<string, string> = server.admin.headers) {
  const res = await server.api(pathname, { method: 'POST', json, headers });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitForJob(jobId: string): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    const { body } = await get(`/api/library/refresh/${jobId}`);
    if (body.status === 'completed' || body.status === 'failed') return body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('scan did not finish');
}

async function scanNow(mode: 'quick' | 'full' = 'quick') {
  const { status, body } = await post('/api/library/refresh', { mode });
  expect(status).toBe(202);
  return waitForJob(body.jobId);
}

const page = (query: string) => get(`/api/library/canonical?${query}`);
const user = () => ({ authorization: `Bearer ${userToken}` });
const apiKey = () => ({ 'x-api-key': server.apiKey });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-libapi-'));
  music = path.join(dir, 'music');
  const cover = makeCoverImage(path.join(dir, 'cover.png'), 'blue');
  makeAudioFile(path.join(music, 'Björk', 'Post', '01 Army of Me.mp3'), 'mp3', {
    title: 'Army of Me', artist: 'Björk', albumArtist: 'Björk', album: 'Post', track: 1, date: '1995', genre: 'Electronic',
    musicbrainzReleaseGroupId: 'rg-post', musicbrainzAlbumId: 'rel-post', musicbrainzAlbumArtistId: 'art-bjork', musicbrainzArtistId: 'art-bjork',
  }, { cover });
  makeAudioFile(path.join(music, 'Björk', 'Post', '02 Hyperballad.flac'), 'flac', {
    title: 'Hyperballad', artist: 'Björk', albumArtist: 'Björk', album: 'Post', track: 2, date: '1995', genre: 'Electronic',
    musicbrainzReleaseGroupId: 'rg-post', musicbrainzRecordingId: 'rec-hyper', musicbrainzAlbumArtistId: 'art-bjork', musicbrainzArtistId: 'art-bjork',
  }, { seconds: 3 });
  makeAudioFile(path.join(music, '宇多田ヒカル', 'First Love', '01 Automatic.ogg'), 'ogg', {
    title: 'Automatic', artist: '宇多田ヒカル', album: 'First Love', track: 1, date: '1999', genre: 'J-Pop',
  });
  const template = makeMp3Template(dir);
  for (let i = 1; i <= 5; i++) {
    writeTaggedMp3(path.join(music, 'Abba', 'Gold', `${i}.mp3`), template, {
      title: `Song ${String.fromCharCode(64 + i)}`, artist: 'ABBA', album: 'Gold', track: i, genre: 'Pop', date: '1992',
    });
  }
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await scanNow();
  await post('/api/users', { username: 'listener', password: 'listener-password' });
  const login = await post('/api/auth/login', { username: 'listener', password: 'listener-password' }, {});
  userToken = login.body.token;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/library/canonical', () => {
  it('rejects a missing or unsupported kind and a missing or out-of-range pageSize with INVALID_QUERY', async () => {
    for (const q of ['pageSize=10', 'kind=songs&pageSize=10', 'kind=tracks', 'kind=tracks&pageSize=0', 'kind=tracks&pageSize=101']) {
      const { status, body } = await page(q);
      expect({ q, status, code: body.code }).toEqual({ q, status: 400, code: 'INVALID_QUERY' });
    }
  });

  it('pages tracks by name with totals and hasMore', async () => {
    const first = await page('kind=tracks&pageSize=3');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ kind: 'tracks', page: 1, pageSize: 3, total: 8, hasMore: true, artists: [], albums: [], genres: [] });
    expect(first.body.items.map((t: Json) => t.title)).toEqual(['Army of Me', 'Automatic', 'Hyperballad']);
    expect(first.body.tracks).toEqual(first.body.items);
    const last = await page('kind=tracks&pageSize=3&page=3');
    expect(last.body.items.map((t: Json) => t.title)).toEqual(['Song D', 'Song E']);
    expect(last.body.hasMore).toBe(false);
    const desc = await page('kind=tracks&pageSize=2&direction=desc');
    expect(desc.body.items.map((t: Json) => t.title)).toEqual(['Song E', 'Song D']);
    const track = first.body.items[2];
    expect(track).toMatchObject({
      title: 'Hyperballad', artistName: 'Björk', mbid: 'rec-hyper', identityKey: 'mbid:rec-hyper', trackNumber: 2,
      hasFile: true, available: true, quality: { name: 'FLAC', lossless: true },
    });
    expect(track.files).toHaveLength(1);
    expect(track.files[0]).toMatchObject({ source: 'aurral', format: 'flac', contentType: 'audio/flac', available: true });
    expect(JSON.stringify(first.body)).not.toContain(music);
  });

  it('filters by genre, search (diacritics, CJK, prefixes), artist and album', async () => {
    const pop = await page('kind=tracks&pageSize=10&genre=Pop');
    expect(pop.body.total).toBe(5);
    const folded = await page('kind=artists&pageSize=10&query=bjork');
    expect(folded.body.items.map((a: Json) => a.name)).toEqual(['Björk']);
    const cjk = await page(`kind=artists&pageSize=10&query=${encodeURIComponent('宇多')}`);
    expect(cjk.body.items.map((a: Json) => a.name)).toEqual(['宇多田ヒカル']);
    const substring = await page(`kind=tracks&pageSize=10&query=${encodeURIComponent('ballad')}`);
    expect(substring.body.items.map((t: Json) => t.title)).toEqual(['Hyperballad']);
    const prefix = await page('kind=tracks&pageSize=10&query=so');
    expect(prefix.body.total).toBe(5);
    const artist = (await page('kind=artists&pageSize=10&query=abba')).body.items[0];
    const albums = await page(`kind=albums&pageSize=10&artistId=${artist.id}`);
    expect(albums.body.items.map((a: Json) => a.title)).toEqual(['Gold']);
    const tracks = await page(`kind=tracks&pageSize=2&albumId=${albums.body.items[0].id}&page=2`);
    expect(tracks.body).toMatchObject({ total: 5, hasMore: true });
    expect(tracks.body.items.map((t: Json) => t.trackNumber)).toEqual([3, 4]);
  });

  it('lists genres with counts and sorts albums by year', async () => {
    const genres = await page('kind=genres&pageSize=10');
    expect(genres.body.items).toEqual([
      { id: expect.any(Number), name: 'Electronic', artistCount: 1, albumCount: 1, trackCount: 2 },
      { id: expect.any(Number), name: 'J-Pop', artistCount: 1, albumCount: 1, trackCount: 1 },
      { id: expect.any(Number), name: 'Pop', artistCount: 1, albumCount: 1, trackCount: 5 },
    ]);
    const byYear = await page('kind=albums&pageSize=10&sort=year&direction=desc');
    expect(byYear.body.items.map((a: Json) => [a.title, a.year])).toEqual([['First Love', 1999], ['Post', 1995], ['Gold', 1992]]);
  });
});

describe('library entries and lookups', () => {
  it('serves artists, an artist by MBID, albums and tracks with the Lidarr-style fields', async () => {
    const artists = await get('/api/library/artists?limit=2');
    expect(artists.body.map((a: Json) => a.name)).toEqual(['ABBA', 'Björk']);
    expect((await get('/api/library/artists?limit=10001')).status).toBe(400);
    const bjork = await get('/api/library/artists/art-bjork');
    expect(bjork.body).toMatchObject({
      name: 'Björk', artistName: 'Björk', mbid: 'art-bjork', foreignArtistId: 'art-bjork', managedBy: 'aurral',
      statistics: { albumCount: 1, trackCount: 2 },
    });
    expect(bjork.body.statistics.sizeOnDisk).toBeGreaterThan(0);
    const albums = await get(`/api/library/albums?artistId=${bjork.body.id}`);
    expect(albums.body).toHaveLength(1);
    expect(albums.body[0]).toMatchObject({
      title: 'Post', albumName: 'Post', mbid: 'rg-post', foreignAlbumId: 'rg-post', releaseDate: '1995', artistName: 'Björk',
      statistics: { trackCount: 2, trackFileCount: 2, percentOfTracks: 100 },
    });
    expect(albums.body[0].imageUrl).toMatch(/^\/api\/image-proxy\/[a-f0-9]{32}$/);
    const album = await get('/api/library/albums/rg-post');
    expect(album.body.tracks.map((t: Json) => t.trackName)).toEqual(['Army of Me', 'Hyperballad']);
    const tracks = await get('/api/library/tracks?releaseGroupMbid=rg-post');
    expect(tracks.body.map((t: Json) => [t.trackNumber, t.hasFile])).toEqual([[1, true], [2, true]]);
    expect((await get('/api/library/tracks')).body).toEqual([]);
    expect((await get('/api/library/artists/nope')).status).toBe(404);
  });

  it('answers artist and album lookups', async () => {
    const hit = await get('/api/library/lookup/art-bjork');
    expect(hit.body).toMatchObject({ exists: true, canonical: true, artist: { name: 'Björk' } });
    expect(hit.body.libraryArtistId).toBe(String(hit.body.artist.id));
    expect((await get('/api/library/lookup/missing')).body).toEqual({ exists: false, canonical: false, artist: null, albums: [], libraryArtistId: null });
    const batch = await post('/api/library/lookup/batch', { mbids: ['art-bjork', 'missing'] });
    expect(batch.body).toEqual({ 'art-bjork': true, missing: false });
    const albums = await post('/api/library/albums/lookup/batch', { mbids: ['rg-post', 'rg-missing'] });
    expect(albums.body).toEqual({
      'rg-post': {
        inLibrary: true, monitored: true, libraryAlbumId: expect.any(String), libraryArtistId: expect.any(String),
        status: 'complete', trackCount: 2, trackFileCount: 2, ownedTrackMbids: ['rec-hyper'],
      },
    });
  });

  it('lists recently added artists', async () => {
    const recent = await get('/api/library/recent');
    expect(recent.body).toHaveLength(3);
  });
});

describe('streaming', () => {
  let trackId: number;
  let size: number;
  beforeAll(async () => {
    const t = (await page('kind=tracks&pageSize=1&query=hyperballad')).body.items[0];
    trackId = t.id;
    size = t.size;
  });

  it('streams the whole file with type, validators and Accept-Ranges, and answers HEAD', async () => {
    const res = await server.api(`/api/library/canonical-stream/${trackId}`, { headers: server.admin.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/flac');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(res.headers.get('last-modified')).toBeTruthy();
    expect((await res.arrayBuffer()).byteLength).toBe(size);
    const head = await server.api(`/api/library/stream/${trackId}`, { method: 'HEAD', headers: server.admin.headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(size));
    const again = await server.api(`/api/library/canonical-stream/${trackId}`, {
      headers: { ...server.admin.headers, 'if-none-match': res.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('serves ranges, suffix ranges and 416 for unsatisfiable ones', async () => {
    const range = async (value: string) =>
      server.api(`/api/library/canonical-stream/${trackId}`, { headers: { ...server.admin.headers, range: value } });
    const first = await range('bytes=0-9');
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-9/${size}`);
    expect(Buffer.from(await first.arrayBuffer()).toString('latin1', 0, 4)).toBe('fLaC');
    const suffix = await range('bytes=-10');
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-range')).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    expect((await suffix.arrayBuffer()).byteLength).toBe(10);
    const open = await range(`bytes=${size - 5}-`);
    expect(open.headers.get('content-range')).toBe(`bytes ${size - 5}-${size - 1}/${size}`);
    const clamped = await range(`bytes=0-${size * 2}`);
    expect(clamped.headers.get('content-range')).toBe(`bytes 0-${size - 1}/${size}`);
    const bad = await range(`bytes=${size}-`);
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe(`bytes */${size}`);
    const malformed = await range('bytes=abc');
    expect(malformed.status).toBe(200);
  });

  it('accepts header credentials, ?st= stream tokens and ?token= sessions; refuses none', async () => {
    expect((await server.api(`/api/library/canonical-stream/${trackId}`)).status).toBe(401);
    const st = await post('/api/health/stream-token', {}, user());
    expect((await server.api(`/api/library/canonical-stream/${trackId}?st=${st.body.token}`)).status).toBe(200);
    expect((await server.api(`/api/library/canonical-stream/${trackId}?token=${userToken}`)).status).toBe(200);
    expect((await server.api(`/api/library/canonical-stream/${trackId}?st=bogus`)).status).toBe(401);
    const album = (await get('/api/library/albums/rg-post')).body;
    expect((await server.api(`/api/library/file-stream/${album.id}/${trackId}`, { headers: apiKey() })).status).toBe(200);
  });

  it('answers 404 without revealing a path for missing tracks and vanished files', async () => {
    const missing = await get('/api/library/canonical-stream/999999');
    expect(missing).toEqual({ status: 404, body: { error: 'Track not found' } });
    const gone = path.join(music, 'Abba', 'Gold', '5.mp3');
    const id = (await page('kind=tracks&pageSize=10&query=song')).body.items.find((t: Json) => t.title === 'Song E').id;
    fs.renameSync(gone, `${gone}.bak`);
    try {
      const res = await get(`/api/library/canonical-stream/${id}`);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(dir);
    } finally {
      fs.renameSync(`${gone}.bak`, gone);
    }
  });
});

describe('favorites, playback queue and play events', () => {
  it('adds and lists favorites with a user session; the API key gets 403', async () => {
    const artist = (await get('/api/library/artists?limit=1')).body[0];
    expect((await post('/api/library/favorites', { kind: 'artist', id: artist.id }, user())).body).toEqual({
      success: true, kind: 'artist', id: artist.id, favorite: true,
    });
    const mine = await get('/api/library/favorites', user());
    expect(mine.body.artists.map((a: Json) => [a.name, a.userFavorite])).toEqual([['ABBA', true]]);
    const viaPage = await page('kind=artists&pageSize=1');
    expect(viaPage.body.items[0].userFavorite).toBe(false); // the admin did not favorite it
    const forbidden = await post('/api/library/favorites', { kind: 'artist', id: artist.id }, apiKey());
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe('User account required');
    expect((await get('/api/library/favorites', apiKey())).status).toBe(403);
    expect((await post('/api/library/favorites', { kind: 'track', id: 999999 }, user())).status).toBe(404);
    await post('/api/library/favorites', { kind: 'artist', id: artist.id, favorite: false }, user());
    expect((await get('/api/library/favorites', user())).body.artists).toEqual([]);
  });

  it("pages the user's saved queue", async () => {
    const me = (await get('/api/auth/me', user())).body;
    const ids = (await page('kind=tracks&pageSize=5')).body.items.map((t: Json) => t.id);
    playQueues.save(server.ctx.db, me.user.id, ids, 2, 1500, 'test-client', 1_700_000_000_000);
    const q = await get('/api/library/playback-queue?page=2&pageSize=2', user());
    expect(q.body).toMatchObject({ page: 2, pageSize: 2, total: 5, hasMore: true, currentIndex: 2, positionMs: 1500, changedBy: 'test-client' });
    expect(q.body.items.map((i: Json) => [i.position, i.track.id])).toEqual([[2, ids[2]], [3, ids[3]]]);
    expect((await get('/api/library/playback-queue?pageSize=101', user())).status).toBe(400);
    expect((await get('/api/library/playback-queue', apiKey())).status).toBe(403);
  });

  it('replaces the saved queue through PUT, refusing unknown tracks and the API key', async () => {
    const ids = (await page('kind=tracks&pageSize=3')).body.items.map((t: Json) => t.id);
    const put = (json: unknown, headers: Record<string, string> = user()) => server.api('/api/library/playback-queue', { method: 'PUT', json, headers });
    const saved = await put({ trackIds: ids, currentIndex: 1, positionMs: 4200 });
    expect(saved.status).toBe(200);
    const body = (await saved.json()) as Json;
    expect(body).toMatchObject({ total: 3, currentIndex: 1, positionMs: 4200, changedBy: 'Tonearm web' });
    expect(body.items.map((i: Json) => i.track.id)).toEqual(ids);
    expect((await put({ trackIds: [...ids, 999999] })).status).toBe(400);
    expect((await put({ trackIds: ids, currentIndex: 3 })).status).toBe(400);
    expect((await put({ trackIds: ids }, apiKey())).status).toBe(403);
    expect((await get('/api/library/playback-queue', user())).body.total).toBe(3);
    expect((await put({ trackIds: [] })).status).toBe(200);
    expect((await get('/api/library/playback-queue', user())).body.total).toBe(0);
  });

  it('records play events for users only and reads them back', async () => {
    const track = (await page('kind=tracks&pageSize=1')).body.items[0];
    const created = await post('/api/play-events', { trackId: track.id, playedAt: 1_700_000_000_000 }, user());
    expect(created.status).toBe(201);
    expect((await post('/api/play-events', { title: 'x' }, apiKey())).status).toBe(403);
    const events = await get('/api/play-events', user());
    expect(events.body).toMatchObject({ total: 1, items: [{ trackId: track.id, title: track.title, artist: track.artistName, playedAt: '2023-11-14T22:13:20.000Z' }] });
  });
});

describe('artwork', () => {
  it('serves cached art with long-lived headers, resized copies and only its own legacy URLs', async () => {
    const album = (await get('/api/library/albums/rg-post')).body;
    const res = await server.api(album.imageUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const small = await server.api(`${album.imageUrl}?size=16`);
    expect(small.headers.get('content-type')).toBe('image/jpeg');
    const key = album.imageUrl.split('/').pop();
    expect(fs.existsSync(path.join(server.dataDir, 'images', 'resized', `${key}-16.jpg`))).toBe(true);
    expect((await server.api(`/api/image-proxy?url=${encodeURIComponent(album.imageUrl)}`)).status).toBe(200);
    expect((await server.api(`/api/image-proxy?url=${encodeURIComponent('http://example.com/a.jpg')}`)).status).toBe(400);
    expect((await server.api('/api/image-proxy/0123456789abcdef0123456789abcdef')).status).toBe(404);
  });
});

describe('track deletion and refresh jobs', () => {
  it('refuses without deleteAlbum, deletes inside a music folder and prunes, refuses outside', async () => {
    const target = (await page('kind=tracks&pageSize=1&query=automatic')).body.items[0];
    expect((await server.api(`/api/library/tracks/${target.id}`, { method: 'DELETE', headers: user() })).status).toBe(403);
    const res = await server.api(`/api/library/tracks/${target.id}`, { method: 'DELETE', headers: server.admin.headers });
    expect(await res.json()).toEqual({ success: true, deletedFiles: 1, pruned: true });
    expect(fs.existsSync(path.join(music, '宇多田ヒカル', 'First Love', '01 Automatic.ogg'))).toBe(false);
    expect((await page(`kind=artists&pageSize=10&query=${encodeURIComponent('宇多')}`)).body.total).toBe(0);

    const outside = path.join(dir, 'outside.mp3');
    fs.writeFileSync(outside, 'bytes');
    const db = server.ctx.db;
    const w = new LibraryWriter(db);
    const trackId = db.transaction(() => {
      const artistId = w.upsertArtist({ identityKey: 'name:elsewhere', name: 'Elsewhere' }, 1);
      const albumId = w.upsertAlbum({ identityKey: 'album:elsewhere', artistId, title: 'Away', albumArtist: 'Elsewhere' }, 1);
      const id = w.upsertTrack({ identityKey: 'track:elsewhere', title: 'Away', artistName: 'Elsewhere', artistId, albumId }, 1);
      w.upsertMediaFile({ source: 'lidarr', path: outside, trackId: id, albumId, size: 5, mtimeMs: 1 }, 1);
      return id;
    })();
    refreshDerived(db);
    const refused = await server.api(`/api/library/tracks/${trackId}`, { method: 'DELETE', headers: server.admin.headers });
    expect(refused.status).toBe(403);
    expect(fs.existsSync(outside)).toBe(true);
  });

  it('reports a refresh job with counts; unknown jobs are 404', async () => {
    const job = await scanNow('full');
    expect(job).toMatchObject({ status: 'completed', mode: 'full', filesSeen: 7, filesIndexed: 7, filesFailed: 0, errors: [] });
    expect((await get('/api/library/refresh/999999')).status).toBe(404);
  });

  it('only administrators start scans, on /api as on /rest; requests while one is queued join it', async () => {
    await server.ctx.library.scans.whenIdle();
    const runs = () => (server.ctx.db.prepare('SELECT COUNT(*) AS n FROM library_scan_runs').get() as { n: number }).n;
    const before = runs();
    for (let i = 0; i < 5; i++) {
      const refused = await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'full' }, headers: user() });
      expect(refused.status).toBe(403);
      expect((await refused.json()).message).toBe('Only administrators can start a library scan');
    }
    expect(runs()).toBe(before);
    // Five requests at once from an administrator: one runs, the others join the one queued after it.
    // The running scan is held (its worker gets the run only once all five are answered), so a
    // 7-file scan that ends between two requests on a busy machine cannot make a third run.
    const release = holdScans(server.ctx.library.scans);
    let answers;
    try {
      answers = await Promise.all(Array.from({ length: 5 }, () => post('/api/library/refresh', { mode: 'full' })));
    } finally {
      release();
    }
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    const ids = new Set(answers.map((a) => a.body.jobId));
    expect(ids.size).toBeLessThanOrEqual(2);
    expect(runs() - before).toBe(ids.size);
    for (const id of ids) await waitForJob(id);
  });
});
