import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAudioFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, xmlParser, type Fixture } from './harness.js';

/** What real Subsonic clients tripped over: artwork formats and errors, strict album-list parsing. */

let fx: Fixture;
let server: TestServer;
let admin: RestClient;
let post: { id: string; armyOfMe: string };
let abbey: { id: string };
let glass: { id: string };

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-compat-'));
  fx = makeLibrary(dir, { bulk: false });
  // An album whose folder picture has real transparency.
  const glassDir = path.join(fx.music, 'Glass Band', 'Clear');
  makeAudioFile(path.join(glassDir, '01 Pane.mp3'), 'mp3', { title: 'Pane', artist: 'Glass Band', albumArtist: 'Glass Band', album: 'Clear', track: 1, date: '2001' }, { seconds: 1 });
  await sharp({ create: { width: 40, height: 40, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.3 } } }).png().toFile(path.join(glassDir, 'cover.png'));
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  const army = (await admin.ok('search3', { query: 'Army of Me', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
  post = { id: army.albumId, armyOfMe: army.id };
  abbey = { id: (await admin.ok('search3', { query: 'Come Together', artistCount: 0, albumCount: 0 })).searchResult3.song[0].albumId };
  glass = { id: (await admin.ok('search3', { query: 'Pane', artistCount: 0, albumCount: 0 })).searchResult3.song[0].albumId };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

const imageKeyOfAlbum = (title: string) =>
  server.ctx.db.prepare('SELECT image_key FROM library_albums WHERE title = ?').pluck().get(title) as string;

describe('getCoverArt with size', () => {
  it('answers JPEG for an opaque picture, never WebP', async () => {
    for (const id of [post.id, post.armyOfMe]) {
      const r = await fetch(admin.url('getCoverArt', { id, size: 16 }));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/jpeg');
      const bytes = Buffer.from(await r.arrayBuffer());
      expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 16, 16]);
    }
  });

  it('answers PNG, alpha kept, when the picture has transparency', async () => {
    const r = await fetch(admin.url('getCoverArt', { id: glass.id, size: 20 }));
    expect(r.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await r.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.hasAlpha]).toEqual(['png', 20, true]);
  });

  it('never serves a resized copy an older build cached as WebP', async () => {
    const key = imageKeyOfAlbum('Post');
    const stale = path.join(server.dataDir, 'images', 'resized', `${key}-24.webp`);
    fs.mkdirSync(path.dirname(stale), { recursive: true });
    await sharp({ create: { width: 24, height: 24, channels: 3, background: 'green' } }).webp().toFile(stale);
    const r = await fetch(admin.url('getCoverArt', { id: post.id, size: 24 }));
    expect(r.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(Buffer.from(await r.arrayBuffer())).metadata()).format).toBe('jpeg');
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(path.join(server.dataDir, 'images', 'resized', `${key}-24.jpg`))).toBe(true);
  });

  it('the /api artwork route resizes to JPEG/PNG as well, with an ETag naming the format', async () => {
    const key = imageKeyOfAlbum('Post');
    const r = await server.api(`/api/image-proxy/${key}?size=16`);
    expect(r.headers.get('content-type')).toBe('image/jpeg');
    expect(r.headers.get('etag')).toBe(`"${key}-16.jpg"`);
    const png = await server.api(`/api/image-proxy/${imageKeyOfAlbum('Clear')}?size=16`);
    expect(png.headers.get('content-type')).toBe('image/png');
  });
});

describe('getCoverArt errors', () => {
  it('an unknown id and an album without art both answer HTTP 404 with error 70, in JSON and XML', async () => {
    for (const id of ['al-00000000000000', 'nonsense', 'pl-zzzz', abbey.id]) {
      for (const size of [undefined, 64]) {
        const json = await fetch(admin.url('getCoverArt', { id, size, f: 'json' }));
        expect(json.status).toBe(404);
        expect(json.headers.get('content-type')).toContain('application/json');
        const body = (await json.json()) as any;
        expect(body['subsonic-response']).toMatchObject({ status: 'failed', error: { code: 70 } });
        const xml = await fetch(admin.url('getCoverArt', { id, size }));
        expect(xml.status).toBe(404);
        expect(xml.headers.get('content-type')).toContain('text/xml');
        expect(xmlParser.parse(await xml.text())['subsonic-response'].error['@code']).toBe('70');
      }
    }
  });

  it('a bad size is an error, not a picture', async () => {
    const r = await fetch(admin.url('getCoverArt', { id: post.id, size: 'big', f: 'json' }));
    expect(r.status).toBe(400);
    expect(((await r.json()) as any)['subsonic-response'].status).toBe('failed');
  });
});

describe('getAlbumList (v1) entries carry the ID3 album fields', () => {
  it('name and songCount beside the Child fields, in JSON and XML', async () => {
    const r = await admin.ok('getAlbumList', { type: 'alphabeticalByName', size: 10 });
    expect(r.albumList.album.map((a: any) => [a.title, a.name, a.songCount, a.isDir])).toEqual([
      ['Abbey Road', 'Abbey Road', 1, true],
      ['Clear', 'Clear', 1, true],
      ['Post', 'Post', 2, true],
    ]);
    const xml = xmlParser.parse(await admin.xml('getAlbumList', { type: 'alphabeticalByName', size: 1 }));
    expect(xml['subsonic-response'].albumList.album).toMatchObject({ '@title': 'Abbey Road', '@name': 'Abbey Road', '@songCount': '1', '@isDir': 'true' });
  });
});
