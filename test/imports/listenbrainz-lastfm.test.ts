import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUser, json, mbids, musicbrainzCatalogue, scanLibrary, until, writeLibrary } from './helpers.js';

let dir: string;
let lb: ListenBrainzFake;
let lastfm: LastFmFake;
let mb: MusicBrainzFake;
let server: TestServer;
let eve: { id: number; token: string };

const call = async (p: string, init: RequestInit & { json?: unknown; token?: string } = {}) => {
  const res = await server.api(p, { token: eve.token, ...init });
  return { status: res.status, body: await json(res) };
};
const jobsOf = (playlistId: string) =>
  server.ctx.db.prepare('SELECT track_name AS trackName, recording_mbid AS recordingMbid, playlist_type AS playlistType FROM download_jobs WHERE playlist_id = ? ORDER BY id').all(playlistId) as any[];
const titlesOf = (playlistId: string) =>
  server.ctx.db.prepare('SELECT t.title FROM static_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id WHERE e.playlist_id = ? ORDER BY e.position').pluck().all(Number(playlistId));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-imports-lb-'));
  const music = writeLibrary(dir);
  [lb, lastfm, mb] = await Promise.all([startListenBrainzFake(), startLastFmFake(), startMusicBrainzFake(musicbrainzCatalogue)]);
  lb.tokens.set('lb-token-eve', 'eve_lb');
  lb.playlists.set('11111111-1111-4111-8111-111111111111', {
    id: '11111111-1111-4111-8111-111111111111',
    title: 'Harbor Mix',
    creator: 'eve_lb',
    public: false,
    tracks: [
      { title: 'Anchor', artist: 'Velvet Harbor', recordingMbid: mbids.anchor },
      { title: 'Undertow', artist: 'Velvet Harbor', album: 'Salt and Iron', recordingMbid: mbids.undertow, durationMs: 3000 },
      { title: 'Somewhere Else', artist: 'Unknown Band' },
    ],
  });
  lb.playlists.set('22222222-2222-4222-8222-222222222222', {
    id: '22222222-2222-4222-8222-222222222222',
    title: 'Weekly Jams for eve_lb, week of 2026-11-23',
    creator: 'listenbrainz',
    createdFor: 'eve_lb',
    sourcePatch: 'weekly-jams',
    tracks: [{ title: 'Lighthouse', artist: 'Velvet Harbor', recordingMbid: mbids.lighthouse }],
  });
  lb.playlists.set('33333333-3333-4333-8333-333333333333', { id: '33333333-3333-4333-8333-333333333333', title: 'Someone else', creator: 'other', tracks: [] });
  lastfm.stations.set('rj', {
    mix: [
      { name: 'Old Pier', artist: 'Velvet Harbor', durationSeconds: 3 },
      { name: 'Tidewater', artist: 'Velvet Harbor', album: 'Salt and Iron', durationSeconds: 3 },
      { name: 'Nothing Like It', artist: 'Nobody At All' },
    ],
    library: [{ name: 'Anchor', artist: 'Velvet Harbor' }],
  });
  server = await startTestServer({
    musicDirs: [music],
    env: {
      TONEARM_LISTENBRAINZ_URL: lb.url,
      TONEARM_LASTFM_URL: lastfm.url,
      TONEARM_LASTFM_AUTH_URL: lastfm.authUrl,
      TONEARM_LASTFM_WEB_URL: lastfm.webUrl,
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
    },
  });
  await scanLibrary(server);
  eve = await createUser(server, 'eve');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([lb?.close(), lastfm?.close(), mb?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ListenBrainz', () => {
  it('needs a linked ListenBrainz account (409)', async () => {
    const res = await call('/api/playlists/import/listenbrainz/playlists');
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/ListenBrainz/);
  });

  it("lists the user's playlists (private ones with the token) and the ones made for them", async () => {
    expect((await call('/api/scrobbling/listenbrainz/link', { method: 'PUT', json: { token: 'lb-token-eve' } })).status).toBe(200);
    const res = await call('/api/playlists/import/listenbrainz/playlists');
    expect(res.status).toBe(200);
    expect(res.body.playlists).toEqual([
      { id: '11111111-1111-4111-8111-111111111111', name: 'Harbor Mix', owner: 'eve_lb', trackCount: 0, kind: 'playlist', description: null },
      { id: '22222222-2222-4222-8222-222222222222', name: 'Weekly Jams for eve_lb, week of 2026-11-23', owner: 'listenbrainz', trackCount: 0, kind: 'createdfor', description: 'weekly-jams' },
    ]);
    // The neutral spelling is the same route.
    expect((await call('/api/playlists/import/scrobbler2/playlists')).body.playlists).toHaveLength(2);
  });

  it('previews with the recording MBIDs the playlist carries (no search needed for them)', async () => {
    const before = mb.requests.length;
    const res = await call('/api/playlists/import/listenbrainz/preview', { method: 'POST', json: { playlistId: '11111111-1111-4111-8111-111111111111' } });
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ owned: 1, download: 1, unmatched: 1, unchecked: 0 });
    expect(res.body.owned[0]).toMatchObject({ title: 'Anchor' });
    expect(res.body.download[0]).toMatchObject({ title: 'Undertow', recordingMbid: mbids.undertow });
    expect(res.body.unmatched[0]).toMatchObject({ title: 'Somewhere Else', artist: 'Unknown Band' });
    // One search: only the track without an MBID.
    expect(mb.requests.length - before).toBe(1);
  });

  it('imports: static playlist with the owned track, a download job for the missing one, activity recorded', async () => {
    const res = await call('/api/playlists/import/listenbrainz', { method: 'POST', json: { playlistId: '11111111-1111-4111-8111-111111111111', name: 'From LB' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ source: 'listenbrainz', name: 'From LB', target: { type: 'static' }, total: 3 });
    expect(titlesOf(res.body.target.id)).toEqual(['Anchor']);
    const jobs = await until('the download job', () => (jobsOf(res.body.target.id).length === 1 ? jobsOf(res.body.target.id) : undefined));
    expect(jobs).toEqual([{ trackName: 'Undertow', recordingMbid: mbids.undertow, playlistType: 'static' }]);
    // No download source is set up on this server: the job fails, and the import is over.
    const activity = await until('the import to finish', async () => {
      const list = (await call('/api/requests')).body as any[];
      const item = list.find((a) => a.id === `import:${res.body.importId}`);
      return item && item.status !== 'processing' ? item : undefined;
    });
    expect(activity).toMatchObject({ kind: 'playlist_import', title: 'From LB', status: 'available', statusLabel: 'Imported', counts: { owned: 1, queued: 0, failed: 1, unmatched: 1, pending: 0 } });
  });

  it('an import that would pass the import queue limit is refused whole (409), nothing created', async () => {
    const open = () => server.ctx.db.prepare("SELECT count(*) FROM download_jobs WHERE user_id = ? AND status IN ('pending', 'downloading', 'blocked')").pluck().get(eve.id) as number;
    await until('no queued downloads', () => open() === 0 || undefined);
    expect((await call('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { importQueueLimit: 1 } } })).status).toBe(200);
    const playlists = () => server.ctx.db.prepare('SELECT count(*) FROM static_playlists').pluck().get();
    const before = playlists();
    const res = await call('/api/playlists/import/listenbrainz', { method: 'POST', json: { playlistId: '11111111-1111-4111-8111-111111111111', name: 'Too many' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'IMPORT_QUEUE_LIMIT' });
    expect(res.body.message).toMatch(/would queue 2 downloads, and you may have at most 1/);
    expect(playlists()).toBe(before);
    expect((await call('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { importQueueLimit: 500 } } })).status).toBe(200);
  });

  it('a playlist of someone else is not found', async () => {
    const res = await call('/api/playlists/import/listenbrainz/preview', { method: 'POST', json: { playlistId: '44444444-4444-4444-8444-444444444444' } });
    expect(res.status).toBe(404);
  });
});

describe('Last.fm stations', () => {
  it('lists Library, Mix and Recommended once Last.fm is linked', async () => {
    expect((await call('/api/playlists/import/lastfm/playlists')).status).toBe(409);
    await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey, apiSecret: lastfm.apiSecret } } } });
    const start = (await call('/api/scrobbling/lastfm/link')).body;
    const back = await fetch(start.url, { redirect: 'manual' });
    expect((await fetch(back.headers.get('location')!, { redirect: 'manual' })).status).toBe(302);
    const res = await call('/api/playlists/import/lastfm/playlists');
    expect(res.status).toBe(200);
    expect(res.body.playlists.map((p: any) => [p.id, p.name, p.owner, p.kind])).toEqual([
      ['library', 'Library', 'rj', 'station'],
      ['mix', 'Mix', 'rj', 'station'],
      ['recommended', 'Recommended', 'rj', 'station'],
    ]);
  });

  it('previews and imports the Mix station', async () => {
    const preview = await call('/api/playlists/import/lastfm/preview', { method: 'POST', json: { playlistId: 'mix' } });
    expect(preview.status).toBe(200);
    expect(preview.body.playlist).toEqual({ id: 'mix', name: 'Last.fm Mix' });
    expect(preview.body.counts).toEqual({ owned: 1, download: 1, unmatched: 1, unchecked: 0 });
    expect(preview.body.download[0]).toMatchObject({ title: 'Tidewater', recordingMbid: mbids.tidewater });
    const res = await call('/api/playlists/import/lastfm', { method: 'POST', json: { playlistId: 'mix' } });
    expect(res.status).toBe(201);
    expect(titlesOf(res.body.target.id)).toEqual(['Old Pier']);
    const jobs = await until('the download job', () => (jobsOf(res.body.target.id).length === 1 ? jobsOf(res.body.target.id) : undefined));
    expect(jobs).toEqual([{ trackName: 'Tidewater', recordingMbid: mbids.tidewater, playlistType: 'static' }]);
  });

  it('an unknown station is 404; a station Last.fm has nothing in gives an empty preview', async () => {
    expect((await call('/api/playlists/import/lastfm/preview', { method: 'POST', json: { playlistId: 'party' } })).status).toBe(404);
    const empty = await call('/api/playlists/import/lastfm/preview', { method: 'POST', json: { playlistId: 'recommended' } });
    expect(empty.body).toMatchObject({ total: 0, counts: { owned: 0, download: 0, unmatched: 0, unchecked: 0 } });
  });
});
