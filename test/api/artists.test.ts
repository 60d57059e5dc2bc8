import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoverArtFake, type CoverArtFake } from '../fakes/coverart/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let mb: MusicBrainzFake;
let caa: CoverArtFake;
let dir: string;

const get = async (pathname: string) => {
  const res = await server.api(pathname, { token: server.admin.token });
  return { status: res.status, body: (await res.json()) as any };
};
const upstreamCalls = () => mb.requests.length + caa.requests.length;

beforeAll(async () => {
  mb = await startMusicBrainzFake(catalogue);
  caa = await startCoverArtFake();
  caa.setCover(ids.rgDawn, await sharp({ create: { width: 64, height: 64, channels: 3, background: 'red' } }).jpeg().toBuffer());
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-artists-'));
  const music = path.join(dir, 'music');
  // The library owns "Dawn" (its first track only), tagged with MusicBrainz ids.
  writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', '01.mp3'), makeMp3Template(dir), {
    title: 'First Light', artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', track: 1, date: '2019',
    musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn,
    musicbrainzAlbumId: ids.relDawn, musicbrainzRecordingId: catalogue[0]!.releaseGroups[0]!.releases[0]!.tracks[0]!.recordingId,
  });
  server = await startTestServer({
    musicDirs: [music],
    env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_COVERART_URL: caa.url, TONEARM_UPSTREAM_SPACING_MS: '0', TONEARM_LIBRARY_WATCH: '0' },
  });
  const scan = await server.api('/api/library/refresh', { method: 'POST', token: server.admin.token, json: { mode: 'full' } });
  const { jobId } = (await scan.json()) as { jobId: string };
  for (let i = 0; i < 200; i++) {
    const job = await get(`/api/library/refresh/${jobId}`);
    if (job.body.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);
afterAll(async () => {
  await server.stop();
  await mb.close();
  await caa.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('artist pages from MusicBrainz', () => {
  it('answers an artist with its release groups (albums first, newest first) and what it appears on', async () => {
    const { status, body } = await get(`/api/artists/${ids.aurora}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: ids.aurora, name: 'Aurora Lane', country: 'NO', tags: ['dream pop', 'shoegaze'], genres: ['dream pop'], inLibrary: true, appearsOnLoaded: true });
    expect(body.libraryArtistId).toMatch(/^\d+$/);
    expect(body['release-groups'].map((g: any) => [g.title, g['primary-type'], g['secondary-types'], g.inLibrary])).toEqual([
      ['Dusk', 'Album', [], false],
      ['Dawn', 'Album', [], true],
      ['Live at Nowhere', 'Album', ['Live'], false],
      ['Tide', 'Single', [], false],
    ]);
    expect(body['appears-on-release-groups'].map((g: any) => [g.title, g.artistName])).toEqual([['Northern Songs', 'Aurora Borealis Choir']]);
    expect(body.links).toEqual([{ type: 'official homepage', url: 'https://aurora.example' }]);
  });

  it('serves a cached artist without calling upstream again, and mode=core without the appears-on scan', async () => {
    const before = upstreamCalls();
    expect((await get(`/api/artists/${ids.aurora}`)).status).toBe(200);
    expect(upstreamCalls()).toBe(before);
    const recordingsBefore = mb.requests.filter((r) => r.path === '/recording').length;
    const core = await get(`/api/artists/${ids.auroraBorealis}?mode=core`);
    expect(core.body).toMatchObject({ name: 'Aurora Borealis Choir', appearsOnLoaded: false, 'appears-on-release-groups': [] });
    expect(mb.requests.filter((r) => r.path === '/recording').length).toBe(recordingsBefore);
  });

  it('makes one upstream call per resource when many pages ask for the same cold artist at once', async () => {
    const before = mb.requests.filter((r) => r.path === `/artist/${ids.guest}`).length;
    const pages = await Promise.all(Array.from({ length: 5 }, () => get(`/api/artists/${ids.guest}?mode=core`)));
    expect(pages.every((p) => p.status === 200 && p.body.name === 'Guest Singer')).toBe(true);
    expect(mb.requests.filter((r) => r.path === `/artist/${ids.guest}`).length - before).toBe(1);
  });

  it('answers 404 naming the artist for an unknown MBID (cached as missing) and 400 for a malformed one', async () => {
    const unknown = '00000000-0000-4000-8000-0000000009aa';
    expect(await get(`/api/artists/${unknown}`)).toEqual({ status: 404, body: { error: 'Artist not found' } });
    const before = mb.requests.length;
    expect((await get(`/api/artists/${unknown}`)).status).toBe(404);
    expect(mb.requests.length).toBe(before);
    const bad = await get('/api/artists/not-an-mbid');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
  });

  it('still serves cached data while MusicBrainz is down, and 502 UPSTREAM_UNAVAILABLE for what was never fetched', async () => {
    mb.faults.down = true;
    try {
      expect((await get(`/api/artists/${ids.aurora}`)).status).toBe(200);
      const never = await get(`/api/artists/release-group/${ids.rgLive}`);
      expect(never.status).toBe(502);
      expect(never.body.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      mb.faults.down = false;
    }
  });

  it('refreshes a stale artist in the background and serves the stale copy meanwhile', async () => {
    mb.artists.get(ids.aurora)!.country = 'SE';
    server.clock.advance(8 * 86_400_000);
    const stale = await get(`/api/artists/${ids.aurora}?mode=core`);
    expect(stale.body.country).toBe('NO');
    let fresh = stale;
    for (let i = 0; i < 100 && fresh.body.country !== 'SE'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      fresh = await get(`/api/artists/${ids.aurora}?mode=core`);
    }
    expect(fresh.body.country).toBe('SE');
  });

  it('lists recent releases of library artists that the library lacks, from the cached metadata', async () => {
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    const aurora = mb.artists.get(ids.aurora)!;
    aurora.releaseGroups.push({ id: '00000000-0000-4000-8000-000000000777', title: 'Fresh Snow', primaryType: 'EP', firstReleaseDate: day(server.clock.now() - 20 * 86_400_000), releases: [] });
    mb.add(aurora);
    server.clock.advance(8 * 86_400_000);
    expect((await get(`/api/artists/${ids.aurora}?mode=core`)).status).toBe(200);
    let recent = await get('/api/library/recent-releases?months=3');
    for (let i = 0; i < 100 && recent.body.items.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      recent = await get('/api/library/recent-releases?months=3');
    }
    expect(recent.status).toBe(200);
    expect(recent.body.items).toEqual([
      expect.objectContaining({ id: '00000000-0000-4000-8000-000000000777', title: 'Fresh Snow', 'primary-type': 'EP', artistMbid: ids.aurora, artistName: 'Aurora Lane', inLibrary: false }),
    ]);
    // Dusk (October 2024) is older than 24 months; Dawn is owned.
    const older = await get('/api/library/recent-releases?months=24');
    expect(older.body.items.map((i: any) => i.title)).toEqual(['Fresh Snow']);
    expect((await get('/api/library/recent-releases?months=99')).status).toBe(400);
  });
});

describe('daily metadata refresh', () => {
  it('refreshes library artists whose metadata is older than its freshness', async () => {
    const fetchedAt = () => (server.ctx.db.prepare("SELECT fetched_at FROM metadata_cache WHERE kind = 'artist' AND key = ?").get(ids.aurora) as { fetched_at: number }).fetched_at;
    const before = fetchedAt();
    server.clock.advance(8 * 86_400_000);
    expect(server.ctx.scheduler.runNow('release-metadata-refresh')).toBe(true);
    for (let i = 0; i < 100 && fetchedAt() === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fetchedAt()).toBeGreaterThan(before);
    const task = server.ctx.scheduler.list().find((t) => t.name === 'release-metadata-refresh')!;
    expect(task.lastStatus).toBe('succeeded');
  });
});

describe('storage health', () => {
  it('checks the data folder, each music folder and the download folder', async () => {
    const downloads = path.join(dir, 'not-made-yet');
    await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { folderPath: downloads } } });
    const { status, body } = await get('/api/settings/storage-health');
    expect(status).toBe(200);
    expect(body.healthy).toBe(false);
    const byRole = Object.fromEntries(body.folders.map((f: any) => [f.role, f]));
    expect(byRole.data).toMatchObject({ path: server.dataDir, exists: true, writable: true, problem: null });
    expect(byRole.data.freeBytes).toBeGreaterThan(0);
    expect(byRole.music).toMatchObject({ path: path.join(dir, 'music'), exists: true, problem: null });
    expect(byRole.downloads).toMatchObject({ path: downloads, exists: false, writable: false, problem: 'The folder does not exist' });
    fs.mkdirSync(downloads);
    expect((await get('/api/settings/storage-health')).body.healthy).toBe(true);
  });
});

describe('release groups', () => {
  it('answers a release group with its releases, genres, rating and front cover', async () => {
    const { status, body } = await get(`/api/artists/release-group/${ids.rgDawn}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: ids.rgDawn,
      title: 'Dawn',
      'primary-type': 'Album',
      'first-release-date': '2019-03-01',
      'artist-credit': [{ name: 'Aurora Lane', joinphrase: '', artist: { id: ids.aurora, name: 'Aurora Lane' } }],
      releases: [{ id: ids.relDawn, title: 'Dawn', status: 'Official' }],
      genres: ['dream pop'],
      rating: 4.5,
      inLibrary: true,
    });
    expect(body.coverUrl).toMatch(/^\/api\/image-proxy\/[0-9a-f]{32}$/);
    const noCover = await get(`/api/artists/release-group/${ids.rgDusk}`);
    expect(noCover.body.coverUrl).toBeNull();
  });

  it('serves remote covers through the native image cache, fetched once, resized on request, and nothing it did not issue', async () => {
    const { body } = await get(`/api/artists/release-group/${ids.rgDawn}`);
    const imageFetches = () => caa.requests.filter((r) => r.path.startsWith('/img/')).length;
    const before = imageFetches();
    const first = await server.api(body.coverUrl);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(Buffer.from(await first.arrayBuffer())).metadata()).width).toBe(64);
    const resized = await server.api(`${body.coverUrl}?size=32`);
    expect(resized.status).toBe(200);
    expect((await sharp(Buffer.from(await resized.arrayBuffer())).metadata()).width).toBe(32);
    expect(imageFetches() - before).toBe(1);
    expect((await server.api('/api/image-proxy/0123456789abcdef0123456789abcdef')).status).toBe(404);
    const open = await server.api(`/api/image-proxy?url=${encodeURIComponent(`${caa.url}/img/${ids.rgDawn}.jpg`)}`);
    expect(open.status).toBe(400);
  });

  it("lists the tracks of the group's release, marking the one the library has", async () => {
    const { status, body } = await get(`/api/artists/release-group/${ids.rgDawn}/tracks`);
    expect(status).toBe(200);
    expect(body.releaseId).toBe(ids.relDawn);
    expect(body.tracks.map((t: any) => [t.trackNumber, t.title, t.durationMs, t.inLibrary])).toEqual([
      [1, 'First Light', 180000, true],
      [2, 'Morning Tide', 181000, false],
      [3, 'Glass Sky', 182000, false],
    ]);
  });

  it('reports MusicBrainz in the health details once it has been used', async () => {
    const health = await get('/api/health');
    expect(health.body.musicbrainzConfigured).toBe(true);
    expect(health.body.metadataProviders.musicbrainz).toMatchObject({ activeBaseUrl: mb.url, configuredProvider: 'musicbrainz', failoverActive: false });
    expect(health.body.metadataProviders.musicbrainz.lastSuccessAt).not.toBeNull();
  });
});
