import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from './server.js';

const apiKey = 'fake-key';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

async function start(options: Parameters<typeof startLidarrFake>[0] = {}): Promise<LidarrFake> {
  const fake = await startLidarrFake({ apiKey, ...options });
  cleanup.push(() => fake.close());
  return fake;
}

async function call(fake: LidarrFake, method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-Api-Key': apiKey }) {
  const res = await fetch(`${fake.url}${path}`, {
    method,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

const addBody = (fake: LidarrFake, name: string, extra: Record<string, unknown> = {}) => {
  const entry = fake.state.catalogue.searchArtists(name)[0]!;
  return {
    artistName: entry.artistName,
    foreignArtistId: entry.foreignArtistId,
    rootFolderPath: fake.state.rootFolders[0]!.path,
    qualityProfileId: 1,
    metadataProfileId: 1,
    monitored: true,
    addOptions: { monitor: 'all', searchForMissingAlbums: false },
    ...extra,
  };
};

async function captureServer() {
  const received: Array<{ method: string; headers: Record<string, unknown>; body: any }> = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', headers: req.headers, body: JSON.parse(text) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/lidarr`, received };
}

describe('Lidarr fake protocol details', () => {
  it('checks the API key from the header or the apikey query, else 401', async () => {
    const fake = await start();
    expect((await call(fake, 'GET', '/api/v1/tag', undefined, {})).status).toBe(401);
    expect((await call(fake, 'GET', '/api/v1/tag', undefined, { 'X-Api-Key': 'wrong' })).status).toBe(401);
    expect((await call(fake, 'GET', `/api/v1/tag?apikey=${apiKey}`, undefined, {})).status).toBe(200);
  });

  it('matches paths case-insensitively and counts requests per route', async () => {
    const fake = await start();
    expect((await call(fake, 'GET', '/api/v1/rootFolder')).body).toEqual((await call(fake, 'GET', '/api/v1/rootfolder')).body);
    expect(fake.state.countOf('GET /rootFolder')).toBe(2);
    expect(fake.state.requestCount).toBe(2);
  });

  it('answers 400 with a message for /track and /trackfile without a filter', async () => {
    const fake = await start();
    expect(await call(fake, 'GET', '/api/v1/track')).toEqual({
      status: 400,
      body: { message: 'One of artistId, albumId, albumReleaseId or trackIds must be provided' },
    });
    expect((await call(fake, 'GET', '/api/v1/trackfile')).status).toBe(400);
  });

  it('answers a duplicate artist with a 400 validation array', async () => {
    const fake = await start();
    const body = addBody(fake, 'Кино');
    expect((await call(fake, 'POST', '/api/v1/artist', body)).status).toBe(201);
    const again = await call(fake, 'POST', '/api/v1/artist', body);
    expect(again.status).toBe(400);
    expect(again.body[0]).toMatchObject({
      propertyName: 'ForeignArtistId',
      errorMessage: 'This artist has already been added',
      attemptedValue: body.foreignArtistId,
      severity: 'error',
      errorCode: 'ArtistExistsValidator',
    });
  });

  it("loads an added artist's albums only after the metadata delay, or at once on RefreshArtist", async () => {
    const fake = await start({ albumMetadataDelayMs: 150, commandStartMs: 1, commandRunMs: 1 });
    const artist = (await call(fake, 'POST', '/api/v1/artist', addBody(fake, 'Velvet'))).body;
    expect((await call(fake, 'GET', `/api/v1/album?artistId=${artist.id}`)).body).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect((await call(fake, 'GET', `/api/v1/album?artistId=${artist.id}`)).body.length).toBe(3);

    const other = (await call(fake, 'POST', '/api/v1/artist', addBody(fake, 'Ólafur'))).body;
    await call(fake, 'POST', '/api/v1/command', { name: 'RefreshArtist', artistId: other.id });
    await new Promise((r) => setTimeout(r, 30));
    expect((await call(fake, 'GET', `/api/v1/album?artistId=${other.id}`)).body.length).toBe(2);
  });

  it('monitors only the albums asked for on add', async () => {
    const fake = await start();
    const entry = fake.state.catalogue.searchArtists('Velvet')[0]!;
    const body = addBody(fake, 'Velvet', { addOptions: { monitor: 'none', albumsToMonitor: [entry.albums[1]!.foreignAlbumId] } });
    const artist = (await call(fake, 'POST', '/api/v1/artist', body)).body;
    const albums = (await call(fake, 'GET', `/api/v1/album?artistId=${artist.id}`)).body;
    expect(albums.map((a: { title: string; monitored: boolean }) => [a.title, a.monitored])).toEqual([
      ['Lanterns', false],
      ['Glass Rivers', true],
      ['Night Ferry', false],
    ]);
  });

  it('moves a command from queued to started to completed', async () => {
    const fake = await start({ commandStartMs: 100, commandRunMs: 100 });
    const posted = await call(fake, 'POST', '/api/v1/command', { name: 'RescanFolders' });
    expect([posted.status, posted.body.status]).toEqual([201, 'queued']);
    const seen = [posted.body.status];
    let current = posted.body;
    while (current.status !== 'completed') {
      await new Promise((r) => setTimeout(r, 10));
      current = (await call(fake, 'GET', `/api/v1/command/${posted.body.id}`)).body;
      if (current.status !== seen.at(-1)) seen.push(current.status);
    }
    expect(seen).toEqual(['queued', 'started', 'completed']);
    expect([current.result, current.message]).toEqual(['successful', 'Completed']);
  });

  it('grabs and then imports a searched album, writing its files under the root folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lidarr-fake-'));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    const fake = await start({ rootFolderPath: root, searchGrabs: true, commandStartMs: 1, commandRunMs: 1, importAfterMs: 80 });
    const artist = (await call(fake, 'POST', '/api/v1/artist', addBody(fake, 'Velvet'))).body;
    const [album] = (await call(fake, 'GET', `/api/v1/album?artistId=${artist.id}`)).body;
    await call(fake, 'POST', '/api/v1/command', { name: 'AlbumSearch', albumIds: [album.id] });
    await new Promise((r) => setTimeout(r, 40));
    const queue = (await call(fake, 'GET', '/api/v1/queue')).body;
    expect(queue.records.map((q: { albumId: number; trackedDownloadState: string }) => [q.albumId, q.trackedDownloadState])).toEqual([
      [album.id, 'downloading'],
    ]);
    await fake.waitForIdle();
    expect((await call(fake, 'GET', '/api/v1/queue')).body.totalRecords).toBe(0);
    const files = (await call(fake, 'GET', `/api/v1/trackfile?albumId=${album.id}`)).body;
    expect(files.length).toBe(4);
    expect(files.every((f: { path: string }) => existsSync(f.path))).toBe(true);
    expect(files[0].path).toBe(join(root, 'The Velvet Harbors', 'Lanterns (2014)', '01 - Harbor Lights.flac'));
    const history = (await call(fake, 'GET', '/api/v1/history?pageSize=100')).body.records;
    expect(history[0].eventType).toBe('downloadImported');
    expect(history.at(-1).eventType).toBe('grabbed');

    await call(fake, 'DELETE', `/api/v1/artist/${artist.id}?deleteFiles=true`);
    expect(existsSync(join(root, 'The Velvet Harbors'))).toBe(false);
    expect(existsSync(root)).toBe(true);
  });

  it('refuses connections while down and serves again after up', async () => {
    const fake = await start();
    await fake.state.down();
    await expect(fetch(`${fake.url}/api/v1/tag`)).rejects.toThrow();
    await fake.state.up();
    expect((await call(fake, 'GET', '/api/v1/tag')).status).toBe(200);
  });

  it('seeds 8,000 artists / 80,000 albums / 800,000 tracks quickly and serves them', async () => {
    const fake = await start();
    const started = Date.now();
    const counts = fake.seedLibrary({ artists: 8_000, albumsPerArtist: 10, tracksPerAlbum: 10, withFiles: 0.5 });
    // About 1 s on an idle machine; the bound only catches an accidental quadratic seeder.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect([counts.artists, counts.albums, counts.tracks]).toEqual([8_000, 80_000, 800_000]);
    expect(counts.files).toBeGreaterThan(350_000);
    const artists = (await call(fake, 'GET', '/api/v1/artist')).body;
    expect(artists.length).toBe(8_000);
    expect(new Set(artists.map((a: { foreignArtistId: string }) => a.foreignArtistId)).size).toBe(8_000);
    expect(artists.every((a: { foreignArtistId: string }) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(a.foreignArtistId))).toBe(true);
    expect(artists.some((a: { artistName: string }) => /[^\u0000-\u024f]/.test(a.artistName))).toBe(true);
    const last = artists.at(-1);
    const tracks = (await call(fake, 'GET', `/api/v1/track?artistId=${last.id}`)).body;
    expect(tracks.length).toBe(100);
    expect(tracks.at(-1).id).toBe(800_000);
  });
});

describe('Lidarr fake webhooks', () => {
  it('posts real-shaped events with the configured headers', async () => {
    const fake = await start({ commandStartMs: 1, commandRunMs: 1 });
    const capture = await captureServer();
    const artist = (await call(fake, 'POST', '/api/v1/artist', addBody(fake, 'Velvet'))).body;
    const [album] = (await call(fake, 'GET', `/api/v1/album?artistId=${artist.id}`)).body;
    fake.state.activity.grab(fake.state.library.albums.get(album.id)!);
    await fake.waitForIdle();

    const headers = { 'X-Api-Key': 'tonearm-key' };
    for (const event of ['Test', 'Grab', 'Download', 'Rename', 'Retag', 'AlbumDelete', 'ArtistDelete'] as const) {
      const sent = await fake.sendWebhook(capture.url, event, { headers, albumId: album.id });
      expect(sent.status).toBe(204);
    }
    const bodies = capture.received.map((r) => r.body);
    expect(capture.received.every((r) => r.method === 'POST' && r.headers['x-api-key'] === 'tonearm-key')).toBe(true);
    expect(bodies.map((b) => b.eventType)).toEqual(['Test', 'Grab', 'Download', 'Rename', 'Retag', 'AlbumDelete', 'ArtistDelete']);
    expect(bodies.every((b) => b.instanceName === 'Lidarr' && b.applicationUrl === fake.url)).toBe(true);
    expect(bodies[0].artist).toEqual({ id: 1, name: 'Test Name', path: 'C:\\testpath', mbId: 'aaaaa-aaa-aaaa-aaaaaa' });

    const download = bodies[2];
    expect(download.artist).toMatchObject({ id: artist.id, name: 'The Velvet Harbors', mbId: artist.foreignArtistId, path: artist.path });
    expect(download.artist.artistName).toBeUndefined();
    expect(download.album).toMatchObject({ id: album.id, mbId: album.foreignAlbumId, title: 'Lanterns', albumType: 'Album' });
    expect(download.album.artist).toBeUndefined();
    expect(download.tracks.map((t: { trackNumber: string; title: string }) => [t.trackNumber, t.title])).toEqual([
      ['1', 'Harbor Lights'],
      ['2', 'Paper Boats'],
      ['3', 'Lanterns'],
      ['4', 'Low Tide'],
    ]);
    expect(download.trackFiles[0]).toMatchObject({ path: '/music/The Velvet Harbors/Lanterns (2014)/01 - Harbor Lights.flac', quality: 'FLAC' });
    expect([download.isUpgrade, download.downloadClient, typeof download.downloadId]).toEqual([false, 'qBittorrent', 'string']);
    expect(bodies[1].albums[0].mbId).toBe(album.foreignAlbumId);
    expect(bodies[1].release).toMatchObject({ quality: 'FLAC', indexer: 'FakeIndexer' });
    expect(bodies[3].renamedTrackFiles[0].previousPath).toMatch(/\(old name\)\.flac$/);
    expect(bodies[4].trackFile.id).toBe(download.trackFiles[0].id);
    expect(bodies[5]).toMatchObject({ album: { id: album.id }, deletedFiles: false });
    expect(bodies[6]).toMatchObject({ artist: { id: artist.id }, deletedFiles: false });
  });

  it('sends Grab, Download and delete events by itself when a webhook is configured', async () => {
    const capture = await captureServer();
    const fake = await start({
      searchGrabs: true,
      commandStartMs: 1,
      commandRunMs: 1,
      importAfterMs: 5,
      webhook: { url: capture.url, basicAuth: { username: 'lidarr', password: 'pw' } },
    });
    const artist = (await call(fake, 'POST', '/api/v1/artist', addBody(fake, 'Кино'))).body;
    const [album] = (await call(fake, 'GET', `/api/v1/album?artistId=${artist.id}`)).body;
    await call(fake, 'POST', '/api/v1/command', { name: 'AlbumSearch', albumIds: [album.id] });
    await fake.waitForIdle();
    await call(fake, 'DELETE', `/api/v1/album/${album.id}?deleteFiles=true`);
    await call(fake, 'DELETE', `/api/v1/artist/${artist.id}`);
    await new Promise((r) => setTimeout(r, 50));
    expect(capture.received.map((r) => r.body.eventType)).toEqual(['ArtistAdd', 'Grab', 'Download', 'AlbumDelete', 'ArtistDelete']);
    expect(capture.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('lidarr:pw').toString('base64')}`);
    expect(capture.received[3]!.body).toMatchObject({ album: { title: 'Группа крови' }, deletedFiles: true });
  });
});
