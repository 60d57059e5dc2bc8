import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { ZipTooLargeError, cachedCrcCount, safeName, uniqueNames, zipLength } from '../../server/domain/subsonic/zipArchive.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, type Fixture } from './harness.js';

let fx: Fixture;
let server: TestServer;
let admin: RestClient;
let tmp: string;

/** What Python's zipfile sees: names, sizes, and testzip() (every CRC checked); writes entries out. */
function inspectZip(file: string, extractTo: string): { names: string[]; sizes: number[]; bad: string | null } {
  const script = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    z.extractall(sys.argv[2])
    print(json.dumps({"names": z.namelist(), "sizes": [i.file_size for i in z.infolist()], "methods": list({i.compress_type for i in z.infolist()}), "bad": bad}))
`;
  const out = JSON.parse(execFileSync('python3', ['-c', script, file, extractTo], { encoding: 'utf8' }));
  expect(out.methods).toEqual([0]);
  return out;
}

async function fetchZip(params: Record<string, string>, name: string) {
  const res = await fetch(admin.url('download', params));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/zip');
  const body = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(body.length);
  const file = path.join(tmp, name);
  fs.writeFileSync(file, body);
  return { res, file, body };
}

let post: { albumId: string; artistId: string; songIds: string[] };
let abbey: { songId: string };

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-zip-'));
  fx = makeLibrary(tmp, { bulk: false });
  // An artist known only from a compilation: no album of its own.
  writeTaggedMp3(path.join(fx.music, 'Various Artists', 'Summer Hits', '03 Guest Turn.mp3'), makeMp3Template(tmp), {
    title: 'Guest Turn', artist: 'Guest Singer', albumArtist: 'Various Artists', album: 'Summer Hits', track: 3, date: '2001',
  });
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  const army = (await admin.ok('search3', { query: 'Army of Me', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
  const album = await admin.ok('getAlbum', { id: army.albumId });
  post = { albumId: army.albumId, artistId: army.artistId, songIds: album.album.song.map((s: { id: string }) => s.id) };
  abbey = { songId: (await admin.ok('search3', { query: 'Come Together', artistCount: 0, albumCount: 0 })).searchResult3.song[0].id };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('download of albums, artists and playlists as zip', () => {
  it('an album: the original files as Artist/Album/NN - Title.ext, stored, with valid CRCs', async () => {
    const { res, file } = await fetchZip({ id: post.albumId }, 'album.zip');
    expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('Björk - Post.zip')}`);
    const out = path.join(tmp, 'album-out');
    const z = inspectZip(file, out);
    expect(z.bad).toBeNull();
    expect(z.names).toEqual(['Björk/Post/01 - Army of Me.flac', 'Björk/Post/02 - Hyperballad.mp3']);
    const originals = [path.join(fx.music, 'Björk', 'Post', '01 Army of Me.flac'), path.join(fx.music, 'Björk', 'Post', '02 Hyperballad.mp3')];
    expect(z.sizes).toEqual(originals.map((f) => fs.statSync(f).size));
    for (const [i, name] of z.names.entries()) expect(fs.readFileSync(path.join(out, name)).equals(fs.readFileSync(originals[i]!))).toBe(true);
  });

  it('a second download reuses the CRCs of the first; a file rewritten in place since gets its new CRC', async () => {
    await fetchZip({ id: post.albumId }, 'album-first.zip');
    const cached = cachedCrcCount();
    expect(cached).toBeGreaterThanOrEqual(2);
    const again = await fetchZip({ id: post.albumId }, 'album-again.zip');
    expect(cachedCrcCount()).toBe(cached);
    expect(inspectZip(again.file, path.join(tmp, 'again-out')).bad).toBeNull();

    // Same size, other bytes: the last byte of the audio flipped in place.
    const mp3 = path.join(fx.music, 'Björk', 'Post', '02 Hyperballad.mp3');
    const bytes = fs.readFileSync(mp3);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    const fd = fs.openSync(mp3, 'r+');
    fs.writeSync(fd, bytes, bytes.length - 1, 1, bytes.length - 1);
    fs.closeSync(fd);
    const out = path.join(tmp, 'rewritten-out');
    const z = inspectZip((await fetchZip({ id: post.albumId }, 'album-rewritten.zip')).file, out);
    expect(z.bad).toBeNull();
    expect(fs.readFileSync(path.join(out, 'Björk/Post/02 - Hyperballad.mp3')).equals(bytes)).toBe(true);
  });

  it('an artist: every album of the artist', async () => {
    const { file } = await fetchZip({ id: post.artistId }, 'artist.zip');
    const z = inspectZip(file, path.join(tmp, 'artist-out'));
    expect(z.bad).toBeNull();
    expect(z.names).toEqual(['Björk/Post/01 - Army of Me.flac', 'Björk/Post/02 - Hyperballad.mp3']);
  });

  it('an artist known only from a compilation: its own tracks there, not the others of the compilation', async () => {
    const guest = (await admin.ok('search3', { query: 'Guest Turn', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
    const { file } = await fetchZip({ id: guest.artistId }, 'guest.zip');
    const z = inspectZip(file, path.join(tmp, 'guest-out'));
    expect(z.bad).toBeNull();
    expect(z.names).toEqual(['Various Artists/Summer Hits/03 - Guest Turn.mp3']);
  });

  it('a playlist: its songs in order, across albums, a repeated song once', async () => {
    const created = await admin.ok('createPlaylist', { name: 'Mix: a/b', songId: [abbey.songId, post.songIds[1]!, abbey.songId] });
    const { res, file } = await fetchZip({ id: created.playlist.id }, 'playlist.zip');
    expect(res.headers.get('content-disposition')).toContain('filename="Mix_ a_b.zip"');
    const z = inspectZip(file, path.join(tmp, 'playlist-out'));
    expect(z.bad).toBeNull();
    expect(z.names).toEqual(['The Beatles/Abbey Road/01 - Come Together.ogg', 'Björk/Post/02 - Hyperballad.mp3']);
  });

  it('HEAD answers the exact length without a body', async () => {
    const full = await fetch(admin.url('download', { id: post.albumId }));
    const length = (await full.arrayBuffer()).byteLength;
    const head = await fetch(admin.url('download', { id: post.albumId }), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(length);
  });

  it('a song still downloads as the file itself; unknown ids answer 70', async () => {
    const res = await fetch(admin.url('download', { id: post.songIds[1]! }));
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(fx.music, 'Björk', 'Post', '02 Hyperballad.mp3')))).toBe(true);
    const missing = await (await fetch(admin.url('download', { id: 'al-00000000000000', f: 'json' }))).json();
    expect(missing['subsonic-response'].error.code).toBe(70);
  });
});

describe('zip archive rules', () => {
  it('refuses more than 4 GB with a clear message (no ZIP64)', () => {
    const big = (name: string, size: number) => ({ name, file: '/dev/null', size, mtimeMs: 0 });
    expect(zipLength([big('a', 1000)])).toBe(30 + 1 + 1000 + 46 + 1 + 22);
    expect(() => zipLength([big('a', 3 * 1024 ** 3), big('b', 2 * 1024 ** 3)])).toThrow(ZipTooLargeError);
    expect(() => zipLength([big('a', 3 * 1024 ** 3), big('b', 2 * 1024 ** 3)])).toThrow(/5\.0 GB; zip downloads are limited to 4 GB/);
  });

  it('names are safe on every file system and unique', () => {
    expect(safeName('AC/DC: "Live"?')).toBe('AC_DC_ _Live__');
    expect(safeName('  ..  ')).toBe('_');
    expect(safeName('Album.')).toBe('Album');
    expect(uniqueNames([{ name: 'A/B/01 - X.mp3' }, { name: 'a/b/01 - x.mp3' }, { name: 'A/B/01 - X.mp3' }]).map((e) => e.name)).toEqual([
      'A/B/01 - X.mp3', 'a/b/01 - x (2).mp3', 'A/B/01 - X (3).mp3',
    ]);
  });
});
