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
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let mb: MusicBrainzFake;
let caa: CoverArtFake;
let dz: DeezerFake;
let lf: LastFmFake;
let dir: string;

const call = async (pathname: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await server.api(pathname, { token: server.admin.token, ...init });
  return { status: res.status, body: (await res.json()) as any };
};
const get = (pathname: string) => call(pathname);
const track = (id: number, title: string, rank: number, preview = true) => ({ id, title, durationS: 200, rank, preview, album: { id: id * 10, title: 'Dawn' } });

/** Reads server-sent events until the stream ends or `until` says stop. */
async function readEvents(res: Response, until?: (event: string) => boolean): Promise<{ event: string; data: any }[]> {
  const events: { event: string; data: any }[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      events.push({ event, data: JSON.parse(data) });
      if (until?.(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

beforeAll(async () => {
  const guest = catalogue.find((a) => a.id === ids.guest)!;
  guest.urls = [{ type: 'youtube', url: 'https://www.youtube.com/@guestsinger' }];
  mb = await startMusicBrainzFake(catalogue);
  caa = await startCoverArtFake();
  caa.setCover(ids.rgDawn, await sharp({ create: { width: 32, height: 32, channels: 3, background: 'red' } }).jpeg().toBuffer());
  dz = await startDeezerFake([
    { id: 501, name: 'Aurora Lane', fans: 9000, top: [track(5011, 'First Light', 900), track(5012, 'Morning Tide', 800, false)] },
    { id: 502, name: 'Aurora Lane Tribute Band', fans: 10, top: [track(5021, 'Covers Medley', 100)] },
    { id: 503, name: 'Aurora Borealis Choir', fans: 50, top: [track(5031, 'Polar Night', 300)] },
  ]);
  dz.pictureBytes = await sharp({ create: { width: 48, height: 48, channels: 3, background: 'blue' } }).jpeg().toBuffer();
  lf = await startLastFmFake([
    {
      name: 'Aurora Lane',
      mbid: ids.aurora,
      bio: 'Aurora Lane is a dream pop band from Norway.',
      tags: ['dream pop', 'shoegaze'],
      similar: [
        { name: 'Aurora Borealis Choir', mbid: ids.auroraBorealis, match: 0.9 },
        { name: 'Guest Singer', mbid: ids.guest, match: 0.5 },
        { name: 'Band Without Id', match: 0.2 },
      ],
    },
    { name: 'Aurora Borealis Choir', bio: 'A choir.', similar: [{ name: 'Aurora Lane', mbid: ids.aurora, match: 0.8 }] },
  ]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-enrich-'));
  const music = path.join(dir, 'music');
  writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', '01.mp3'), makeMp3Template(dir), {
    title: 'First Light', artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', track: 1, date: '2019',
    musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn, musicbrainzAlbumId: ids.relDawn,
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
  const scan = await call('/api/library/refresh', { method: 'POST', json: { mode: 'full' } });
  for (let i = 0; i < 200; i++) {
    if ((await get(`/api/library/refresh/${scan.body.jobId}`)).body.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);
afterAll(async () => {
  await server.stop();
  await Promise.all([mb.close(), caa.close(), dz.close(), lf.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('similar artists (Last.fm)', () => {
  it('answers 409 NOT_CONFIGURED naming the setting while Last.fm has no API key', async () => {
    const { status, body } = await get(`/api/artists/${ids.aurora}/similar`);
    expect(status).toBe(409);
    expect(body.code).toBe('NOT_CONFIGURED');
    expect(body.message).toContain('integrations.lastfm.apiKey');
    expect(lf.requests.length).toBe(0);
    server.ctx.settings.update({ integrations: { lastfm: { apiKey: lf.apiKey } } });
  });

  it('lists similar artists with their MBIDs, marks the ones in the library, and honours limit', async () => {
    const { status, body } = await get(`/api/artists/${ids.auroraBorealis}/similar`);
    expect(status).toBe(200);
    expect(body.artists).toEqual([
      { id: ids.aurora, name: 'Aurora Lane', match: 0.8, url: expect.stringContaining('last.fm'), imageUrl: null, inLibrary: true, libraryArtistId: expect.stringMatching(/^\d+$/) },
    ]);
    const lane = await get(`/api/artists/${ids.aurora}/similar?limit=2`);
    expect(lane.body.artists.map((a: any) => [a.name, a.id, a.inLibrary])).toEqual([
      ['Aurora Borealis Choir', ids.auroraBorealis, false],
      ['Guest Singer', ids.guest, false],
    ]);
    const before = lf.requests.length;
    expect((await get(`/api/artists/${ids.aurora}/similar?limit=3`)).body.artists).toHaveLength(3);
    expect(lf.requests.length).toBe(before);
    expect((await get(`/api/artists/${ids.aurora}/similar?limit=0`)).status).toBe(400);
  });

  it('serves a cached list while Last.fm is down, and 502 for an artist never fetched', async () => {
    lf.faults.down = true;
    try {
      expect((await get(`/api/artists/${ids.aurora}/similar`)).status).toBe(200);
      const cold = await get(`/api/artists/${ids.guest}/similar`);
      expect(cold.status).toBe(502);
      expect(cold.body.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      lf.faults.down = false;
    }
  });
});

describe('pictures and previews (Deezer)', () => {
  it('answers the artist picture of the Deezer artist found by name, through the image proxy', async () => {
    const { status, body } = await get(`/api/artists/${ids.aurora}/cover`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ mbid: ids.aurora, source: 'deezer', deezerArtistId: '501', deezerName: 'Aurora Lane', overridden: false });
    expect(body.imageUrl).toMatch(/^\/api\/image-proxy\/[0-9a-f]{32}$/);
    expect(body.images.map((i: any) => i.size)).toEqual(['small', 'medium', 'large', 'xl']);
    const picture = await server.api(body.imageUrl);
    expect(picture.status).toBe(200);
    expect((await sharp(Buffer.from(await picture.arrayBuffer())).metadata()).width).toBe(48);
    const none = await get(`/api/artists/${ids.guest}/cover`);
    expect(none.body).toMatchObject({ source: null, deezerArtistId: null, imageUrl: null, images: [] });
  });

  it('asks Deezer again with refresh=true', async () => {
    const before = dz.requests.filter((r) => r.path === '/search/artist').length;
    await get(`/api/artists/${ids.aurora}/cover`);
    expect(dz.requests.filter((r) => r.path === '/search/artist').length).toBe(before);
    await get(`/api/artists/${ids.aurora}/cover?refresh=true`);
    expect(dz.requests.filter((r) => r.path === '/search/artist').length).toBe(before + 1);
  });

  it('retries a picture that failed to download after refresh=true', async () => {
    const { body } = await get(`/api/artists/${ids.auroraBorealis}/cover`);
    expect(body.deezerArtistId).toBe('503');
    dz.faults.failNext(1, 503);
    expect((await server.api(body.imageUrl)).status).toBe(502);
    const before = dz.requests.length;
    expect((await server.api(body.imageUrl)).status).toBe(502);
    expect(dz.requests.length).toBe(before);
    const again = await get(`/api/artists/${ids.auroraBorealis}/cover?refresh=true`);
    expect(again.body.imageUrl).toBe(body.imageUrl);
    expect((await server.api(body.imageUrl)).status).toBe(200);
  });

  it('lists top tracks with preview URLs (null when Deezer has none)', async () => {
    const { status, body } = await get(`/api/artists/${ids.aurora}/preview`);
    expect(status).toBe(200);
    expect(body.deezerArtistId).toBe('501');
    expect(body.tracks.map((t: any) => [t.title, t.durationMs, t.previewUrl])).toEqual([
      ['First Light', 200_000, `${dz.url}/preview/5011.mp3`],
      ['Morning Tide', 200_000, null],
    ]);
    expect(body.tracks[0].album.coverUrl).toMatch(/^\/api\/image-proxy\//);
  });
});

describe('overrides', () => {
  it('validates, stores and answers the overrides', async () => {
    expect((await get(`/api/artists/${ids.aurora}/overrides`)).body).toEqual({ mbid: ids.aurora, musicbrainzId: null, deezerArtistId: null });
    const bad = await call(`/api/artists/${ids.aurora}/overrides`, { method: 'PUT', json: { deezerArtistId: 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect((await call(`/api/artists/${ids.aurora}/overrides`, { method: 'PUT', json: { musicbrainzId: 'nope' } })).status).toBe(400);
  });

  it('makes later Deezer lookups use the named Deezer artist, and clearing it goes back to the name match', async () => {
    const put = await call(`/api/artists/${ids.aurora}/overrides`, { method: 'PUT', json: { deezerArtistId: 502 } });
    expect(put.body).toEqual({ mbid: ids.aurora, musicbrainzId: null, deezerArtistId: '502' });
    expect((await get(`/api/artists/${ids.aurora}/cover`)).body).toMatchObject({ deezerArtistId: '502', deezerName: 'Aurora Lane Tribute Band', overridden: true });
    expect((await get(`/api/artists/${ids.aurora}/preview`)).body.tracks.map((t: any) => t.title)).toEqual(['Covers Medley']);
    await call(`/api/artists/${ids.aurora}/overrides`, { method: 'PUT', json: { deezerArtistId: null } });
    expect((await get(`/api/artists/${ids.aurora}/cover`)).body).toMatchObject({ deezerArtistId: '501', overridden: false });
  });

  it('makes later lookups of every kind follow a musicbrainzId override', async () => {
    // Guest Singer is "really" the choir: its page, similar artists and picture follow.
    await call(`/api/artists/${ids.guest}/overrides`, { method: 'PUT', json: { musicbrainzId: ids.auroraBorealis } });
    expect((await get(`/api/artists/${ids.guest}?mode=core`)).body.name).toBe('Aurora Borealis Choir');
    expect((await get(`/api/artists/${ids.guest}/similar`)).body.artists.map((a: any) => a.name)).toEqual(['Aurora Lane']);
    expect((await get(`/api/artists/${ids.guest}/cover`)).body).toMatchObject({ deezerArtistId: '503' });
    await call(`/api/artists/${ids.guest}/overrides`, { method: 'PUT', json: { musicbrainzId: null } });
    expect((await get(`/api/artists/${ids.guest}/cover`)).body.deezerArtistId).toBeNull();
    expect((await get(`/api/artists/${ids.guest}/overrides`)).body.musicbrainzId).toBeNull();
  });
});

describe('video, appears-on and release-group covers', () => {
  it("answers the artist's video links from MusicBrainz, or 404 saying why there is none", async () => {
    const found = await get(`/api/artists/${ids.guest}/video?track=${encodeURIComponent('Some Song')}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ artist: 'Guest Singer', track: 'Some Song', source: 'musicbrainz', scope: 'artist', videos: [{ type: 'youtube', url: 'https://www.youtube.com/@guestsinger' }] });
    const none = await get(`/api/artists/${ids.aurora}/video?track=Dawn`);
    expect(none.status).toBe(404);
    expect(none.body.error).toBe('Video not found');
    expect(none.body.message).toContain('Aurora Lane');
    expect((await get(`/api/artists/${ids.aurora}/video`)).status).toBe(400);
  });

  it('finds what an artist appears on (POST)', async () => {
    const { status, body } = await call(`/api/artists/${ids.aurora}/appears-on`, { method: 'POST' });
    expect(status).toBe(200);
    expect(body['appears-on-release-groups'].map((g: any) => [g.title, g.inLibrary])).toEqual([['Northern Songs', false]]);
  });

  it('answers a release-group cover, and refresh=true asks the archive again', async () => {
    const first = await get(`/api/artists/release-group/${ids.rgDawn}/cover`);
    expect(first.status).toBe(200);
    expect(first.body.coverUrl).toMatch(/^\/api\/image-proxy\//);
    expect(first.body.images[0]).toMatchObject({ front: true, types: ['Front'] });
    const lookups = () => caa.requests.filter((r) => r.path === `/release-group/${ids.rgDawn}`).length;
    const before = lookups();
    await get(`/api/artists/release-group/${ids.rgDawn}/cover`);
    expect(lookups()).toBe(before);
    await get(`/api/artists/release-group/${ids.rgDawn}/cover?refresh=true`);
    expect(lookups()).toBe(before + 1);
    expect((await get(`/api/artists/release-group/${ids.rgDusk}/cover`)).body).toEqual({ mbid: ids.rgDusk, coverUrl: null, images: [] });
  });

  it('answers batch covers and ratings keyed by MBID, bounded to 100', async () => {
    const unknown = '00000000-0000-4000-8000-0000000009ff';
    const covers = await call('/api/artists/release-groups/covers', { method: 'POST', json: { mbids: [ids.rgDawn, ids.rgDusk, unknown] } });
    expect(covers.status).toBe(200);
    expect(covers.body.covers[ids.rgDawn].coverUrl).toMatch(/^\/api\/image-proxy\//);
    expect(covers.body.covers[ids.rgDusk]).toEqual({ coverUrl: null });
    expect(covers.body.covers[unknown]).toEqual({ coverUrl: null });
    expect(covers.body.pending).toEqual([]);
    const ratings = await call('/api/artists/release-groups/ratings', { method: 'POST', json: { mbids: [ids.rgDawn, ids.rgDusk, unknown] } });
    expect(ratings.body).toEqual({ ratings: { [ids.rgDawn]: { value: 4.5, votes: 4 }, [ids.rgDusk]: { value: null, votes: 0 }, [unknown]: null }, pending: [] });
    // An archive outage: what was never fetched is listed as pending (refreshed in the background), not a failure.
    caa.faults.down = true;
    try {
      const down = await call('/api/artists/release-groups/covers', { method: 'POST', json: { mbids: [ids.rgDawn, ids.rgSingle] } });
      expect(down.status).toBe(200);
      expect(down.body.covers[ids.rgDawn].coverUrl).toMatch(/^\/api\/image-proxy\//);
      expect(down.body.covers[ids.rgSingle]).toEqual({ coverUrl: null });
      expect(down.body.pending).toEqual([ids.rgSingle]);
    } finally {
      caa.faults.down = false;
    }
    const tooMany = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect((await call('/api/artists/release-groups/covers', { method: 'POST', json: { mbids: tooMany } })).status).toBe(400);
    expect((await call('/api/artists/release-groups/ratings', { method: 'POST', json: { mbids: [] } })).status).toBe(400);
  });
});

describe('the artist stream (server-sent events)', () => {
  it('sends the core artist first, then every enrichment, then done', async () => {
    const res = await server.api(`/api/artists/${ids.aurora}/stream`, { token: server.admin.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await readEvents(res);
    expect(events[0]!.event).toBe('artist');
    expect(events[0]!.data).toMatchObject({ id: ids.aurora, name: 'Aurora Lane', appearsOnLoaded: false });
    expect(events.at(-1)!.event).toBe('done');
    const names = events.map((e) => e.event);
    expect(new Set(names)).toEqual(new Set(['artist', 'appears-on', 'similar', 'bio', 'cover', 'preview', 'done']));
    expect(names.indexOf('similar')).toBeLessThan(names.indexOf('bio'));
    expect(names.indexOf('cover')).toBeLessThan(names.indexOf('preview'));
    const by = Object.fromEntries(events.map((e) => [e.event, e.data]));
    expect(by.bio).toMatchObject({ source: 'lastfm', summary: 'Aurora Lane is a dream pop band from Norway.', tags: ['dream pop', 'shoegaze'] });
    expect(by.similar.artists[0].name).toBe('Aurora Borealis Choir');
    expect(by.cover.deezerArtistId).toBe('501');
    expect(by.preview.tracks[0].title).toBe('First Light');
    expect(by['appears-on']['appears-on-release-groups'][0].title).toBe('Northern Songs');
    expect(by.done.events).toHaveLength(5);
  });

  it('sends a failed part as an error body and still completes', async () => {
    lf.faults.down = true;
    try {
      const events = await readEvents(await server.api(`/api/artists/${ids.auroraBorealis}/stream`, { token: server.admin.token }));
      const by = Object.fromEntries(events.map((e) => [e.event, e.data]));
      expect(by.bio).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 502 });
      expect(by.cover.deezerArtistId).toBe('503');
      expect(events.at(-1)!.event).toBe('done');
    } finally {
      lf.faults.down = false;
    }
  });

  it('accepts the session as ?token= (EventSource sends no headers)', async () => {
    const res = await fetch(`${server.url}/api/artists/${ids.aurora}/stream?token=${server.admin.token}`);
    expect(res.status).toBe(200);
    expect((await readEvents(res, (e) => e === 'artist')).map((e) => e.event)).toEqual(['artist']);
    expect((await fetch(`${server.url}/api/artists/${ids.aurora}/stream`)).status).toBe(401);
  });

  it('answers a plain 404 for an unknown artist', async () => {
    const res = await server.api('/api/artists/00000000-0000-4000-8000-0000000009ab/stream', { token: server.admin.token });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Artist not found' });
  });

  it('stops its work when the client goes away', async () => {
    // A cold artist with Deezer answering slowly: the client leaves after the first event.
    const artistId = '00000000-0000-4000-8000-000000000077';
    mb.add({ id: artistId, name: 'Slow Star', releaseGroups: [] });
    dz.add({ id: 777, name: 'Slow Star', top: [track(7771, 'Slowly', 10)] });
    dz.faults.delayMs = 400;
    try {
      const controller = new AbortController();
      const res = await server.api(`/api/artists/${artistId}/stream`, { token: server.admin.token, signal: controller.signal });
      const events = await readEvents(res, (e) => e === 'artist');
      expect(events.map((e) => e.event)).toEqual(['artist']);
      controller.abort();
      await new Promise((r) => setTimeout(r, 1200));
      expect(dz.requests.some((r) => r.path === '/search/artist' && r.query.get('q') === 'Slow Star')).toBe(true);
      expect(dz.requests.some((r) => r.path === '/artist/777/top')).toBe(false);
    } finally {
      dz.faults.delayMs = 0;
    }
  });
});
