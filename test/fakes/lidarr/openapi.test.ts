import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLidarrSpec, type LidarrSpecValidator } from './openapi.js';
import { startLidarrFake, type LidarrFake } from './server.js';

/** Every answer the fake gives is checked against the 200 schema Lidarr's OpenAPI document declares. */
let fake: LidarrFake;
let spec: LidarrSpecValidator;
const apiKey = 'spec-key';

async function get(path: string): Promise<unknown> {
  const res = await fetch(`${fake.url}/api/v1${path}`, { headers: { 'X-Api-Key': apiKey } });
  expect(res.status).toBe(200);
  return res.json();
}

async function send(method: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${fake.url}/api/v1${path}`, {
    method,
    headers: { 'X-Api-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  spec = loadLidarrSpec();
  fake = await startLidarrFake({ apiKey, commandStartMs: 1, commandRunMs: 1, searchGrabs: true, importAfterMs: 1 });
  const entry = fake.state.catalogue.searchArtists('Velvet')[0]!;
  await send('POST', '/artist', {
    artistName: entry.artistName,
    foreignArtistId: entry.foreignArtistId,
    rootFolderPath: '/music',
    qualityProfileId: 1,
    metadataProfileId: 1,
    monitored: true,
    addOptions: { monitor: 'all', searchForMissingAlbums: false },
  });
  await send('POST', '/tag', { label: 'tonearm' });
  // Album 1 is grabbed and imported (files, history); album 2 is grabbed and still in the queue.
  fake.state.activity.grab(fake.state.library.albums.get(1)!);
  await fake.waitForIdle();
  fake.state.activity.options.importAfterMs = 60_000;
  await send('POST', '/command', { name: 'AlbumSearch', albumIds: [2] });
  await new Promise((r) => setTimeout(r, 50));
  fake.seedLibrary({ artists: 5, albumsPerArtist: 2, tracksPerAlbum: 3, withFiles: true });
});
afterAll(() => fake.close());

const cases: Array<[name: string, specPath: string, path: string]> = [
  ['system status', '/api/v1/system/status', '/system/status'],
  ['root folders', '/api/v1/rootfolder', '/rootFolder'],
  ['quality profiles', '/api/v1/qualityprofile', '/qualityprofile'],
  ['metadata profiles', '/api/v1/metadataprofile', '/metadataprofile'],
  ['tags', '/api/v1/tag', '/tag'],
  ['artists', '/api/v1/artist', '/artist'],
  ['one artist', '/api/v1/artist/{id}', '/artist/1'],
  ['artist lookup by MBID', '/api/v1/artist/lookup', '/artist/lookup?term=lidarr:'],
  ['artist lookup by text', '/api/v1/artist/lookup', '/artist/lookup?term=o'],
  ['albums', '/api/v1/album', '/album'],
  ['albums by foreignAlbumId', '/api/v1/album', '/album?foreignAlbumId='],
  ['one album', '/api/v1/album/{id}', '/album/1'],
  ['album lookup', '/api/v1/album/lookup', '/album/lookup?term=a'],
  ['tracks', '/api/v1/track', '/track?artistId=1'],
  ['track files', '/api/v1/trackfile', '/trackfile?albumId=1'],
  ['seeded track files', '/api/v1/trackfile', '/trackfile?artistId=2'],
  ['commands', '/api/v1/command', '/command'],
  ['one command', '/api/v1/command/{id}', '/command/1'],
  ['queue', '/api/v1/queue', '/queue?includeArtist=true&includeAlbum=true'],
  ['history', '/api/v1/history', '/history?pageSize=50&includeArtist=true&includeAlbum=true'],
  ['wanted/missing', '/api/v1/wanted/missing', '/wanted/missing?includeArtist=true'],
];

describe("the Lidarr fake's answers match Lidarr's OpenAPI document", () => {
  it.each(cases)('%s', async (_name, specPath, path) => {
    let url = path;
    if (url.endsWith('term=lidarr:')) url += fake.state.catalogue.searchArtists('Кино')[0]!.foreignArtistId;
    if (url.endsWith('foreignAlbumId=')) url += fake.state.library.albums.get(1)!.foreignAlbumId;
    const body = await get(url);
    if (Array.isArray(body)) expect(body.length).toBeGreaterThan(0);
    if (body && typeof body === 'object' && 'records' in body) expect((body as { records: unknown[] }).records.length).toBeGreaterThan(0);
    expect(spec.errors('get', specPath, body)).toEqual([]);
  });

  it('artist and album creation answers (201) match the POST schemas', async () => {
    const entry = fake.state.catalogue.searchArtists('Ólafur')[0]!;
    const album = await send('POST', '/album', {
      title: entry.albums[0]!.title,
      foreignAlbumId: entry.albums[0]!.foreignAlbumId,
      monitored: true,
      artist: { foreignArtistId: entry.foreignArtistId, qualityProfileId: 1, metadataProfileId: 1, rootFolderPath: '/music' },
    });
    expect(album.status).toBe(201);
    expect(spec.errors('post', '/api/v1/album', album.body)).toEqual([]);
    const kino = fake.state.catalogue.searchArtists('Кино')[0]!;
    const artist = await send('POST', '/artist', {
      artistName: kino.artistName,
      foreignArtistId: kino.foreignArtistId,
      rootFolderPath: '/music',
      qualityProfileId: 2,
      metadataProfileId: 1,
      monitored: true,
    });
    expect(artist.status).toBe(201);
    expect(spec.errors('post', '/api/v1/artist', artist.body)).toEqual([]);
    const command = await send('POST', '/command', { name: 'RefreshArtist', artistId: 1 });
    expect(spec.errors('post', '/api/v1/command', command.body)).toEqual([]);
  });

  it('the validator does reject a wrong shape', () => {
    expect(spec.errors('get', '/api/v1/tag', [{ id: 'one', label: 'x' }]).length).toBeGreaterThan(0);
    expect(spec.errors('get', '/api/v1/artist/{id}', { id: 1, artistName: 'x', unknownField: true }).length).toBeGreaterThan(0);
  });
});
