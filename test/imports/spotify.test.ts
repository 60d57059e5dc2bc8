import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spotifyLinks } from '../../server/db/playlistImports.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startSpotifyFake, type SpotifyFake, type SpotifyUserTrack } from '../fakes/spotify/index.js';
import { startYtdlpFake, type YtdlpFake } from '../fakes/ytdlp/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUser, json, mbids, musicbrainzCatalogue, scanLibrary, until, writeLibrary } from './helpers.js';

let dir: string;
let spotify: SpotifyFake;
let mb: MusicBrainzFake;
let ytdlp: YtdlpFake;
let server: TestServer;
let ann: { id: number; token: string };
/** Every response body the tests saw, to check no token ever appears in one. */
const seen: string[] = [];

async function call(pathname: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<{ status: number; body: any }> {
  const res = await server.api(pathname, { token: ann.token, ...init });
  const text = await res.text();
  seen.push(text);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const salt: SpotifyUserTrack[] = [
  { name: 'Anchor', artists: ['Velvet Harbor'], album: 'Salt and Iron' },
  { name: 'Tidewater', artists: ['Velvet Harbor'], album: 'Salt and Iron', isrc: 'USVH12200002' },
  { name: 'Not On MusicBrainz', artists: ['Nobody Known'], album: 'Nowhere' },
  { name: 'Old Pier - Remastered 2011', artists: ['Velvet Harbor'], album: 'Salt and Iron (Deluxe)' },
  { name: 'A Podcast Episode', artists: ['Some Show'], type: 'episode' },
  { name: 'Lighthouse', artists: ['Velvet Harbor', 'Guest Voice'], album: 'Salt and Iron' },
  { name: 'Gone', artists: ['Velvet Harbor'], unavailable: true },
];
/** For the shared import: owned, downloadable (yt-dlp has Undertow), unmatched, owned. */
const tide: SpotifyUserTrack[] = [
  { name: 'Anchor', artists: ['Velvet Harbor'], album: 'Salt and Iron' },
  { name: 'Undertow', artists: ['Velvet Harbor'], album: 'Salt and Iron' },
  { name: 'Not On MusicBrainz', artists: ['Nobody Known'], album: 'Nowhere' },
  { name: 'Old Pier - Remastered 2011', artists: ['Velvet Harbor'], album: 'Salt and Iron (Deluxe)' },
];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-imports-'));
  const music = writeLibrary(dir);
  [spotify, mb, ytdlp] = await Promise.all([
    startSpotifyFake(),
    startMusicBrainzFake(musicbrainzCatalogue),
    startYtdlpFake({
      entries: [
        { title: 'Velvet Harbor - Tidewater (Official Audio)', uploader: 'Velvet Harbor', duration: 3, file: 'tone.mp3', match: 'tidewater' },
        { title: 'Velvet Harbor - Undertow (Official Audio)', uploader: 'Velvet Harbor', duration: 3, file: 'tone.mp3', match: 'undertow' },
      ],
    }),
  ]);
  spotify.users.set('ann.spotify', {
    id: 'ann.spotify',
    displayName: 'Ann S',
    playlists: [
      { id: 'saltplaylist', name: 'Salt Favourites', owner: 'ann.spotify', tracks: salt },
      { id: 'tideplaylist', name: 'Tide Mix', owner: 'ann.spotify', tracks: tide },
      ...Array.from({ length: 118 }, (_, i) => ({ id: `filler${i}`, name: `Filler ${i}`, owner: 'someone', tracks: [] })),
    ],
  });
  spotify.users.set('bob.spotify', { id: 'bob.spotify', displayName: 'Bob S', playlists: [] });
  server = await startTestServer({
    musicDirs: [music],
    ytdlp: ytdlp.bin,
    env: {
      TONEARM_SPOTIFY_API_URL: spotify.apiUrl,
      TONEARM_SPOTIFY_ACCOUNTS_URL: spotify.url,
      TONEARM_SPOTIFY_BROKER_URL: spotify.brokerUrl,
      TONEARM_SPOTIFY_BROKER_CLIENT_ID: spotify.brokerClientId,
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
    },
  });
  const saved = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { folderPath: path.join(dir, 'downloads') } } });
  expect(saved.status).toBe(200);
  await scanLibrary(server);
  ann = await createUser(server, 'ann');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([spotify?.close(), mb?.close(), ytdlp?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The browser's part of the broker flow: Spotify's page → the broker → our page with the tokens in its query. */
async function connectThroughBroker(token: string): Promise<{ status: number; body: any }> {
  const start = await call('/api/playlists/import/spotify/oauth/start', { method: 'POST', token });
  expect(start.status).toBe(200);
  expect(start.body.method).toBe('broker');
  const authorize = await fetch(start.body.url, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const toBroker = authorize.headers.get('location')!;
  expect(toBroker.startsWith(`${spotify.brokerUrl}/auth?`)).toBe(true);
  const fromBroker = await fetch(toBroker, { redirect: 'manual' });
  const landing = new URL(fromBroker.headers.get('location')!);
  expect(landing.origin + landing.pathname).toBe(`${server.url}/import/spotify/callback`);
  const q = landing.searchParams;
  return call('/api/playlists/import/spotify/oauth/complete', {
    method: 'POST',
    token,
    json: { state: q.get('state'), accessToken: q.get('access_token'), refreshToken: q.get('refresh_token'), expiresIn: Number(q.get('expires_in')) },
  });
}

describe('Spotify account', () => {
  it('is not connected at first; listing needs a connection (409)', async () => {
    expect((await call('/api/playlists/import/spotify/status')).body).toEqual({ connected: false, method: 'broker', displayName: null, spotifyUserId: null, redirectUri: null });
    const list = await call('/api/playlists/import/spotify/playlists');
    expect(list.status).toBe(409);
    expect(list.body.code).toBe('NOT_CONFIGURED');
  });

  it('connects through the token broker; the tokens are checked, stored encrypted and never answered', async () => {
    spotify.authUser = 'ann.spotify';
    const done = await connectThroughBroker(ann.token);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ connected: true, method: 'broker', displayName: 'Ann S', spotifyUserId: 'ann.spotify', redirectUri: null });
    const link = spotifyLinks.get(server.ctx.db, ann.id)!;
    const issued = spotify.userTokens.at(-1)!;
    expect(link.accessTokenEnc).not.toContain(issued);
    expect(link.refreshTokenEnc).not.toContain(spotify.refreshTokens.at(-1)!);
    // The neutral spelling is the same route.
    expect((await call('/api/playlists/import/streamsvc/status')).body.connected).toBe(true);
  });

  it('refuses a state used already, or made for another user', async () => {
    const start = await call('/api/playlists/import/spotify/oauth/start', { method: 'POST' });
    const bob = await createUser(server, 'bob');
    const other = await call('/api/playlists/import/spotify/oauth/complete', { method: 'POST', token: bob.token, json: { state: start.body.state, accessToken: 'x' } });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('INVALID_STATE');
    // The attempt used it up.
    const again = await call('/api/playlists/import/spotify/oauth/complete', { method: 'POST', json: { state: start.body.state, accessToken: 'x' } });
    expect(again.body.code).toBe('INVALID_STATE');
  });

  it('connects with PKCE when a client id is set: S256 challenge, code traded with the verifier', async () => {
    spotify.pkceClientIds.add('my-own-app');
    await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { spotify: { clientId: 'my-own-app' } } } });
    try {
      const cara = await createUser(server, 'cara');
      const status = await call('/api/playlists/import/spotify/status', { token: cara.token });
      expect(status.body).toMatchObject({ connected: false, method: 'pkce', redirectUri: `${server.url}/import/spotify/callback` });
      const start = await call('/api/playlists/import/spotify/oauth/start', { method: 'POST', token: cara.token });
      const url = new URL(start.body.url);
      expect(url.searchParams.get('client_id')).toBe('my-own-app');
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      spotify.authUser = 'bob.spotify';
      const back = new URL((await fetch(start.body.url, { redirect: 'manual' })).headers.get('location')!);
      expect(back.origin + back.pathname).toBe(`${server.url}/import/spotify/callback`);
      const done = await call('/api/playlists/import/spotify/oauth/complete', { method: 'POST', token: cara.token, json: { state: back.searchParams.get('state'), code: back.searchParams.get('code') } });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ connected: true, method: 'pkce', spotifyUserId: 'bob.spotify' });
      // Renewal with the refresh_token grant and our client id.
      const before = spotify.renewals;
      server.clock.advance(58 * 60_000);
      try {
        expect((await call('/api/playlists/import/spotify/playlists', { token: cara.token })).status).toBe(200);
      } finally {
        server.clock.advance(-58 * 60_000);
      }
      expect(spotify.renewals).toBe(before + 1);
      expect((await call('/api/playlists/import/spotify', { method: 'DELETE', token: cara.token })).body).toEqual({ success: true, connected: false });
      expect(spotifyLinks.get(server.ctx.db, cara.id)).toBeUndefined();
    } finally {
      await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { spotify: { clientId: '' } } } });
    }
  });

  it('lists every playlist, following next across pages', async () => {
    const before = spotify.requests.filter((r) => r.path === '/v1/me/playlists').length;
    const list = await call('/api/playlists/import/spotify/playlists');
    expect(list.status).toBe(200);
    expect(list.body.playlists).toHaveLength(120);
    expect(list.body.playlists[0]).toEqual({ id: 'saltplaylist', name: 'Salt Favourites', owner: 'ann.spotify', trackCount: 7, kind: 'playlist', description: null });
    expect(spotify.requests.filter((r) => r.path === '/v1/me/playlists').length - before).toBe(3);
  });

  it('renews the access token 5 minutes before it expires, not earlier', async () => {
    const before = spotify.renewals;
    server.clock.advance(54 * 60_000);
    expect((await call('/api/playlists/import/spotify/playlists')).status).toBe(200);
    expect(spotify.renewals).toBe(before);
    server.clock.advance(2 * 60_000);
    expect((await call('/api/playlists/import/spotify/playlists')).status).toBe(200);
    expect(spotify.renewals).toBe(before + 1);
    expect((await call('/api/playlists/import/spotify/playlists')).status).toBe(200);
    expect(spotify.renewals).toBe(before + 1);
  });

  it('renews once after a 401 and goes on', async () => {
    const before = spotify.renewals;
    spotify.expireUserTokens();
    const list = await call('/api/playlists/import/spotify/playlists');
    expect(list.status).toBe(200);
    expect(list.body.playlists).toHaveLength(120);
    expect(spotify.renewals).toBe(before + 1);
  });

  it('waits out a 429 for its Retry-After', async () => {
    spotify.faults.failNext(1, 429, { 'Retry-After': '1' });
    const started = Date.now();
    const list = await call('/api/playlists/import/spotify/playlists');
    expect(list.status).toBe(200);
    expect(list.body.playlists).toHaveLength(120);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });
});

describe('Spotify import', () => {
  it('previews: owned, to download, not matched; episodes and unavailable tracks left out', async () => {
    const preview = await call('/api/playlists/import/spotify/preview', { method: 'POST', json: { playlistId: 'saltplaylist' } });
    expect(preview.status).toBe(200);
    const b = preview.body;
    expect(b.playlist).toEqual({ id: 'saltplaylist', name: 'Salt Favourites' });
    expect(b.total).toBe(5);
    expect(b.counts).toEqual({ owned: 2, download: 2, unmatched: 1, unchecked: 0 });
    expect(b.owned.map((t: any) => t.title)).toEqual(['Anchor', 'Old Pier - Remastered 2011']);
    expect(b.download.map((t: any) => [t.title, t.recordingMbid])).toEqual([
      ['Tidewater', mbids.tidewater],
      ['Lighthouse', mbids.lighthouse],
    ]);
    expect(b.unmatched).toEqual([{ position: 2, title: 'Not On MusicBrainz', artist: 'Nobody Known', album: 'Nowhere' }]);
    expect(b.matching).toMatchObject({ available: true, budgetExhausted: false });
    expect(b.canDownload).toBe(true);
  });

  it('imports: a static playlist with the owned tracks, download jobs for the rest that join it in order when done', async () => {
    const res = await call('/api/playlists/import/spotify', { method: 'POST', json: { playlistIds: ['saltplaylist'] } });
    expect(res.status).toBe(201);
    const [imp] = res.body.imports;
    expect(imp).toMatchObject({ source: 'spotify', sourceId: 'saltplaylist', name: 'Salt Favourites', target: { type: 'static' }, total: 5 });
    const playlistId = Number(imp.target.id);
    const titles = () =>
      server.ctx.db
        .prepare('SELECT t.title FROM static_playlist_tracks e JOIN library_tracks t ON t.id = e.track_id WHERE e.playlist_id = ? ORDER BY e.position')
        .pluck()
        .all(playlistId);
    expect(titles()).toEqual(['Anchor', 'Old Pier']);

    const jobs = await until('the download jobs', () => {
      const rows = server.ctx.db.prepare('SELECT track_name, playlist_type, playlist_id, recording_mbid FROM download_jobs WHERE playlist_id = ? ORDER BY id').all(String(playlistId)) as any[];
      return rows.length === 2 ? rows : undefined;
    });
    expect(jobs).toEqual([
      { track_name: 'Tidewater', playlist_type: 'static', playlist_id: String(playlistId), recording_mbid: mbids.tidewater },
      { track_name: 'Lighthouse', playlist_type: 'static', playlist_id: String(playlistId), recording_mbid: mbids.lighthouse },
    ]);
    // Tidewater is on yt-dlp: downloaded, filed, indexed, and placed after Anchor (its source order).
    await until('Tidewater in the playlist', () => titles().includes('Tidewater'), 90_000);
    expect(titles()).toEqual(['Anchor', 'Tidewater', 'Old Pier']);

    const activity = (await call('/api/requests')).body as any[];
    expect(activity.find((a) => a.id === `import:${imp.importId}`)).toMatchObject({ kind: 'playlist_import', title: 'Salt Favourites', source: 'spotify', playlistType: 'static', playlistId: String(playlistId) });
  }, 120_000);

  it('imports into a shared playlist owned by the importer: owned tracks at once, the missing one joins at its source place', async () => {
    const res = await call('/api/playlists/import/spotify', { method: 'POST', json: { playlistId: 'tideplaylist', target: 'shared' } });
    expect(res.status).toBe(201);
    const [imp] = res.body.imports;
    expect(imp).toMatchObject({ source: 'spotify', sourceId: 'tideplaylist', name: 'Tide Mix', target: { type: 'shared' }, total: 4 });
    const id = imp.target.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const detail = async () => {
      const d = await call(`/api/playlists/shared-playlists/${id}`);
      expect(d.status).toBe(200);
      return d.body;
    };
    const first = await detail();
    expect(first).toMatchObject({ name: 'Tide Mix', ownerUserId: ann.id, canEdit: true });
    expect(first.tracks.map((t: any) => [t.trackName, t.status])).toEqual([
      ['Anchor', 'available'],
      ['Old Pier - Remastered 2011', 'available'],
    ]);

    // The import job matches Undertow on MusicBrainz and adds it through the shared playlist, with its download job.
    const job = await until('the download job', () =>
      server.ctx.db
        .prepare("SELECT d.id, d.track_name, d.playlist_type, d.playlist_id, d.recording_mbid, q.priority FROM download_jobs d JOIN jobs q ON q.id = d.queue_job_id WHERE d.playlist_id = ? AND d.reused_track_id IS NULL")
        .get(id) as any,
    );
    expect(job).toMatchObject({ track_name: 'Undertow', playlist_type: 'shared', playlist_id: id, recording_mbid: mbids.undertow, priority: 5 });
    // Downloaded, filed, indexed, and joined between Anchor and Old Pier (its source order); nothing else joined.
    const joined = await until(
      'Undertow available in the shared playlist',
      async () => {
        const d = await detail();
        return d.tracks.some((t: any) => t.trackName === 'Undertow' && t.status === 'available') ? d : undefined;
      },
      90_000,
    );
    expect(joined.tracks.map((t: any) => [t.trackName, t.status, t.jobId !== null])).toEqual([
      ['Anchor', 'available', true],
      ['Undertow', 'available', true],
      ['Old Pier - Remastered 2011', 'available', true],
    ]);
    expect(joined.tracks[1].jobId).toBe(String(job.id));
    expect(joined).toMatchObject({ trackCount: 3, availableCount: 3, missingCount: 0 });
    // Joined once: the list has no second Undertow entry, /rest sees three tracks.
    const ref = server.ctx.db.prepare('SELECT seq FROM shared_playlists WHERE id = ?').get(id) as { seq: number };
    expect(server.ctx.db.prepare('SELECT COUNT(*) FROM shared_playlist_tracks WHERE playlist_seq = ?').pluck().get(ref.seq)).toBe(3);

    const activity = await until('the import done', async () => {
      const a = ((await call('/api/requests')).body as any[]).find((x) => x.id === `import:${imp.importId}`);
      return a?.status === 'available' ? a : undefined;
    });
    expect(activity).toMatchObject({
      kind: 'playlist_import',
      title: 'Tide Mix',
      source: 'spotify',
      playlistType: 'shared',
      playlistId: id,
      statusLabel: 'Imported',
      counts: { owned: 2, added: 1, unmatched: 1, queued: 0, pending: 0, failed: 0 },
    });
    // Visible to every user as a shared playlist; only the owner (or an admin) may change it.
    const other = await call(`/api/playlists/shared-playlists/${id}`, { token: server.admin.token });
    expect(other.body.tracks).toHaveLength(3);
  }, 120_000);

  it('accepts only static or shared as the target', async () => {
    const res = await call('/api/playlists/import/spotify', { method: 'POST', json: { playlistId: 'saltplaylist', target: 'flow' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('needs accessFlow to import (previewing does not)', async () => {
    const dan = await createUser(server, 'dan', { accessFlow: false });
    expect((await call('/api/playlists/import/spotify', { method: 'POST', token: dan.token, json: { playlistId: 'x' } })).status).toBe(403);
  });

  it('never answers a token', () => {
    const secrets = [...spotify.userTokens, ...spotify.refreshTokens];
    expect(secrets.length).toBeGreaterThan(3);
    for (const body of seen) for (const secret of secrets) expect(body).not.toContain(secret);
  });

  it('the API key gets 403 "User account required" on every import route', async () => {
    const headers = { 'x-api-key': server.apiKey };
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/playlists/import/spotify/status'],
      ['POST', '/api/playlists/import/spotify/oauth/start'],
      ['POST', '/api/playlists/import/spotify/oauth/complete', { state: 'x' }],
      ['DELETE', '/api/playlists/import/spotify'],
      ['GET', '/api/playlists/import/spotify/playlists'],
      ['POST', '/api/playlists/import/spotify/preview', { playlistId: 'x' }],
      ['POST', '/api/playlists/import/spotify', { playlistId: 'x' }],
      ['GET', '/api/playlists/import/listenbrainz/playlists'],
      ['POST', '/api/playlists/import/listenbrainz/preview', { playlistId: 'x' }],
      ['POST', '/api/playlists/import/listenbrainz', { playlistId: 'x' }],
      ['GET', '/api/playlists/import/lastfm/playlists'],
      ['POST', '/api/playlists/import/lastfm/preview', { playlistId: 'mix' }],
      ['POST', '/api/playlists/import/lastfm', { playlistId: 'mix' }],
      ['GET', '/api/playlists/import/scrobbler1/playlists'],
    ];
    for (const [method, p, body] of routes) {
      const res = await server.api(p, { method, headers, ...(body !== undefined && { json: body }) });
      expect(res.status, `${method} ${p}`).toBe(403);
      expect((await json(res)).error).toBe('User account required');
    }
  });
});
