import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { BROWSE, makeBrowseLibrary } from '../fixtures/browseLibrary.js';
import { waitForScans } from '../rest/harness.js';

/** /api browsing: artists known only from compilations, and the natural, article-aware order. */

let dir: string;
let music: string;
let server: TestServer;

async function get(pathname: string): Promise<any> {
  const res = await server.api(pathname, { headers: server.admin.headers });
  expect(res.status).toBe(200);
  return res.json();
}
const page = (query: string) => get(`/api/library/canonical?${query}`);

async function artistId(name: string): Promise<number> {
  const found = (await page(`kind=artists&pageSize=100`)).items.find((a: { name: string }) => a.name === name);
  expect(found, name).toBeDefined();
  return found.id;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-browse-'));
  music = makeBrowseLibrary(dir);
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('artists who appear only on compilations', () => {
  it('count 0 albums of their own and the albums they appear on', async () => {
    const artists = (await page('kind=artists&pageSize=100')).items as { name: string; statistics: Record<string, number> }[];
    const stats = Object.fromEntries(artists.map((a) => [a.name, a.statistics]));
    expect(stats['Band 59']).toMatchObject({ albumCount: 0, appearsOnCount: 1, trackCount: 1, availableTrackCount: 1 });
    expect(stats['The Guest Stars']).toMatchObject({ albumCount: 0, appearsOnCount: 1, trackCount: 1 });
    // An artist with an album of its own who also appears on the compilation.
    expect(stats['Headliner']).toMatchObject({ albumCount: 1, appearsOnCount: 1, trackCount: 4 });
    // The compilation's album artist does not "appear on" its own album.
    expect(stats['Various Artists']).toMatchObject({ albumCount: 1, appearsOnCount: 0, trackCount: 4 });
    expect(stats['Band 9']).toMatchObject({ albumCount: 1, appearsOnCount: 0 });
  });

  it('the artist answer carries its own albums and, apart, the albums it appears on with its tracks there', async () => {
    const band59 = await get(`/api/library/artists/${await artistId('Band 59')}`);
    expect(band59.albums).toEqual([]);
    expect(band59.appearsOn).toHaveLength(1);
    expect(band59.appearsOn[0]).toMatchObject({ title: BROWSE.compilation, artistName: 'Various Artists', year: 2001 });
    expect(band59.appearsOn[0].tracks.map((t: { title: string; artistName: string; trackNumber: number }) => [t.trackNumber, t.title, t.artistName]))
      .toEqual([[1, 'Fifty-Nine Song', 'Band 59']]);
    expect(band59.appearsOn[0].tracks[0].files).toHaveLength(1);

    const headliner = await get(`/api/library/artists/${await artistId('Headliner')}`);
    expect(headliner.albums.map((a: { title: string }) => a.title)).toEqual(['Headliner Live']);
    expect(headliner.appearsOn.map((a: { title: string }) => a.title)).toEqual([BROWSE.compilation]);
    expect(headliner.appearsOn[0].tracks.map((t: { title: string }) => t.title)).toEqual(['Headliner Hit (Radio Edit)']);

    const various = await get(`/api/library/artists/${await artistId('Various Artists')}`);
    expect(various.albums.map((a: { title: string }) => a.title)).toEqual([BROWSE.compilation]);
    expect(various.appearsOn).toEqual([]);
  });

  it('canonical pages: appearsOn gives the albums and the tracks, own albums stay apart, totals are honest', async () => {
    const id = await artistId('Band 6');
    const own = await page(`kind=albums&pageSize=50&artistId=${id}&sort=year`);
    expect(own).toMatchObject({ total: 0, items: [] });
    const appears = await page(`kind=albums&pageSize=50&appearsOn=${id}&sort=year`);
    expect(appears.total).toBe(1);
    expect(appears.items.map((a: { title: string }) => a.title)).toEqual([BROWSE.compilation]);
    const tracks = await page(`kind=tracks&pageSize=50&appearsOn=${id}&sort=album`);
    expect(tracks.total).toBe(1);
    expect(tracks.items.map((t: { title: string }) => t.title)).toEqual(['Six Song']);

    const headliner = await artistId('Headliner');
    const guest = await page(`kind=tracks&pageSize=50&appearsOn=${headliner}&sort=album`);
    expect(guest.items.map((t: { title: string }) => t.title)).toEqual(['Headliner Hit (Radio Edit)']);
    expect((await page(`kind=albums&pageSize=50&appearsOn=${headliner}`)).total).toBe(1);
    expect((await page(`kind=tracks&pageSize=50&artistId=${headliner}`)).total).toBe(4);
    // Page bounds apply: page 2 of a one-item list is empty but keeps the total.
    expect(await page(`kind=albums&pageSize=1&page=2&appearsOn=${headliner}`)).toMatchObject({ total: 1, items: [], hasMore: false });
  });

  it('rejects a malformed appearsOn like any other id', async () => {
    const res = await server.api('/api/library/canonical?kind=albums&pageSize=10&appearsOn=abc', { headers: server.admin.headers });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: expect.any(String), code: 'INVALID_QUERY' });
  });
});

describe('sort order: natural numbers and leading articles', () => {
  const names = (items: { name?: string; title?: string }[]) => items.map((i) => i.name ?? i.title);

  it('artists by name', async () => {
    expect(names((await page('kind=artists&pageSize=100&sort=name')).items)).toEqual(BROWSE.artists);
    expect(names((await page('kind=artists&pageSize=100&sort=name&direction=desc')).items)).toEqual([...BROWSE.artists].reverse());
    // Paging walks the same order.
    const first = await page('kind=artists&pageSize=3&sort=name');
    const last = await page('kind=artists&pageSize=3&sort=name&page=3');
    expect([...names(first.items), ...names(last.items)]).toEqual([...BROWSE.artists.slice(0, 3), ...BROWSE.artists.slice(6)]);
  });

  it('albums by name, by artist and an artist’s albums of one year', async () => {
    expect(names((await page('kind=albums&pageSize=100&sort=name')).items)).toEqual(BROWSE.albums);
    const byArtist = names((await page('kind=albums&pageSize=100&sort=artist')).items);
    expect(byArtist).toEqual(['Nine Lives', 'Ten Years', 'Headliner Live', BROWSE.compilation, 'Stripes 2', 'Stripes 10']);
    const zebras = await artistId('The Zebras');
    expect(names((await page(`kind=albums&pageSize=10&artistId=${zebras}&sort=year`)).items)).toEqual(['Stripes 2', 'Stripes 10']);
  });

  it('tracks by name', async () => {
    const live = (await page('kind=tracks&pageSize=100&sort=name')).items.filter((t: { artistName: string; albumTitle: string }) => t.albumTitle === 'Headliner Live');
    expect(names(live)).toEqual(BROWSE.liveTracks);
  });

  it('short searches match the start of the same sort key', async () => {
    expect(names((await page('kind=artists&pageSize=10&query=ze')).items)).toEqual(['The Zebras']);
    expect(names((await page('kind=albums&pageSize=10&query=st')).items)).toEqual(['Stripes 2', 'Stripes 10']);
  });
});

describe('after a retag', () => {
  it('the artist a track leaves is recounted, not left claiming it', async () => {
    const stats = async (name: string) =>
      ((await page('kind=artists&pageSize=100')).items as { name: string; statistics: Record<string, number> }[]).find((a) => a.name === name)?.statistics;
    expect(await stats('The Guest Stars')).toMatchObject({ trackCount: 1, appearsOnCount: 1 });
    const file = path.join(music, 'Compilations/Now 59', '03.mp3');
    writeTaggedMp3(file, makeMp3Template(dir, 1), {
      albumArtist: 'Various Artists', album: BROWSE.compilation, date: '2001', genre: 'Pop', title: 'Guest Song', artist: 'Band 6', track: 3,
    });
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    const res = await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'quick' }, headers: server.admin.headers });
    expect(res.status).toBe(202);
    await waitForScans(server);
    expect(await stats('Band 6')).toMatchObject({ albumCount: 0, appearsOnCount: 1, trackCount: 2 });
    expect(await stats('The Guest Stars')).toMatchObject({ trackCount: 0, appearsOnCount: 0, availableTrackCount: 0 });
    const band6 = await get(`/api/library/artists/${await artistId('Band 6')}`);
    expect(band6.appearsOn[0].tracks.map((t: { title: string }) => t.title)).toEqual(['Six Song', 'Guest Song']);
  });
});
