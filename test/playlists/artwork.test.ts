import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapName } from '../../server/domain/playlists/artworkImages.js';
import { playlistId as restPlaylistId } from '../../server/rest/ids.js';
import { makeAudioFile, makeCoverImage } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient, waitForScans } from '../rest/harness.js';

/**
 * Playlist artwork (api.md 4.10): upload (validated, re-encoded, size-capped), get with validators,
 * generate (a mosaic of album covers with the name), delete, permissions, redraw on track changes,
 * /rest getCoverArt for pl- ids; and the static playlist routes the Playlists screen uses.
 */

const COLORS = ['red', 'lime', 'blue', 'yellow'] as const;
const RGB: Record<(typeof COLORS)[number], [number, number, number]> = { red: [255, 0, 0], lime: [0, 255, 0], blue: [0, 0, 255], yellow: [255, 255, 0] };

let server: TestServer;
let tmp: string;
let listener: { token: string };
/** Library track ids: one per coloured album, then one without a cover. */
const tracks: number[] = [];
const admin = () => ({ token: server.admin.token });

async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

async function createPlaylist(token: string, body: Record<string, unknown>): Promise<string> {
  const res = await server.api('/api/playlists/playlists', { method: 'POST', token, json: body });
  expect(res.status).toBe(201);
  return (await json(res)).id;
}

function put(id: string, body: BodyInit, type: string, token = server.admin.token) {
  return server.api(`/api/playlists/artwork/${id}`, { method: 'PUT', token, headers: { 'content-type': type }, body });
}

async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data } = await sharp(image).extract({ left: x, top: y, width: 1, height: 1 }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [data[0]!, data[1]!, data[2]!];
}

function near(actual: [number, number, number], expected: [number, number, number], tolerance = 40) {
  expect(actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance), `${actual} ≈ ${expected}`).toBe(true);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-artwork-'));
  const music = path.join(tmp, 'music');
  COLORS.forEach((color, i) => {
    const cover = makeCoverImage(path.join(tmp, `${color}.png`), color);
    makeAudioFile(path.join(music, 'Mosaic Artist', `Album ${color}`, '01 Song.flac'), 'flac', {
      title: `Song ${color}`, artist: 'Mosaic Artist', albumArtist: 'Mosaic Artist', album: `Album ${color}`, track: 1,
    }, { cover, seconds: 1, frequency: 300 + i * 50 });
  });
  makeAudioFile(path.join(music, 'Plain Artist', 'No Cover', '01 Bare.mp3'), 'mp3', {
    title: 'Bare', artist: 'Plain Artist', albumArtist: 'Plain Artist', album: 'No Cover', track: 1,
  });
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  const rows = server.ctx.db.prepare('SELECT id, title FROM library_tracks').all() as { id: number; title: string }[];
  for (const color of COLORS) tracks.push(rows.find((r) => r.title === `Song ${color}`)!.id);
  tracks.push(rows.find((r) => r.title === 'Bare')!.id);
  expect(tracks.every((t) => typeof t === 'number')).toBe(true);

  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'listener', password: 'listener password 1', role: 'user' } });
  expect(created.status).toBeLessThan(300);
  const login = await server.api('/api/auth/login', { method: 'POST', json: { username: 'listener', password: 'listener password 1' } });
  listener = { token: (await json(login)).token };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('upload and get', () => {
  let id: string;
  beforeAll(async () => {
    id = await createPlaylist(server.admin.token, { name: 'Uploads', trackIds: tracks.slice(0, 2) });
  });

  it('answers 404 in the contract shape while there is no artwork', async () => {
    const res = await server.api(`/api/playlists/artwork/${id}`, admin());
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: 'Artwork not found' });
  });

  it('refuses a file that is not an image, and an empty one', async () => {
    const text = await put(id, Buffer.from('this is not a picture at all, only text pretending to be a PNG'), 'image/png');
    expect(text.status).toBe(400);
    expect(await json(text)).toMatchObject({ error: 'Invalid request', code: 'INVALID_IMAGE' });
    // A real PNG header with nothing behind it.
    const truncated = (await sharp({ create: { width: 64, height: 64, channels: 3, background: 'red' } }).png().toBuffer()).subarray(0, 40);
    expect((await put(id, truncated, 'image/png')).status).toBe(400);
    expect((await put(id, Buffer.alloc(0), 'image/png')).status).toBe(400);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    expect((await put(id, svg, 'image/svg+xml')).status).toBe(400);
    expect((await server.api(`/api/playlists/artwork/${id}`, admin())).status).toBe(404);
  });

  it('refuses an upload over 10 MB with 413', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 200 * 1024, 7);
    const res = await put(id, big, 'image/jpeg');
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error: 'Payload too large', code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('10 MB') });
  });

  it('re-encodes an upload as a square JPEG of at most 1000 px and serves it with validators', async () => {
    const png = await sharp({ create: { width: 1600, height: 1200, channels: 4, background: { r: 0, g: 128, b: 255, alpha: 1 } } }).png().toBuffer();
    const res = await put(id, png, 'image/png');
    expect(res.status).toBe(200);
    const info = await json(res);
    expect(info).toMatchObject({ playlistId: id, kind: 'static', source: 'uploaded', width: 1000, height: 1000, mime: 'image/jpeg' });
    expect(info.url).toBe(`/api/playlists/artwork/${id}?v=${info.etag}`);

    const got = await server.api(`/api/playlists/artwork/${id}`, admin());
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    expect(got.headers.get('etag')).toBe(`"${info.etag}"`);
    expect(got.headers.get('cache-control')).toBe('private, no-cache');
    expect(new Date(got.headers.get('last-modified')!).getTime()).toBeGreaterThan(0);
    const body = Buffer.from(await got.arrayBuffer());
    const meta = await sharp(body).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1000, height: 1000 });
    near(await pixel(body, 500, 500), [0, 128, 255], 12);

    const cached = await server.api(`/api/playlists/artwork/${id}`, { ...admin(), headers: { 'if-none-match': `"${info.etag}"` } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    const since = await server.api(`/api/playlists/artwork/${id}`, { ...admin(), headers: { 'if-modified-since': got.headers.get('last-modified')! } });
    expect(since.status).toBe(304);
    const stale = await server.api(`/api/playlists/artwork/${id}`, { ...admin(), headers: { 'if-none-match': '"something-else"' } });
    expect(stale.status).toBe(200);

    const versioned = await server.api(info.url, admin());
    expect(versioned.headers.get('cache-control')).toContain('immutable');
    const small = await server.api(`/api/playlists/artwork/${id}?size=120`, admin());
    expect(await sharp(Buffer.from(await small.arrayBuffer())).metadata()).toMatchObject({ width: 120, height: 120 });
    expect(small.headers.get('etag')).toBe(`"${info.etag}-120"`);

    // <img src> cannot send headers: the session token in the query works too.
    expect((await server.api(`/api/playlists/artwork/${id}?token=${server.admin.token}`)).status).toBe(200);
    expect((await server.api(`/api/playlists/artwork/${id}`)).status).toBe(401);
  });

  it('takes a multipart form file and a JSON data URL, and replaces the previous file', async () => {
    const before = fs.readdirSync(server.ctx.playlistArtwork.dir);
    const jpeg = await sharp({ create: { width: 300, height: 500, channels: 3, background: 'red' } }).jpeg().toBuffer();
    const form = new FormData();
    form.append('note', 'ignored');
    form.append('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'cover.jpg');
    const res = await server.api(`/api/playlists/artwork/${id}`, { method: 'PUT', token: server.admin.token, body: form });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ width: 300, height: 300, source: 'uploaded' });
    const after = fs.readdirSync(server.ctx.playlistArtwork.dir);
    expect(after.length).toBe(before.length); // the old picture was removed, not left behind
    expect(after.some((f) => f.endsWith('.tmp'))).toBe(false);

    const webp = await sharp({ create: { width: 80, height: 80, channels: 3, background: 'yellow' } }).webp().toBuffer();
    const viaJson = await server.api(`/api/playlists/artwork/${id}`, { method: 'PUT', token: server.admin.token, json: { image: `data:image/webp;base64,${webp.toString('base64')}` } });
    expect(viaJson.status).toBe(200);
    const body = Buffer.from(await (await server.api(`/api/playlists/artwork/${id}`, admin())).arrayBuffer());
    near(await pixel(body, 40, 40), RGB.yellow);
    expect((await server.api(`/api/playlists/artwork/${id}`, { method: 'PUT', token: server.admin.token, json: { image: 'hello' } })).status).toBe(400);
  });

  it('deletes the artwork and its file', async () => {
    const svc = server.ctx.playlistArtwork;
    const ref = { kind: 'static' as const, id };
    const file = path.join(svc.dir, `${(await json(await server.api(`/api/playlists/playlists/${id}`, admin()))).artwork.etag}.jpg`);
    expect(fs.existsSync(file)).toBe(true);
    const res = await server.api(`/api/playlists/artwork/${id}`, { method: 'DELETE', token: server.admin.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, removed: true });
    expect(fs.existsSync(file)).toBe(false);
    expect((await server.api(`/api/playlists/artwork/${ref.id}`, admin())).status).toBe(404);
    expect(await json(await server.api(`/api/playlists/artwork/${id}`, { method: 'DELETE', token: server.admin.token }))).toEqual({ success: true, removed: false });
  });
});

describe('generate', () => {
  it('draws a 2×2 mosaic of the distinct album covers in playlist order, with the name', async () => {
    // Repeated albums count once; the coverless track adds nothing.
    const id = await createPlaylist(server.admin.token, { name: 'Four Colours', trackIds: [tracks[0]!, tracks[0]!, tracks[4]!, tracks[1]!, tracks[2]!, tracks[3]!] });
    const res = await server.api(`/api/playlists/artwork/${id}/generate`, { method: 'POST', token: server.admin.token });
    expect(res.status).toBe(200);
    const info = await json(res);
    expect(info).toMatchObject({ source: 'generated', width: 600, height: 600 });
    const image = Buffer.from(await (await server.api(info.url, admin())).arrayBuffer());
    expect(await sharp(image).metadata()).toMatchObject({ format: 'jpeg', width: 600, height: 600 });
    near(await pixel(image, 150, 150), RGB.red);
    near(await pixel(image, 450, 150), RGB.lime);
    near(await pixel(image, 150, 330), RGB.blue);
    near(await pixel(image, 450, 330), RGB.yellow);
    // The name band darkens the bottom and carries white text somewhere in it.
    const band = await sharp(image).extract({ left: 0, top: 520, width: 600, height: 70 }).greyscale().raw().toBuffer();
    expect(Math.max(...band)).toBeGreaterThan(200);
    expect(Math.min(...band)).toBeLessThan(60);
  });

  it('draws a gradient with the name for a playlist without covers', async () => {
    const id = await createPlaylist(server.admin.token, { name: 'Nothing & <Nobody>', trackIds: [tracks[4]!] });
    const res = await server.api(`/api/playlists/artwork/${id}/generate`, { method: 'POST', token: server.admin.token });
    expect(res.status).toBe(200);
    const image = Buffer.from(await (await server.api(`/api/playlists/artwork/${id}`, admin())).arrayBuffer());
    const stats = await sharp(image).stats();
    expect(stats.isOpaque).toBe(true);
    const corners = [await pixel(image, 5, 5), await pixel(image, 594, 594)];
    expect(corners[0]).not.toEqual(corners[1]);
  });

  it('redraws a generated picture (debounced, once) when the tracks change, never an uploaded one', async () => {
    const svc = server.ctx.playlistArtwork;
    const id = await createPlaylist(server.admin.token, { name: 'Changing', trackIds: [tracks[0]!] });
    const first = await json(await server.api(`/api/playlists/artwork/${id}/generate`, { method: 'POST', token: server.admin.token }));
    const image1 = Buffer.from(await (await server.api(first.url, admin())).arrayBuffer());
    near(await pixel(image1, 300, 200), RGB.red);

    for (const t of [tracks[1]!, tracks[2]!, tracks[3]!]) {
      const r = await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { removeIndexes: [0], addTrackIds: [t] } });
      expect(r.status).toBe(200);
    }
    expect(svc.waiting).toBe(1); // three changes, one redraw waiting
    await svc.settle();
    const detail = await json(await server.api(`/api/playlists/playlists/${id}`, admin()));
    expect(detail.artwork.source).toBe('generated');
    expect(detail.artwork.etag).not.toBe(first.etag);
    const image2 = Buffer.from(await (await server.api(detail.artwork.url, admin())).arrayBuffer());
    near(await pixel(image2, 300, 200), RGB.yellow);

    // A rename with the same covers redraws (the name is on it); the same state again does not.
    await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { comment: 'only the comment' } });
    await svc.settle();
    expect((await json(await server.api(`/api/playlists/playlists/${id}`, admin()))).artwork.etag).toBe(detail.artwork.etag);

    const png = await sharp({ create: { width: 50, height: 50, channels: 3, background: 'blue' } }).png().toBuffer();
    const uploaded = await json(await put(id, png, 'image/png'));
    await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { addTrackIds: [tracks[0]!] } });
    expect(svc.waiting).toBe(0);
    await svc.settle();
    expect((await json(await server.api(`/api/playlists/playlists/${id}`, admin()))).artwork.etag).toBe(uploaded.etag);
  });

  it('drops the artwork when the playlist is deleted', async () => {
    const svc = server.ctx.playlistArtwork;
    const id = await createPlaylist(server.admin.token, { name: 'Short-lived', trackIds: [tracks[2]!] });
    const info = await json(await server.api(`/api/playlists/artwork/${id}/generate`, { method: 'POST', token: server.admin.token }));
    const file = path.join(svc.dir, `${info.etag}.jpg`);
    expect(fs.existsSync(file)).toBe(true);
    expect((await server.api(`/api/playlists/playlists/${id}`, { method: 'DELETE', token: server.admin.token })).status).toBe(200);
    expect(fs.existsSync(file)).toBe(false);
    expect(server.ctx.db.prepare('SELECT COUNT(*) AS n FROM playlist_artwork WHERE playlist_id = ?').get(id)).toEqual({ n: 0 });
  });

  it('sweeps at start: artwork of playlists deleted with their owner, and files no row names', async () => {
    const svc = server.ctx.playlistArtwork;
    await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'leaving', password: 'leaving password 1', role: 'user' } });
    const login = await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'leaving', password: 'leaving password 1' } }));
    const id = await createPlaylist(login.token, { name: 'Left behind', trackIds: [tracks[1]!] });
    const info = await json(await server.api(`/api/playlists/artwork/${id}/generate`, { method: 'POST', token: login.token }));
    const file = path.join(svc.dir, `${info.etag}.jpg`);
    const stray = path.join(svc.dir, 'stray.jpg.123.tmp');
    fs.writeFileSync(stray, 'half-written');
    const userId = server.ctx.users.findByUsername('leaving')!.id;
    expect((await server.api(`/api/users/${userId}`, { method: 'DELETE', token: server.admin.token })).status).toBeLessThan(300);
    expect(fs.existsSync(file)).toBe(true); // no playlist event for a cascade
    svc.sweep();
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(stray)).toBe(false);
    expect(server.ctx.db.prepare('SELECT COUNT(*) AS n FROM playlist_artwork WHERE playlist_id = ?').get(id)).toEqual({ n: 0 });
    // Pictures of live playlists stay.
    const live = (server.ctx.db.prepare('SELECT file FROM playlist_artwork').pluck().all() as string[]).filter((f) => !fs.existsSync(path.join(svc.dir, f)));
    expect(live).toEqual([]);
  });

  it('wraps long names into a few lines', () => {
    expect(wrapName('Songs for a long drive', 10, 3)).toEqual(['Songs for', 'a long', 'drive']);
    expect(wrapName('one two three four five six', 7, 2)).toEqual(['one two', 'three…']);
    expect(wrapName('Supercalifragilistic', 8, 3)).toEqual(['Supercal', 'ifragili', 'stic']);
  });
});

describe('permissions', () => {
  let privateId: string;
  let publicId: string;
  const png = () => sharp({ create: { width: 20, height: 20, channels: 3, background: 'red' } }).png().toBuffer();
  beforeAll(async () => {
    privateId = await createPlaylist(server.admin.token, { name: 'Admin private', trackIds: [tracks[0]!] });
    publicId = await createPlaylist(server.admin.token, { name: 'Admin public', public: true, trackIds: [tracks[1]!] });
    for (const id of [privateId, publicId]) expect((await put(id, await png(), 'image/png')).status).toBe(200);
  });

  it('hides a playlist the caller cannot see behind 404', async () => {
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/generate']] as const) {
      const res = await server.api(`/api/playlists/artwork/${privateId}${suffix}`, {
        method,
        token: listener.token,
        ...(method === 'PUT' && { headers: { 'content-type': 'image/png' }, body: new Uint8Array(await png()) }),
      });
      expect(res.status, `${method} ${suffix}`).toBe(404);
      expect(await json(res)).toMatchObject({ error: 'Playlist not found' });
    }
    expect((await server.api('/api/playlists/artwork/999999', admin())).status).toBe(404);
    expect((await server.api('/api/playlists/artwork/not-a-playlist', admin())).status).toBe(404);
  });

  it('lets a viewer read a public playlist but not change it', async () => {
    expect((await server.api(`/api/playlists/artwork/${publicId}`, { token: listener.token })).status).toBe(200);
    const upload = await put(publicId, new Uint8Array(await png()), 'image/png', listener.token);
    expect(upload.status).toBe(403);
    expect((await server.api(`/api/playlists/artwork/${publicId}`, { method: 'DELETE', token: listener.token })).status).toBe(403);
    expect((await server.api(`/api/playlists/artwork/${publicId}/generate`, { method: 'POST', token: listener.token })).status).toBe(403);
    expect((await json(await server.api(`/api/playlists/playlists/${publicId}`, admin()))).artwork.source).toBe('uploaded');
  });

  it('lets the owner of a playlist change its artwork, and refuses the API key', async () => {
    const own = await createPlaylist(listener.token, { name: 'Mine', trackIds: [tracks[3]!] });
    expect((await server.api(`/api/playlists/artwork/${own}/generate`, { method: 'POST', token: listener.token })).status).toBe(200);
    expect((await server.api(`/api/playlists/artwork/${own}`, admin())).status).toBe(404); // private to the listener
    const byKey = await server.api(`/api/playlists/artwork/${publicId}`, { method: 'PUT', headers: { 'x-api-key': server.apiKey, 'content-type': 'image/png' }, body: new Uint8Array(await png()) });
    expect(byKey.status).toBe(403);
    expect(await json(byKey)).toMatchObject({ error: 'User account required' });
  });
});

describe('/rest getCoverArt for pl- ids', () => {
  it('serves the playlist artwork, falls back to the first album cover, and hides other users’ playlists', async () => {
    const rest = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
    const withArt = await createPlaylist(server.admin.token, { name: 'Rest art', trackIds: [tracks[2]!] });
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: 'lime' } }).png().toBuffer();
    const info = await json(await put(withArt, png, 'image/png'));

    const res = await fetch(rest.url('getCoverArt', { id: restPlaylistId(Number(withArt)) }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(fs.readFileSync(path.join(server.ctx.playlistArtwork.dir, `${info.etag}.jpg`)))).toBe(true);
    // Playlists with their own picture name themselves as coverArt; others a track's cover.
    const listed = (await rest.ok('getPlaylists')).playlists.playlist as { id: string; coverArt?: string }[];
    expect(listed.find((p) => p.id === restPlaylistId(Number(withArt)))?.coverArt).toBe(restPlaylistId(Number(withArt)));
    expect((await rest.ok('getPlaylist', { id: restPlaylistId(Number(withArt)) })).playlist.coverArt).toBe(restPlaylistId(Number(withArt)));
    const sized = await fetch(rest.url('getCoverArt', { id: restPlaylistId(Number(withArt)), size: 32 }));
    expect(await sharp(Buffer.from(await sized.arrayBuffer())).metadata()).toMatchObject({ width: 32, height: 32 });

    // Without artwork: the first track's album cover (blue).
    const without = await createPlaylist(server.admin.token, { name: 'Rest fallback', trackIds: [tracks[4]!, tracks[2]!] });
    const fallback = await fetch(rest.url('getCoverArt', { id: restPlaylistId(Number(without)) }));
    expect(fallback.status).toBe(200);
    near(await pixel(Buffer.from(await fallback.arrayBuffer()), 16, 16), RGB.blue);

    // The listener's private playlist is not found for the admin's Subsonic session.
    const theirs = await createPlaylist(listener.token, { name: 'Theirs', trackIds: [tracks[0]!] });
    const hidden = await fetch(rest.url('getCoverArt', { id: restPlaylistId(Number(theirs)) }));
    expect(hidden.status).toBe(404);
  });
});

describe('static playlist routes', () => {
  it('lists, reads, renames, removes a track and deletes; only the owner changes', async () => {
    const id = await createPlaylist(server.admin.token, { name: 'Road trip', trackIds: [tracks[0]!, tracks[1]!, tracks[2]!] });
    const list = await json(await server.api('/api/playlists/playlists', admin()));
    expect(list.playlists.find((p: { id: string }) => p.id === id)).toMatchObject({ name: 'Road trip', kind: 'static', editable: true, songCount: 3, artwork: null });

    const detail = await json(await server.api(`/api/playlists/playlists/${id}`, admin()));
    expect(detail.tracks.map((t: any) => [t.position, t.track.id, t.track.title])).toEqual([
      [0, tracks[0], 'Song red'],
      [1, tracks[1], 'Song lime'],
      [2, tracks[2], 'Song blue'],
    ]);

    const renamed = await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { name: 'Road trip 2', removeIndexes: [1] } });
    expect(renamed.status).toBe(200);
    const after = await json(renamed);
    expect(after.name).toBe('Road trip 2');
    expect(after.tracks.map((t: any) => t.track.id)).toEqual([tracks[0], tracks[2]]);

    expect((await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { name: '  ' } })).status).toBe(400);
    expect((await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { addTrackIds: [987654] } })).status).toBe(400);
    expect((await server.api(`/api/playlists/playlists/${id}`, { method: 'PUT', token: server.admin.token, json: { trackIds: [tracks[0]!, 987654] } })).status).toBe(400);
    const ghosts = await server.api('/api/playlists/playlists', { method: 'POST', token: server.admin.token, json: { name: 'Ghosts', trackIds: [tracks[0]!, 987654, 987654] } });
    expect(ghosts.status).toBe(400);
    expect(JSON.stringify(await json(ghosts))).toContain('Unknown track ids: 987654"');
    expect((await json(await server.api('/api/playlists/playlists', admin()))).playlists.some((p: { name: string }) => p.name === 'Ghosts')).toBe(false);
    expect((await json(await server.api(`/api/playlists/playlists/${id}`, admin()))).tracks.map((t: any) => t.track.id)).toEqual([tracks[0], tracks[2]]);
    expect((await server.api(`/api/playlists/playlists/${id}`, { token: listener.token })).status).toBe(404);
    expect((await server.api(`/api/playlists/playlists/${id}`, { method: 'DELETE', token: listener.token })).status).toBe(404);
    expect((await server.api('/api/playlists/playlists/abc', admin())).status).toBe(404);

    expect((await server.api(`/api/playlists/playlists/${id}`, { method: 'DELETE', token: server.admin.token })).status).toBe(200);
    expect((await server.api(`/api/playlists/playlists/${id}`, admin())).status).toBe(404);
  });
});
