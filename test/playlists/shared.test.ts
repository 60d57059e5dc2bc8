import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SubsonicAPI } from 'subsonic-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadsRoot } from '../../server/domain/downloads/layout.js';
import { type PlaylistChange } from '../../server/domain/playlists/registry.js';
import { pausedRetryCycles, runRetryCycle } from '../../server/domain/playlists/retryCycle.js';
import { enqueueDueSyncs } from '../../server/domain/playlists/sharedPlaylists.js';
import { addStaticTrackByName } from '../../server/domain/playlists/staticDownloads.js';
import { StaticPlaylists } from '../../server/domain/playlists/staticPlaylists.js';
import { playlistsRepository } from '../../server/db/playlists.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startJsonFake, type JsonFake } from '../fakes/http.js';
import { makeUser, waitFor } from '../downloads/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient, makeLibrary, waitForScans, type Fixture } from '../rest/harness.js';

let fx: Fixture;
let server: TestServer;
let source: JsonFake;
let sourceBody: string;
let ana: { id: number; token: string };
let noFlow: { id: number; token: string };
let template: Buffer;

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const admin = () => server.admin.token;

function call(method: string, url: string, token: string, body?: unknown) {
  return server.api(url, { method, token, ...(body !== undefined && { json: body }) }).then(json);
}

const counts = () => ({
  playlists: server.ctx.db.prepare('SELECT count(*) FROM shared_playlists').pluck().get(),
  entries: server.ctx.db.prepare('SELECT count(*) FROM shared_playlist_tracks').pluck().get(),
  jobs: server.ctx.db.prepare('SELECT count(*) FROM download_jobs').pluck().get(),
});

const jspf = (tracks: [string, string][], title = 'Source list') =>
  JSON.stringify({ playlist: { title, track: tracks.map(([creator, t]) => ({ creator, title: t })) } });

/** Files a job's "download" the way the pipeline ends: a tagged file under the downloads root, the job done, a scoped scan. */
async function finishJob(jobId: number, tags: { artist: string; title: string; album: string }) {
  const file = path.join(downloadsRoot(server.ctx), tags.artist, tags.album, `${tags.title}.mp3`);
  writeTaggedMp3(file, template, { ...tags, albumArtist: tags.artist, track: 1, date: '2020' });
  const done = server.ctx.downloads.transition(jobId, { status: 'done', finalPath: file, progress: 100, qualityTier: 'low', format: 'mp3', completedAt: Date.now() });
  expect(done?.status).toBe('done');
  server.ctx.library.scans.requestScan('quick', 'test download filed', [file]);
  await waitForScans(server);
}

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-shared-'));
  fx = makeLibrary(dir, { bulk: false });
  template = makeMp3Template(dir, 1);
  source = await startJsonFake(() => ({ body: sourceBody, headers: { 'content-type': 'application/json' } }));
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  await waitForScans(server);
  // Jobs stay pending: no source is set up, and the worker must not fail them meanwhile.
  expect((await call('POST', '/api/playlists/worker/stop', admin())).status).toBe(200);
  ana = await makeUser(server, 'ana', { accessFlow: true });
  noFlow = await makeUser(server, 'nils', {});
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await source?.close();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('shared playlists', () => {
  it('imports JSPF: owned tracks link to the library, missing ones become download jobs of the playlist', async () => {
    const doc = { playlist: { title: 'LB picks', annotation: 'weekly', track: [{ creator: 'Björk', title: 'Army of Me' }, { creator: 'Nobody Known', title: 'Lost Song', album: 'Lost' }] } };
    const r = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: doc });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'LB picks', description: 'weekly', ownerUserId: ana.id, trackCount: 2, availableCount: 1, canEdit: true });
    const [owned, missing] = r.body.tracks;
    expect(owned).toMatchObject({ artistName: 'Björk', trackName: 'Army of Me', status: 'available' });
    expect(owned.trackId).not.toBeNull();
    expect(missing).toMatchObject({ artistName: 'Nobody Known', trackName: 'Lost Song', albumName: 'Lost', status: 'pending', trackId: null });
    const job = server.ctx.downloads.get(Number(missing.jobId))!;
    expect(job).toMatchObject({ playlistType: 'shared', playlistId: r.body.id, userId: ana.id, status: 'pending' });
    // Every user reads it, through the registry too.
    const seen = await call('GET', `/api/playlists/shared-playlists/${r.body.id}`, noFlow.token);
    expect(seen.status).toBe(200);
    expect(seen.body.canEdit).toBe(false);
    expect(server.ctx.playlists.trackIds(server.ctx.playlists.find(r.body.id)!)).toEqual([Number(owned.trackId)]);
  });

  it('imports M3U8 with #EXTINF and plain M3U paths', async () => {
    const m3u8 = '#EXTM3U\n#PLAYLIST:Evening\n#EXTINF:3,The Beatles - Come Together\n/elsewhere/ct.ogg\n#EXTINF:200,Nobody Known - Other Song\nx.mp3\n';
    const a = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: m3u8 });
    expect(a.status).toBe(201);
    expect(a.body.name).toBe('Evening');
    expect(a.body.tracks.map((t: any) => [t.artistName, t.trackName, t.status, t.durationMs])).toEqual([
      ['The Beatles', 'Come Together', 'available', 3000],
      ['Nobody Known', 'Other Song', 'pending', 200000],
    ]);
    const plain = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: 'Björk/Post/02 Hyperballad.mp3\n', name: 'Plain', format: 'm3u' });
    expect(plain.status).toBe(201);
    expect(plain.body.tracks).toMatchObject([{ artistName: 'Björk', trackName: 'Hyperballad', albumName: 'Post', status: 'available' }]);
  });

  it('round-trips its own export, and exports JSPF and M3U8', async () => {
    const created = await call('POST', '/api/playlists/shared-playlists', ana.token, {
      name: 'Round trip',
      description: 'both kinds of tracks',
      tracks: [{ artistName: 'Björk', trackName: 'Hyperballad' }, { artistName: 'Someone New', trackName: 'Fresh', albumName: 'Debut', durationMs: 180000 }],
    });
    expect(created.status).toBe(201);
    const res = await server.api(`/api/playlists/shared-playlists/${created.body.id}/export`, { token: ana.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('Round%20trip.json');
    const exported = await res.json();
    expect(exported).toMatchObject({ format: 'tonearm-playlist', version: 1, name: 'Round trip', description: 'both kinds of tracks' });

    // The name is taken while the original exists.
    const clash = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: exported });
    expect(clash).toMatchObject({ status: 400, body: { error: 'Invalid request', message: 'Shared playlist name already exists', code: 'SHARED_PLAYLIST_NAME_CONFLICT' } });

    expect((await call('DELETE', `/api/playlists/shared-playlists/${created.body.id}`, ana.token)).status).toBe(200);
    const again = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: JSON.stringify(exported) });
    expect(again.status).toBe(201);
    const reexported = await (await server.api(`/api/playlists/shared-playlists/${again.body.id}/export?format=tonearm`, { token: ana.token })).json();
    expect({ ...reexported, exportedAt: null }).toEqual({ ...exported, exportedAt: null });
    expect(again.body.tracks.map((t: any) => t.status)).toEqual(['available', 'pending']);

    const jspfDoc = await (await server.api(`/api/playlists/shared-playlists/${again.body.id}/export?format=jspf`, { token: noFlow.token })).json();
    expect(jspfDoc.playlist.track).toEqual([
      { title: 'Hyperballad', creator: 'Björk', album: 'Post', duration: expect.any(Number) },
      { title: 'Fresh', creator: 'Someone New', album: 'Debut', duration: 180000 },
    ]);
    const m3u = await (await server.api(`/api/playlists/shared-playlists/${again.body.id}/export?format=m3u`, { token: ana.token })).text();
    expect(m3u).toContain('#EXTINF:180,Someone New - Fresh');
    expect(m3u).toContain('Björk/Post/02 Hyperballad.mp3');
    expect(m3u).not.toContain(fx.music);
  });

  it('refuses broken input with 400 in the contract shape and writes nothing', async () => {
    const before = counts();
    const cases: unknown[] = [
      { content: { playlist: { title: 'Broken', track: [{ creator: 'A', title: 'ok' }, { creator: 'B' }] } } },
      { content: '{"playlist": [' },
      { content: { tracks: [] } },
      { content: '#EXTM3U\n#EXTINF:12,Artist - Title\nok.mp3\nno-artist.mp3\n', name: 'half good' },
      { content: { format: 'tonearm-playlist', version: 1, name: 'Bad export', tracks: [{ artistName: 'A' }] } },
    ];
    for (const body of cases) {
      const r = await call('POST', '/api/playlists/shared-playlists/import', ana.token, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ error: 'Invalid request', code: 'INVALID_PLAYLIST', message: expect.any(String) });
    }
    // NUL characters never get past the JSON body check.
    expect(await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: 'ID3\u0000\u0003garbage' })).toMatchObject({ status: 400, body: { error: 'Invalid request', code: 'VALIDATION_ERROR' } });
    const schema = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { name: 'nothing' });
    expect(schema).toMatchObject({ status: 400, body: { error: 'Invalid request', code: 'VALIDATION_ERROR' } });
    const unreachable = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { url: 'http://127.0.0.1:1/list.json' });
    expect(unreachable).toMatchObject({ status: 502, body: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(counts()).toEqual(before);
  });

  it('syncs from its import source: new tracks added, removed ones dropped, or kept with keepRemovedTracks; also on schedule', async () => {
    sourceBody = jspf([['Björk', 'Army of Me'], ['Source Artist', 'One'], ['Source Artist', 'Two']]);
    const url = `${source.url}/list.jspf`;
    const imported = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { url, syncEnabled: true, syncIntervalHours: 6 });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ name: 'Source list', sourceUrl: url, sourceFormat: 'jspf', syncEnabled: true, syncIntervalHours: 6, keepRemovedTracks: false, trackCount: 3 });
    const id = imported.body.id;
    const handAdded = await call('POST', `/api/playlists/shared-playlists/${id}/tracks`, ana.token, { artistName: 'By Hand', trackName: 'Mine' });
    expect(handAdded.status).toBe(201);
    const twoJob = imported.body.tracks[2].jobId;

    sourceBody = jspf([['Source Artist', 'One'], ['Source Artist', 'Three'], ['Björk', 'Army of Me']]);
    const s1 = await call('POST', `/api/playlists/shared-playlists/${id}/sync`, ana.token);
    expect(s1).toMatchObject({ status: 200, body: { success: true, added: 1, removed: 1, kept: 0, total: 4 } });
    let detail = (await call('GET', `/api/playlists/shared-playlists/${id}`, ana.token)).body;
    expect(detail.tracks.map((t: any) => t.trackName)).toEqual(['One', 'Three', 'Army of Me', 'Mine']);
    // The dropped track's download, still waiting, is cancelled.
    expect(server.ctx.downloads.get(Number(twoJob))!.status).toBe('cancelled');

    expect((await call('PUT', `/api/playlists/shared-playlists/${id}`, ana.token, { keepRemovedTracks: true })).body.keepRemovedTracks).toBe(true);
    sourceBody = jspf([['Source Artist', 'Three']]);
    const s2 = await call('POST', `/api/playlists/shared-playlists/${id}/sync`, ana.token);
    expect(s2.body).toMatchObject({ added: 0, removed: 0, kept: 2, total: 4 });
    detail = (await call('GET', `/api/playlists/shared-playlists/${id}`, ana.token)).body;
    expect(detail.tracks.map((t: any) => [t.trackName, t.removedFromSource])).toEqual([
      ['Three', false],
      ['One', true],
      ['Army of Me', true],
      ['Mine', false],
    ]);

    // A broken source changes nothing but the recorded error.
    sourceBody = 'not a playlist at all';
    expect((await call('POST', `/api/playlists/shared-playlists/${id}/sync`, ana.token)).status).toBe(400);
    detail = (await call('GET', `/api/playlists/shared-playlists/${id}`, ana.token)).body;
    expect(detail.trackCount).toBe(4);
    expect(detail.lastSyncError).toMatch(/not valid JSON/);

    // On schedule: due once the interval has passed since the last sync.
    sourceBody = jspf([['Source Artist', 'Three'], ['Source Artist', 'Four']]);
    expect(enqueueDueSyncs(server.ctx)).toBe(0);
    server.clock.advance(6 * 3600_000 + 1000);
    expect(enqueueDueSyncs(server.ctx)).toBeGreaterThanOrEqual(1);
    await waitFor(async () => {
      const d = (await call('GET', `/api/playlists/shared-playlists/${id}`, ana.token)).body;
      return d.tracks.some((t: any) => t.trackName === 'Four') && d.lastSyncError === null;
    }, 15_000, 'the scheduled sync');
  });

  it('a missing track becomes a download job and joins the playlist when it is done; static playlists too', async () => {
    const created = await call('POST', '/api/playlists/shared-playlists', ana.token, { name: 'Grows' });
    const id = created.body.id;
    const added = await call('POST', `/api/playlists/shared-playlists/${id}/tracks`, ana.token, { artistName: 'Fresh Artist', trackName: 'Fresh Song', albumName: 'Fresh Album' });
    expect(added.body).toMatchObject({ success: true, queued: true, track: { status: 'pending', trackId: null } });
    const jobId = Number(added.body.track.jobId);
    const registry = server.ctx.playlists;
    const changes: PlaylistChange[] = [];
    const stop = registry.onChange((c) => changes.push(c));

    const staticId = new StaticPlaylists(playlistsRepository(server.ctx.db), server.ctx.clock, registry).create(ana.id, 'Mine static', []);
    const wanted = addStaticTrackByName(server.ctx, ana.id, staticId, { artistName: 'Static Artist', trackName: 'Static Song' });
    expect(wanted.job).toMatchObject({ playlistType: 'static', playlistId: String(staticId), status: 'pending' });
    expect(addStaticTrackByName(server.ctx, ana.id, staticId, { artistName: 'Björk', trackName: 'Hyperballad' }).trackId).not.toBeNull();

    await finishJob(jobId, { artist: 'Fresh Artist', title: 'Fresh Song', album: 'Fresh Album' });
    await finishJob(wanted.job!.id, { artist: 'Static Artist', title: 'Static Song', album: 'Static Album' });
    const detail = await waitFor(async () => {
      const d = (await call('GET', `/api/playlists/shared-playlists/${id}`, ana.token)).body;
      return d.tracks[0].status === 'available' ? d : undefined;
    }, 15_000, 'the downloaded track to join');
    expect(detail.availableCount).toBe(1);
    const ref = registry.find(id)!;
    expect(registry.trackIds(ref)).toEqual([Number(detail.tracks[0].trackId)]);
    expect(changes.some((c) => c.type === 'changed' && c.ref.id === id && c.ref.songCount === 1)).toBe(true);
    const staticTracks = registry.trackIds(registry.find(String(staticId))!);
    expect(staticTracks).toHaveLength(2);
    expect(server.ctx.db.prepare('SELECT title FROM library_tracks WHERE id = ?').pluck().get(staticTracks[1])).toBe('Static Song');
    stop();

    // Quality upgrades scoped to the playlist: the owner queues one for the low-quality download.
    const up = await call('POST', `/api/playlists/quality-upgrades/${id}`, ana.token);
    expect(up.body).toMatchObject({ success: true, queued: 1 });
  });

  it('owner and administrators edit; other users read only; the API key cannot own one', async () => {
    const mine = (await call('POST', '/api/playlists/shared-playlists', ana.token, { name: 'Ana only' })).body;
    const bo = await makeUser(server, 'bo', { accessFlow: true });
    expect((await call('GET', '/api/playlists/shared-playlists', bo.token)).body.find((p: any) => p.id === mine.id)).toMatchObject({ canEdit: false });
    expect((await call('PUT', `/api/playlists/shared-playlists/${mine.id}`, bo.token, { name: 'Taken over' })).status).toBe(403);
    expect((await call('POST', `/api/playlists/shared-playlists/${mine.id}/tracks`, bo.token, { artistName: 'X', trackName: 'Y' })).status).toBe(403);
    expect((await call('DELETE', `/api/playlists/shared-playlists/${mine.id}`, bo.token)).status).toBe(403);
    expect((await call('PUT', `/api/playlists/playlists/${mine.id}/retry-cycle`, bo.token, { paused: true })).status).toBe(403);
    expect((await call('POST', '/api/playlists/shared-playlists', noFlow.token, { name: 'No flow' })).status).toBe(403);
    const key = await server.api('/api/playlists/shared-playlists', { method: 'POST', headers: { 'x-api-key': server.apiKey }, json: { name: 'Key' } });
    expect(key.status).toBe(403);
    expect(((await key.json()) as any).error).toMatch(/User account required/);
    expect((await call('PUT', `/api/playlists/shared-playlists/${mine.id}`, admin(), { name: 'Renamed by admin' })).body.name).toBe('Renamed by admin');
    expect((await call('GET', '/api/playlists/shared-playlists/00000000-0000-4000-8000-000000000000', bo.token))).toMatchObject({ status: 404, body: { error: 'Shared playlist not found' } });
  });

  it('pauses and resumes the retry cycle of a playlist', async () => {
    const p = (await call('POST', '/api/playlists/shared-playlists', ana.token, { name: 'Retry me', tracks: [{ artistName: 'Gone', trackName: 'Missing' }] })).body;
    const jobId = Number(p.tracks[0].jobId);
    const svc = server.ctx.downloads;
    svc.transition(jobId, { status: 'failed', error: 'nothing found' });
    server.clock.advance(24 * 3600_000);
    const paused = await call('PUT', `/api/playlists/playlists/${p.id}/retry-cycle`, ana.token, { paused: true });
    expect(paused.body).toEqual({ success: true, playlistId: p.id, kind: 'shared', paused: true });
    expect((await call('GET', `/api/playlists/shared-playlists/${p.id}`, ana.token)).body.retryCyclePaused).toBe(true);
    runRetryCycle(server.ctx);
    expect(svc.get(jobId)!.status).toBe('failed');
    expect((await call('PUT', `/api/playlists/playlists/${p.id}/retry-cycle`, ana.token, { paused: false })).body.paused).toBe(false);
    expect(runRetryCycle(server.ctx)).toBeGreaterThanOrEqual(1);
    expect(svc.get(jobId)!.status).toBe('pending');
    // Research by hand: 409 while it is pending; research-missing after it failed again.
    expect((await call('POST', `/api/playlists/shared-playlists/${p.id}/tracks/${jobId}/research`, ana.token)).status).toBe(409);
    svc.transition(jobId, { status: 'failed', error: 'nothing found' });
    server.clock.advance(24 * 3600_000);
    expect((await call('POST', `/api/playlists/shared-playlists/${p.id}/research-missing`, ana.token)).body).toMatchObject({ success: true, queued: 1 });
    // Removing the track: gone from the list, its waiting download cancelled.
    expect((await call('DELETE', `/api/playlists/shared-playlists/${p.id}/tracks/${jobId}`, ana.token)).status).toBe(200);
    expect((await call('GET', `/api/playlists/shared-playlists/${p.id}`, ana.token)).body.tracks).toEqual([]);
    expect(svc.get(jobId)!.status).toBe('cancelled');
    expect((await call('DELETE', `/api/playlists/shared-playlists/${p.id}/tracks/${jobId}`, ana.token)).status).toBe(404);
    // Deleting the playlist drops its pause with it.
    await call('PUT', `/api/playlists/playlists/${p.id}/retry-cycle`, ana.token, { paused: true });
    expect(pausedRetryCycles(server.ctx)[p.id]).toBe(true);
    expect((await call('DELETE', `/api/playlists/shared-playlists/${p.id}`, ana.token)).status).toBe(200);
    expect(pausedRetryCycles(server.ctx)[p.id]).toBeUndefined();
    expect((await call('GET', `/api/playlists/shared-playlists/${p.id}`, ana.token)).status).toBe(404);
  });

  it('is visible through /rest in a Subsonic session, read-only for a user who does not own it', async () => {
    const p = (await call('POST', '/api/playlists/shared-playlists', admin(), { name: 'Admin shares', description: 'for all', tracks: [{ artistName: 'Björk', trackName: 'Army of Me' }, { artistName: 'The Beatles', trackName: 'Come Together' }, { artistName: 'Not', trackName: 'Owned' }] })).body;
    const api = new SubsonicAPI({ url: server.url, auth: { username: 'ana', password: 'long enough pw' } });
    const lists = await api.getPlaylists();
    const listed = lists.playlists.playlist!.find((x) => x.name === 'Admin shares')!;
    expect(listed).toMatchObject({ owner: 'admin', public: true, songCount: 2, comment: 'for all' });
    expect((listed as any).readonly).toBe(true);
    expect(listed.id).toMatch(/^pl-[0-9A-Za-z]+$/);
    // Her own shared playlist too: /rest changes only static playlists (error 50 below), so it is readonly.
    const mine = lists.playlists.playlist!.find((x) => x.name === 'Ana only' || x.name === 'Grows')!;
    expect((mine as any).readonly).toBe(true);
    const one = await api.getPlaylist({ id: listed.id });
    expect(one.playlist.entry!.map((e) => e.title)).toEqual(['Army of Me', 'Come Together']);

    const rest = new RestClient(server, { username: 'ana', password: 'long enough pw' });
    const zip = await fetch(rest.url('download', { id: listed.id }));
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toMatch(/zip/);
    expect((await zip.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const refused = await rest.json('updatePlaylist', { playlistId: listed.id, name: 'mine now' });
    expect(refused).toMatchObject({ status: 'failed', error: { code: 50 } });
    expect((await rest.json('deletePlaylist', { id: listed.id })).error.code).toBe(50);
    expect((await rest.json('createPlaylist', { playlistId: listed.id, songId: [] })).error.code).toBe(50);
    expect((await rest.json('getPlaylist', { id: 'pl-zzzzzzzzz' })).error.code).toBe(70);
    // Static playlists keep working through /rest.
    const created = await rest.ok('createPlaylist', { name: 'From a phone', songId: one.playlist.entry!.map((e) => e.id) });
    expect(created.playlist).toMatchObject({ name: 'From a phone', songCount: 2, readonly: false });
    await rest.ok('deletePlaylist', { id: created.playlist.id });
    expect(p.id).toBeTruthy();
  });
  it('keeps tracks whose jobs were cleared from the job list: research makes a new job, removal goes by entryId', async () => {
    const p = (await call('POST', '/api/playlists/shared-playlists', ana.token, { name: 'Cleared', tracks: [{ artistName: 'Still', trackName: 'Wanted' }] })).body;
    const oldJob = Number(p.tracks[0].jobId);
    expect((await call('DELETE', '/api/playlists/jobs/all', ana.token)).status).toBe(200);
    expect(server.ctx.downloads.get(oldJob)).toBeUndefined();
    let track = (await call('GET', `/api/playlists/shared-playlists/${p.id}`, ana.token)).body.tracks[0];
    expect(track).toMatchObject({ jobId: null, status: 'missing', trackName: 'Wanted' });
    expect((await call('POST', `/api/playlists/shared-playlists/${p.id}/research-missing`, ana.token)).body).toMatchObject({ queued: 1 });
    track = (await call('GET', `/api/playlists/shared-playlists/${p.id}`, ana.token)).body.tracks[0];
    expect(track.status).toBe('pending');
    expect(server.ctx.downloads.get(Number(track.jobId))).toMatchObject({ playlistType: 'shared', playlistId: p.id, trackName: 'Wanted' });
    expect((await call('DELETE', '/api/playlists/jobs/all', ana.token)).status).toBe(200);
    expect((await call('DELETE', `/api/playlists/shared-playlists/${p.id}/tracks/${track.entryId}`, ana.token)).status).toBe(200);
    expect((await call('GET', `/api/playlists/shared-playlists/${p.id}`, ana.token)).body.tracks).toEqual([]);
  });
});

describe('the import queue limit (downloads.importQueueLimit)', () => {
  const setLimit = async (n: number) => expect((await call('POST', '/api/settings', admin(), { downloads: { importQueueLimit: n } })).status).toBe(200);
  const open = () => server.ctx.db.prepare("SELECT count(*) FROM download_jobs WHERE user_id = ? AND status IN ('pending', 'downloading', 'blocked')").pluck().get(ana.id) as number;
  const doc = (title: string, n: number) => ({ playlist: { title, track: [{ creator: 'Björk', title: 'Army of Me' }, ...Array.from({ length: n }, (_, i) => ({ creator: 'Quota Band', title: `${title} ${i + 1}` }))] } });

  it('is 500 by default, so a 4,000-track JSPF import is refused whole, before anything is written', async () => {
    expect((await call('GET', '/api/settings', admin())).body.downloads.importQueueLimit).toBe(500);
    const before = counts();
    const r = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: doc('Huge list', 4000) });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('IMPORT_QUEUE_LIMIT');
    expect(r.body.message).toMatch(/^This import would queue 4000 downloads, and you may have at most 500 waiting or running/);
    expect(counts()).toEqual(before);
  });

  it('counts what the person has queued already; owned tracks do not count; 0 lifts the limit', async () => {
    await setLimit(open() + 3);
    const before = counts();
    const over = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: doc('Four missing', 4) });
    expect(over.status).toBe(409);
    expect(over.body.message).toMatch(/Import at most 3 missing tracks/);
    expect(counts()).toEqual(before);
    const fits = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: doc('Three missing', 3) });
    expect(fits.status).toBe(201);
    expect(fits.body.trackCount).toBe(4);
    // Full now: even one more is refused, with a message that says so.
    const full = await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: doc('One more', 1) });
    expect(full.status).toBe(409);
    expect(full.body.message).toMatch(/Import again once some have finished/);
    await setLimit(0);
    expect((await call('POST', '/api/playlists/shared-playlists/import', ana.token, { content: doc('No limit', 5) })).status).toBe(201);
    await setLimit(500);
  });
});
