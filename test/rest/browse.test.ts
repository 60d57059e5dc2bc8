import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { BROWSE, makeBrowseLibrary } from '../fixtures/browseLibrary.js';
import { RestClient, waitForScans } from './harness.js';

/** /rest browsing: compilation-only artists, and the same order as /api (natural numbers, articles). */

let dir: string;
let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-browse-'));
  const music = makeBrowseLibrary(dir);
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  rest = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function songBy(title: string): Promise<{ id: string; artistId: string; albumId: string; artist: string }> {
  const found = await rest.ok('search3', { query: title, artistCount: 0, albumCount: 0 });
  const song = found.searchResult3.song.find((s: { title: string }) => s.title === title);
  expect(song, title).toBeDefined();
  return song;
}

async function apiNames(query: string): Promise<string[]> {
  const res = await server.api(`/api/library/canonical?${query}`, { headers: server.admin.headers });
  return ((await res.json()) as { items: { name?: string; title?: string }[] }).items.map((i) => (i.name ?? i.title)!);
}

describe('artists who appear only on compilations', () => {
  it('getArtist lists the albums the artist appears on, and counts them', async () => {
    const song = await songBy('Fifty-Nine Song');
    expect(song.artist).toBe('Band 59');
    const r = await rest.ok('getArtist', { id: song.artistId });
    expect(r.artist).toMatchObject({ id: song.artistId, name: 'Band 59', albumCount: 1 });
    expect(r.artist.album.map((a: { id: string; name: string; artist: string }) => [a.id, a.name, a.artist]))
      .toEqual([[song.albumId, BROWSE.compilation, 'Various Artists']]);
  });

  it('an artist with its own album lists it first, then its appearances', async () => {
    const song = await songBy('Headliner Hit (Radio Edit)');
    const r = await rest.ok('getArtist', { id: song.artistId });
    expect(r.artist.albumCount).toBe(2);
    expect(r.artist.album.map((a: { name: string }) => a.name)).toEqual(['Headliner Live', BROWSE.compilation]);
  });

  it('getMusicDirectory of such an artist is not empty', async () => {
    const song = await songBy('Guest Song');
    const r = await rest.ok('getMusicDirectory', { id: song.artistId });
    expect(r.directory.name).toBe('The Guest Stars');
    expect(r.directory.child.map((c: { id: string; isDir: boolean }) => [c.id, c.isDir])).toEqual([[song.albumId, true]]);
  });

  it('search3 finds the artist by name', async () => {
    const r = await rest.ok('search3', { query: 'Guest Stars', albumCount: 0, songCount: 0 });
    expect(r.searchResult3.artist.map((a: { name: string; albumCount: number }) => [a.name, a.albumCount])).toEqual([['The Guest Stars', 1]]);
  });

  it('the artist index still lists album artists, counting their albums', async () => {
    const r = await rest.ok('getArtists');
    const all = r.artists.index.flatMap((g: { artist: { name: string }[] }) => g.artist.map((a) => a.name));
    expect(all).toEqual(BROWSE.albumArtists);
  });
});

describe('the same order as /api: natural numbers and leading articles', () => {
  it('getArtists and getIndexes group and order by the library sort key, advertising its articles', async () => {
    for (const [method, key] of [['getArtists', 'artists'], ['getIndexes', 'indexes']] as const) {
      const r = (await rest.ok(method))[key];
      expect(r.ignoredArticles).toBe('The El La Los Las Le Les');
      const groups = r.index.map((g: { name: string; artist: { name: string }[] }) => [g.name, g.artist.map((a) => a.name)]);
      expect(groups).toEqual([['B', ['Band 9', 'Band 10']], ['H', ['Headliner']], ['V', ['Various Artists']], ['Z', ['The Zebras']]]);
    }
    const apiAlbumArtists = (await apiNames('kind=artists&pageSize=100&sort=name')).filter((n) => BROWSE.albumArtists.includes(n));
    expect(apiAlbumArtists).toEqual(BROWSE.albumArtists);
  });

  it('getAlbumList2 alphabetical lists match the /api album orders', async () => {
    const byName = (await rest.ok('getAlbumList2', { type: 'alphabeticalByName', size: 50 })).albumList2.album.map((a: { name: string }) => a.name);
    expect(byName).toEqual(BROWSE.albums);
    expect(byName).toEqual(await apiNames('kind=albums&pageSize=100&sort=name'));
    const byArtist = (await rest.ok('getAlbumList2', { type: 'alphabeticalByArtist', size: 50 })).albumList2.album.map((a: { name: string }) => a.name);
    expect(byArtist).toEqual(await apiNames('kind=albums&pageSize=100&sort=artist'));
  });

  it('getArtist orders an artist’s albums of one year naturally', async () => {
    const song = await songBy('White');
    const r = await rest.ok('getArtist', { id: song.artistId });
    expect(r.artist.album.map((a: { name: string }) => a.name)).toEqual(['Stripes 2', 'Stripes 10']);
  });

  it('getArtists carries the sort key as sortName, in which clients sorting by it find the same order', async () => {
    const r = await rest.ok('getArtists');
    const entries = r.artists.index.flatMap((g: { artist: { name: string; sortName: string }[] }) => g.artist);
    const keys = entries.map((a: { sortName: string }) => a.sortName);
    expect([...keys].sort()).toEqual(keys);
    expect(entries.find((a: { name: string }) => a.name === 'The Zebras').sortName).toBe('zebras');
  });
});
