import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { RestClient, waitForScans } from '../rest/harness.js';

/**
 * Symbolic links in a music folder: followed only into the music folders (or the downloads root);
 * a link to anything else is not indexed, and no route serves it, also when a file is swapped for
 * such a link after the scan.
 */

const MARKER = 'SECRET-MARKER-7f3a';
let dir: string;
let music: string;
let other: string;
let outside: string;
let server: TestServer;
let rest: RestClient;

type Json = Record<string, any>;

const admin = () => server.admin.headers;
async function get(pathname: string): Promise<{ status: number; body: any }> {
  const res = await server.api(pathname, { headers: admin() });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
}

async function scan(): Promise<Json> {
  const res = await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'quick' }, headers: admin() });
  const { jobId } = (await res.json()) as { jobId: string };
  await waitForScans(server);
  return (await get(`/api/library/refresh/${jobId}`)).body;
}

const trackByTitle = (title: string) =>
  server.ctx.db.prepare('SELECT t.id, t.available, f.path FROM library_tracks t LEFT JOIN library_media_files f ON f.track_id = t.id WHERE t.title = ?').get(title) as
    | { id: number; available: number; path: string }
    | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-links-'));
  music = path.join(dir, 'music');
  other = path.join(dir, 'other');
  outside = path.join(dir, 'outside');
  const template = makeMp3Template(dir);
  // Valid audio with a marker appended: were it indexed, it would play (and leak the marker).
  const secret = path.join(outside, 'secret.mp3');
  writeTaggedMp3(secret, template, { title: 'Secret', artist: 'Nobody', album: 'Hidden', track: 1 });
  fs.appendFileSync(secret, MARKER);
  fs.writeFileSync(path.join(outside, 'secret.lrc'), `[00:00.00]${MARKER}\n`);
  writeTaggedMp3(path.join(outside, 'dir', 'deep.mp3'), template, { title: 'Deep Secret', artist: 'Nobody', album: 'Hidden', track: 2 });
  makeCoverImage(path.join(outside, 'cover.png'), 'green');

  const album = path.join(music, 'Artist', 'Album');
  writeTaggedMp3(path.join(album, '01 Real.mp3'), template, { title: 'Real', artist: 'Artist', album: 'Album', track: 1 });
  writeTaggedMp3(path.join(album, '02 Kept.mp3'), template, { title: 'Kept', artist: 'Artist', album: 'Album', track: 2 });
  writeTaggedMp3(path.join(other, 'Shared', 'shared.mp3'), template, { title: 'Shared', artist: 'Artist', album: 'Album', track: 3 });
  fs.symlinkSync(path.join(other, 'Shared', 'shared.mp3'), path.join(album, '03 Shared.mp3'));
  fs.symlinkSync(secret, path.join(album, '04 Evil.mp3'));
  fs.symlinkSync(path.join(outside, 'dir'), path.join(music, 'Evil Folder'));
  const arty = path.join(music, 'Arty', 'Record');
  writeTaggedMp3(path.join(arty, '01 Plain.mp3'), template, { title: 'Plain', artist: 'Arty', album: 'Record', track: 1 });
  fs.symlinkSync(path.join(outside, 'cover.png'), path.join(arty, 'cover.png'));

  server = await startTestServer({ musicDirs: [music, other], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  rest = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('symbolic links in music folders', () => {
  it('indexes a link into another music folder and skips links to elsewhere with a reason', async () => {
    const job = await scan();
    expect(trackByTitle('Shared')).toMatchObject({ available: 1, path: path.join(music, 'Artist', 'Album', '03 Shared.mp3') });
    expect(trackByTitle('Secret')).toBeUndefined();
    expect(trackByTitle('Deep Secret')).toBeUndefined();
    const reason = 'symbolic link to a place outside the music folders';
    expect(job.errors).toEqual(
      expect.arrayContaining([
        { path: path.join('Artist', 'Album', '04 Evil.mp3'), reason },
        { path: 'Evil Folder', reason },
      ]),
    );
    // A folder image linked from elsewhere is not read as the album's art.
    const record = server.ctx.db.prepare("SELECT image_key FROM library_albums WHERE title = 'Record'").get();
    expect(record).toEqual({ image_key: null });
  });

  it('refuses, on every route, a file swapped for a link to outside after the scan', async () => {
    const real = trackByTitle('Real')!;
    const kept = trackByTitle('Kept')!;
    expect((await get(`/api/library/canonical-stream/${real.id}`)).status).toBe(200);
    const file = path.join(music, 'Artist', 'Album', '01 Real.mp3');
    fs.rmSync(file);
    fs.symlinkSync(path.join(outside, 'secret.mp3'), file);
    fs.renameSync(path.join(music, 'Artist', 'Album', '02 Kept.mp3'), path.join(dir, 'kept.mp3'));
    fs.symlinkSync(path.join(outside, 'secret.mp3'), path.join(music, 'Artist', 'Album', '02 Kept.mp3'));
    fs.symlinkSync(path.join(outside, 'secret.lrc'), path.join(music, 'Artist', 'Album', '03 Shared.lrc'));

    for (const route of [`/api/library/canonical-stream/${real.id}`, `/api/library/stream/${real.id}`]) {
      const res = await get(route);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Media file not found' });
    }
    const albumId = (server.ctx.db.prepare("SELECT id FROM library_albums WHERE title = 'Album'").get() as { id: number }).id;
    expect((await get(`/api/library/file-stream/${albumId}/${real.id}`)).status).toBe(404);

    const song = (await rest.ok('search3', { query: 'Real', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
    for (const method of ['stream', 'download']) {
      const res = await fetch(rest.url(method, { id: song.id, f: 'json' }));
      expect(res.status).toBe(404);
      const body = await res.text();
      expect(body).not.toContain(MARKER);
      expect(JSON.parse(body)['subsonic-response'].error.code).toBe(70);
    }
    const shared = (await rest.ok('search3', { query: 'Shared', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
    const lyrics = await rest.ok('getLyricsBySongId', { id: shared.id });
    expect(JSON.stringify(lyrics)).not.toContain(MARKER);

    // The album's zip holds only the file still inside the music folders.
    const zip = await fetch(rest.url('download', { id: song.albumId }));
    expect(zip.status).toBe(200);
    const bytes = Buffer.from(await zip.arrayBuffer());
    expect(bytes.includes(Buffer.from(MARKER))).toBe(false);
    expect(bytes.includes(Buffer.from('03 - Shared.mp3'))).toBe(true);
    expect(bytes.includes(Buffer.from('01 - Real.mp3'))).toBe(false);
    expect(bytes.includes(Buffer.from('02 - Kept.mp3'))).toBe(false);
    expect(kept.available).toBe(1);

    // The next scan reports the swapped files and marks them unavailable.
    const job = await scan();
    expect(job.errors).toEqual(expect.arrayContaining([{ path: path.join('Artist', 'Album', '01 Real.mp3'), reason: 'symbolic link to a place outside the music folders' }]));
    expect(trackByTitle('Real')).toMatchObject({ available: 0 });
    expect(trackByTitle('Secret')).toBeUndefined();
  });

  it('follows links into the downloads root when one is set', async () => {
    const downloads = path.join(dir, 'downloads');
    fs.mkdirSync(downloads);
    fs.copyFileSync(path.join(dir, 'kept.mp3'), path.join(downloads, 'kept.mp3'));
    fs.rmSync(path.join(music, 'Artist', 'Album', '02 Kept.mp3'));
    fs.symlinkSync(path.join(downloads, 'kept.mp3'), path.join(music, 'Artist', 'Album', '02 Kept.mp3'));
    expect((await scan()).errors).toContainEqual({ path: path.join('Artist', 'Album', '02 Kept.mp3'), reason: 'symbolic link to a place outside the music folders' });
    const res = await server.api('/api/settings', { method: 'POST', json: { downloads: { folderPath: downloads } }, headers: admin() });
    expect(res.status).toBe(200);
    await scan();
    const kept = trackByTitle('Kept')!;
    expect(kept.available).toBe(1);
    const stream = await server.api(`/api/library/canonical-stream/${kept.id}`, { headers: admin() });
    expect(stream.status).toBe(200);
    expect(Buffer.from(await stream.arrayBuffer()).equals(fs.readFileSync(path.join(downloads, 'kept.mp3')))).toBe(true);
  });
});
