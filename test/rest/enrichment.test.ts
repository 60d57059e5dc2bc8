import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoverArtFake, type CoverArtFake } from '../fakes/coverart/index.js';
import { startDeezerFake, type DeezerFake } from '../fakes/deezer/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient, waitForScans } from './harness.js';

let server: TestServer;
let mb: MusicBrainzFake;
let caa: CoverArtFake;
let dz: DeezerFake;
let lf: LastFmFake;
let dir: string;
let rest: RestClient;
const song = { firstLight: '', morningTide: '', polarNight: '' };
let lane: { artistId: string; albumId: string };
let choirId: string;

/** Asks until `ready` holds: the first answers come from a cold cache while refresh jobs run. */
async function eventually(method: string, params: Record<string, string | number>, ready: (r: any) => boolean): Promise<any> {
  let r: any;
  for (let i = 0; i < 100; i++) {
    r = await rest.ok(method, params);
    if (ready(r)) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`${method} never became ready: ${JSON.stringify(r)}`);
}

beforeAll(async () => {
  mb = await startMusicBrainzFake(catalogue);
  caa = await startCoverArtFake();
  caa.setCover(ids.rgDawn, await sharp({ create: { width: 16, height: 16, channels: 3, background: 'red' } }).jpeg().toBuffer());
  dz = await startDeezerFake([{ id: 501, name: 'Aurora Lane', top: [] }]);
  dz.pictureBytes = await sharp({ create: { width: 16, height: 16, channels: 3, background: 'blue' } }).jpeg().toBuffer();
  lf = await startLastFmFake([
    {
      name: 'Aurora Lane',
      mbid: ids.aurora,
      bio: 'Aurora Lane is a <a href="https://www.last.fm/music/Aurora+Lane">dream pop</a> band.',
      similar: [
        { name: 'Aurora Borealis Choir', mbid: ids.auroraBorealis, match: 0.9 },
        { name: 'Not In The Library', match: 0.5 },
      ],
      topTracks: [
        { name: 'Morning Tide', playcount: 900 },
        { name: 'A Song Nobody Has', playcount: 800 },
        { name: 'First Light', playcount: 700 },
      ],
      albums: [{ name: 'Dawn', wiki: 'Dawn is the <b>first</b> album by Aurora Lane.' }],
    },
  ]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-enrich-'));
  const music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  const lane1 = { artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', date: '2019', musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn, musicbrainzAlbumId: ids.relDawn };
  writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', '01.mp3'), template, { ...lane1, title: 'First Light', track: 1 });
  writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', '02.mp3'), template, { ...lane1, title: 'Morning Tide', track: 2 });
  writeTaggedMp3(path.join(music, 'Aurora Borealis Choir', 'Northern Songs', '01.mp3'), template, {
    title: 'Polar Night', artist: 'Aurora Borealis Choir', albumArtist: 'Aurora Borealis Choir', album: 'Northern Songs', track: 1, date: '2015',
    musicbrainzArtistId: ids.auroraBorealis, musicbrainzAlbumArtistId: ids.auroraBorealis, musicbrainzReleaseGroupId: ids.rgBorealis,
  });
  server = await startTestServer({
    musicDirs: [music],
    env: {
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_COVERART_URL: caa.url,
      TONEARM_DEEZER_URL: dz.url,
      TONEARM_LASTFM_URL: lf.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
    },
  });
  await waitForScans(server);
  server.ctx.settings.update({ integrations: { lastfm: { apiKey: lf.apiKey } } });
  rest = new RestClient(server, ADMIN);
  for (const title of Object.keys(song) as (keyof typeof song)[]) {
    const query = { firstLight: 'First Light', morningTide: 'Morning Tide', polarNight: 'Polar Night' }[title];
    const hit = (await rest.ok('search3', { query, artistCount: 0, albumCount: 0 })).searchResult3.song[0];
    song[title] = hit.id;
    if (title === 'firstLight') lane = { artistId: hit.artistId, albumId: hit.albumId };
    if (title === 'polarNight') choirId = hit.artistId;
  }
}, 60_000);
afterAll(async () => {
  await server.stop();
  await Promise.all([mb.close(), caa.close(), dz.close(), lf.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('/rest enrichment from the metadata cache', () => {
  it('getArtistInfo2 answers at once from a cold cache, then with biography, links, pictures and similar library artists', async () => {
    const started = Date.now();
    const cold = await rest.ok('getArtistInfo2', { id: lane.artistId });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(cold.artistInfo2.musicBrainzId).toBe(ids.aurora);
    const warm = await eventually('getArtistInfo2', { id: lane.artistId }, (r) => !!r.artistInfo2.biography && r.artistInfo2.similarArtist.length > 0 && !!r.artistInfo2.largeImageUrl);
    const info = warm.artistInfo2;
    expect(info.biography).toBe('Aurora Lane is a dream pop band.');
    expect(info.lastFmUrl).toContain('last.fm/music/Aurora');
    expect(info.largeImageUrl).toMatch(new RegExp(`^${server.url}/api/image-proxy/[0-9a-f]{32}$`));
    // Only the similar artist that is in the library; "Not In The Library" is left out.
    expect(info.similarArtist.map((a: any) => [a.id, a.name])).toEqual([[choirId, 'Aurora Borealis Choir']]);
    const picture = await fetch(info.largeImageUrl);
    expect(picture.status).toBe(200);
    const v1 = (await rest.ok('getArtistInfo', { id: lane.artistId })).artistInfo;
    expect(v1.similarArtist).toEqual([{ id: choirId, name: 'Aurora Borealis Choir' }]);
    expect(v1.biography).toBe(info.biography);
  });

  it('getAlbumInfo2 answers the release-group MBID and its cover pictures', async () => {
    const r = await eventually('getAlbumInfo2', { id: lane.albumId }, (x) => !!x.albumInfo.largeImageUrl);
    expect(r.albumInfo.musicBrainzId).toBe(ids.rgDawn);
    expect(r.albumInfo.smallImageUrl).toMatch(/\/api\/image-proxy\//);
    expect((await rest.ok('getAlbumInfo', { id: song.firstLight })).albumInfo.musicBrainzId).toBe(ids.rgDawn);
  });

  it("getAlbumInfo notes are Last.fm's album wiki summary while a Last.fm key is set", async () => {
    const r = await eventually('getAlbumInfo2', { id: lane.albumId }, (x) => !!x.albumInfo.notes);
    expect(r.albumInfo).toMatchObject({ notes: 'Dawn is the first album by Aurora Lane.', musicBrainzId: ids.rgDawn, lastFmUrl: 'https://www.last.fm/music/Aurora%20Lane/Dawn' });
    expect((await rest.ok('getAlbumInfo', { id: lane.albumId })).albumInfo.notes).toBe('Dawn is the first album by Aurora Lane.');
    expect(lf.requests.filter((q) => q.query.get('method') === 'album.getInfo').map((q) => [q.query.get('artist'), q.query.get('album')])).toEqual([['Aurora Lane', 'Dawn']]);
    // An album Last.fm has no wiki for (or does not know) answers without notes.
    const choirAlbum = (await rest.ok('getSong', { id: song.polarNight })).song.albumId;
    await eventually('getAlbumInfo2', { id: choirAlbum }, () => lf.requests.some((q) => q.query.get('album') === 'Northern Songs'));
    for (let i = 0; i < 20; i++) await new Promise((res) => setTimeout(res, 25));
    expect((await rest.ok('getAlbumInfo2', { id: choirAlbum })).albumInfo.notes).toBeUndefined();
    // Without a key there are no notes, and Last.fm is not asked.
    server.ctx.settings.update({ integrations: { lastfm: { apiKey: '' } } });
    try {
      const before = lf.requests.length;
      const off = await rest.ok('getAlbumInfo2', { id: lane.albumId });
      expect(off.albumInfo.notes).toBeUndefined();
      expect(off.albumInfo.musicBrainzId).toBe(ids.rgDawn);
      expect(lf.requests.length).toBe(before);
    } finally {
      server.ctx.settings.update({ integrations: { lastfm: { apiKey: lf.apiKey } } });
    }
  });

  it('getSimilarSongs2 mixes in library songs of similar artists', async () => {
    const r = await rest.ok('getSimilarSongs2', { id: song.firstLight, count: 10 });
    expect(r.similarSongs2.song.map((s: any) => s.id).sort()).toEqual([song.morningTide, song.polarNight].sort());
    const v1 = await rest.ok('getSimilarSongs', { id: lane.artistId, count: 10 });
    expect(v1.similarSongs.song).toHaveLength(3);
  });

  it("getTopSongs orders the library's songs by the artist's Last.fm top tracks", async () => {
    const r = await eventually('getTopSongs', { artist: 'Aurora Lane', count: 5 }, (x) => x.topSongs.song?.[0]?.id === song.morningTide);
    expect(r.topSongs.song.map((s: any) => s.title)).toEqual(['Morning Tide', 'First Light']);
  });

  it('never waits on a slow upstream: a cold artist answers what is known', async () => {
    lf.faults.delayMs = 3000;
    mb.faults.delayMs = 3000;
    try {
      const started = Date.now();
      const r = await rest.ok('getArtistInfo2', { id: choirId });
      expect(Date.now() - started).toBeLessThan(1500);
      expect(r.artistInfo2).toEqual({ musicBrainzId: ids.auroraBorealis, similarArtist: [] });
    } finally {
      lf.faults.delayMs = 0;
      mb.faults.delayMs = 0;
    }
  });
});
