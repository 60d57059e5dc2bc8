import fs from 'node:fs';
import WebSocket from 'ws';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadsRoot } from '../../server/domain/downloads/layout.js';
import { FLOW_RUN_QUEUE } from '../../server/domain/flows/schedule.js';
import { playlistStatus, type StatusRound } from '../../server/domain/flows/status.js';
import type { Principal } from '../../server/domain/auth/principal.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startSlskdFake } from '../fakes/slskd/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeUser } from '../downloads/helpers.js';
import { addLibrary, flowWorld, json, runFlow, runTracks, sourceCounts, waitFor } from './helpers.js';

/**
 * Flows against the Last.fm fake: templates and their availability, the validation messages of
 * reference §3.8, each template's plan drawing from its sources in its proportions, the exclusions,
 * the reserve replacing a failed track, the rotation keeping files something else uses, keeping a
 * run as a static playlist, the Lidarr import-list feed and adopting editorial presets. The download
 * worker is stopped: the jobs stay pending and the tests move them like the pipeline would.
 */

let server: TestServer;
let lastfm: LastFmFake;
let lb: ListenBrainzFake;
let user: { id: number; token: string };
const ADMIN = 1;

const token = () => server.admin.token;
const create = (body: unknown, t = token()) => server.api('/api/playlists/flows', { method: 'POST', json: body, ...(t === server.apiKey ? { headers: { 'x-api-key': t } } : { token: t }) });
const errorOf = async (res: Response, status = 400) => (await json<{ error: string; message?: string }>(res, status)).message ?? '';

beforeAll(async () => {
  [lastfm, lb] = await Promise.all([startLastFmFake(flowWorld()), startListenBrainzFake()]);
  server = await startTestServer({
    env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_LISTENBRAINZ_URL: lb.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
  });
  const settings = await server.api('/api/settings', {
    method: 'POST',
    token: token(),
    json: { integrations: { lastfm: { apiKey: lastfm.apiKey } }, downloads: { worker: { running: false } } },
  });
  expect(settings.status).toBe(200);
  addLibrary(server, 'ABCDEFGH'.split('').map((c) => `Lib ${c}`), [
    { artist: 'Lib A', title: 'Lib A Song 1' },
    { artist: 'Lib A', title: 'Lib A Song 2' },
  ]);
  // Listening history: an artist outside the library, and a track played this week.
  const play = server.ctx.db.prepare('INSERT INTO play_events (user_id, title, artist, played_at, created_at) VALUES (?, ?, ?, ?, ?)');
  play.run(ADMIN, 'Heard One Song 1', 'Heard One', server.clock.now() - 3600_000, server.clock.now());
  play.run(ADMIN, 'Chart 10 Song 1', 'Chart 10', server.clock.now() - 3600_000, server.clock.now());
  await server.ctx.discovery.refreshUser(ADMIN);
  user = await makeUser(server, 'flowuser', { accessFlow: true });
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), lastfm?.close(), lb?.close()]);
});

describe('templates and validation', () => {
  it('lists the five templates with their availability, and advertises the feature', async () => {
    const { templates } = await json(await server.api('/api/playlists/flow-templates', { token: token() }));
    expect(templates.map((t: { id: string }) => t.id)).toEqual(['discover-weekly', 'trending-mix', 'library-blend', 'focus-listening-history', 'release-radar']);
    expect(templates.every((t: { available: boolean }) => t.available)).toBe(true);
    // A user without any listening history cannot use Listening History.
    const forUser = (await json(await server.api('/api/playlists/flow-templates', { token: user.token }))).templates;
    expect(forUser.find((t: { id: string }) => t.id === 'focus-listening-history')).toMatchObject({ available: false, reason: expect.stringMatching(/^Listening History needs listening history/) });
    expect(await errorOf(await create({ templateId: 'focus-listening-history' }, user.token))).toMatch(/^Listening History needs listening history/);
    const boot = await json(await server.api('/api/health/bootstrap', { token: token() }));
    expect(boot.api.features).toContain('flows');
  });

  it('answers the validation messages of the reference', async () => {
    const base = { name: 'V', size: 10, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: '08:30' };
    expect(await errorOf(await create({ templateId: 'discover-weekly' }, server.apiKey))).toBe('Flow ownership requires a real user');
    expect(await errorOf(await create({ templateId: 'nope' }))).toBe('Unknown flow template');
    expect(await errorOf(await create({ ...base, mix: { discover: 0, focus: 0 } }))).toBe('At least one source must be enabled');
    expect(await errorOf(await create({ ...base, mix: { focus: 100 } }))).toBe('Focus needs at least one tag or related artist');
    expect(await errorOf(await create({ ...base, size: 0 }))).toBe('size must be a whole number greater than 0');
    expect(await errorOf(await create({ ...base, scheduleDays: [] }))).toBe('scheduleDays must list at least one day');
    expect(await errorOf(await create({ ...base, scheduleTime: '25:00' }))).toBe('scheduleTime must be HH:MM (24 hours)');
    expect(await errorOf(await create({ ...base, yearFrom: 2020, yearTo: 1999 }))).toBe('yearFrom must not be after yearTo');
    const ok = await json(await create(base));
    expect(ok).toMatchObject({ success: true, flow: { name: 'V', size: 10, ownerUserId: ADMIN, enabled: true, mix: { discover: 100, mix: 0, trending: 0, focus: 0 }, scheduleDays: [5], scheduleTime: '08:30' } });
    expect(await errorOf(await create({ ...base, name: 'v' }))).toBe('A flow with this name already exists');
    // Another owner may use the same name.
    expect((await create(base, user.token)).status).toBe(200);
    // An unavailable source is an error: without Last.fm, Library Blend and Focus cannot run.
    await server.api('/api/settings', { method: 'POST', token: token(), json: { integrations: { lastfm: { enabled: false } } } });
    try {
      expect(await errorOf(await create({ ...base, name: 'Blend', mix: { mix: 100 } }))).toBe('Library Blend needs Last.fm: set integrations.lastfm.apiKey in Settings');
    } finally {
      await server.api('/api/settings', { method: 'POST', token: token(), json: { integrations: { lastfm: { enabled: true } } } });
    }
    const flowId = ok.flow.id as string;
    expect(await errorOf(await server.api(`/api/playlists/flows/${flowId}/enabled`, { method: 'PUT', token: token(), json: { enabled: 'yes' } }))).toBe('enabled must be a boolean');
    const off = await json(await server.api(`/api/playlists/flows/${flowId}/enabled`, { method: 'PUT', token: token(), json: { enabled: false } }));
    expect(off).toMatchObject({ success: true, flowId, enabled: false, queued: true, operationId: expect.any(String) });
    const on = await json(await server.api(`/api/playlists/flows/${flowId}/enabled`, { method: 'PUT', token: token(), json: { enabled: true } }));
    expect(on).toMatchObject({ success: true, flowId, enabled: true, tracksQueued: 0, message: expect.any(String) });
    // Another user's flow does not exist for a plain user.
    expect((await server.api(`/api/playlists/flows/${flowId}`, { token: user.token })).status).toBe(404);
    const updated = await json(await server.api(`/api/playlists/flows/${flowId}`, { method: 'PUT', token: token(), json: { size: 12, tags: ['Shoegaze'] } }));
    expect(updated.flow).toMatchObject({ size: 12, tags: ['shoegaze'], name: 'V' });
    const deleted = await json(await server.api(`/api/playlists/flows/${flowId}`, { method: 'DELETE', token: token() }));
    expect(deleted).toMatchObject({ success: true, flowId, queued: true, operationId: expect.any(String) });
    expect((await server.api(`/api/playlists/flows/${flowId}`, { token: token() })).status).toBe(404);
  });
});

describe('planning', () => {
  const recNames = () => new Set(server.ctx.discovery.repo.allRecommendations(ADMIN).map((r) => r.name));
  const chartNames = () => new Set(server.ctx.discovery.repo.ranking('global').map((r) => r.name));
  const flowIds: Record<string, string> = {};

  // release-radar draws from recent albums of the metadata layer: test/flows/radar.test.ts.
  it('each template draws its 20 tracks from its own source', async () => {
    for (const templateId of ['discover-weekly', 'trending-mix', 'library-blend', 'focus-listening-history']) {
      const { flow } = await json(await create({ templateId }));
      expect(flow).toMatchObject({ templateId, size: 20, deepDive: false, scheduleDays: [5], scheduleTime: '00:00' });
      flowIds[templateId] = flow.id;
      const run = await runFlow(server, token(), flow.id);
      expect(run.status).toBe('downloading');
      const tracks = runTracks(server, run.id);
      expect(tracks).toHaveLength(20);
      const artists = tracks.map((t) => t.artistName);
      switch (templateId) {
        case 'discover-weekly':
          expect(sourceCounts(server, run.id)).toEqual({ discover: 20 });
          expect(artists.every((a) => recNames().has(a))).toBe(true);
          break;
        case 'trending-mix':
          expect(sourceCounts(server, run.id)).toEqual({ trending: 20 });
          expect(artists.every((a) => chartNames().has(a))).toBe(true);
          // The chart's ten first: each of them is in the flow.
          for (let i = 1; i <= 10; i++) expect(artists).toContain(`Chart ${i}`);
          // Played this week: left out (the artist's other tracks are not).
          expect(tracks.map((t) => t.trackName)).not.toContain('Chart 10 Song 1');
          break;
        case 'library-blend':
          expect(sourceCounts(server, run.id)).toEqual({ mix: 20 });
          expect(artists.every((a) => /^Lib [A-H]$/.test(a))).toBe(true);
          // Tracks already in the library are left out.
          expect(tracks.map((t) => t.trackName)).not.toContain('Lib A Song 1');
          expect(tracks.map((t) => t.trackName)).not.toContain('Lib A Song 2');
          break;
        case 'focus-listening-history':
          // Up to three artists of the listening history outside the library.
          expect([...flow.relatedArtists].sort()).toEqual(['Chart 10', 'Heard One']);
          expect(sourceCounts(server, run.id)).toEqual({ focus: 20 });
          expect(artists.every((a) => a === 'Heard One' || a === 'Chart 10' || /^Tag [1-8]$/.test(a))).toBe(true);
          expect(artists).toContain('Heard One');
          break;
      }
      // Every planned track is a pending download job of the flow; a reserve waits behind them.
      const jobs = await json<{ id: string; playlistType: string; playlistId: string; status: string }[]>(await server.api(`/api/playlists/jobs/${flow.id}`, { token: token() }));
      expect(jobs).toHaveLength(20);
      expect(jobs.every((j) => j.playlistType === 'flow' && j.playlistId === flow.id && j.status === 'pending')).toBe(true);
      // Reserve: half the size, as far as the sources reach (eight library artists give 8 × 3 tracks at most).
      expect(runTracks(server, run.id, 1)).toHaveLength(templateId === 'library-blend' ? 4 : 10);
    }
  }, 60_000);

  it('a mixed flow splits its size across the weights, and leaves out owned, played, blocked and disliked tracks', async () => {
    await json(await server.api('/api/discover/feedback', { method: 'POST', token: token(), json: { artistName: 'Rec 1', kind: 'less' } }), 201);
    await json(await server.api('/api/discover/preferences', { method: 'POST', token: token(), json: { excludedArtists: ['Rec 2'] } }));
    const { flow } = await json(await create({ name: 'Mixed', size: 20, mix: { discover: 50, trending: 25, focus: 25 }, tags: ['shoegaze'], scheduleDays: [1, 3], scheduleTime: '07:00' }));
    const run = await runFlow(server, token(), flow.id);
    expect(sourceCounts(server, run.id)).toEqual({ discover: 10, trending: 5, focus: 5 });
    const all = [...runTracks(server, run.id), ...runTracks(server, run.id, 1)];
    const names = all.map((t) => `${t.artistName} / ${t.trackName}`);
    expect(all.some((t) => t.artistName === 'Rec 1' || t.artistName === 'Rec 2')).toBe(false);
    expect(names).not.toContain('Chart 10 / Chart 10 Song 1');
    // 25 % of 20 from the shoegaze artists.
    expect(all.filter((t) => t.source === 'focus' && !/^(Tag \d|Heard One)$/.test(t.artistName))).toEqual([]);

    const blend = await json(await create({ name: 'Blend', size: 20, mix: { mix: 100 }, scheduleDays: [2], scheduleTime: '07:00' }));
    const blendRun = await runFlow(server, token(), blend.flow.id);
    const owned = runTracks(server, blendRun.id).filter((t) => t.trackName === 'Lib A Song 1' || t.trackName === 'Lib A Song 2');
    expect(owned).toEqual([]);
  }, 30_000);

  it('a failed track is replaced by the next reserve track at its place', async () => {
    const flowId = flowIds['discover-weekly']!;
    const runId = (server.ctx.db.prepare('SELECT current_run_id AS r FROM flows WHERE id = ?').get(flowId) as { r: number }).r;
    const [first] = runTracks(server, runId);
    const reserve = runTracks(server, runId, 1)[0]!;
    server.ctx.downloads.transition(first!.jobId!, { status: 'failed', error: 'No source had it' }, ['pending']);
    const now = runTracks(server, runId);
    expect(now).toHaveLength(20);
    expect(now[0]).toMatchObject({ id: reserve.id, artistName: reserve.artistName, trackName: reserve.trackName, state: 'queued', position: first!.position });
    const replacement = server.ctx.downloads.get(now[0]!.jobId!)!;
    expect(replacement).toMatchObject({ status: 'pending', playlistType: 'flow', playlistId: flowId, trackName: reserve.trackName });
    const jobs = await json<{ id: string; status: string }[]>(await server.api(`/api/playlists/jobs/${flowId}`, { token: token() }));
    expect(jobs).toHaveLength(21);
    expect(jobs[0]!.id).toBe(String(replacement.id));
    expect(jobs.at(-1)).toMatchObject({ id: String(first!.jobId), status: 'failed' });
    // Research of the failed one: it is the flow's, and it goes back to the search.
    expect((await json(await server.api(`/api/playlists/flows/${flowId}/tracks/${first!.jobId}/research`, { method: 'POST', token: token() }))).queued).toBe(1);
    expect((await server.api(`/api/playlists/flows/${flowIds['trending-mix']}/tracks/${first!.jobId}/research`, { method: 'POST', token: token() })).status).toBe(404);
  });
});

describe('durability', () => {
  it('a run handed out again after a crash is planned once', async () => {
    const { flow } = await json(await create({ name: 'Once', size: 3, mix: { trending: 100 }, scheduleDays: [6], scheduleTime: '10:00' }));
    const job = { id: 987_654, queue: FLOW_RUN_QUEUE, name: null, payload: { flowId: flow.id, trigger: 'manual' as const }, attempt: 1, maxAttempts: 3, signal: new AbortController().signal };
    await server.ctx.flows.runJob(job);
    await server.ctx.flows.runJob({ ...job, attempt: 2 });
    const runs = server.ctx.db.prepare('SELECT id, status FROM flow_runs WHERE flow_id = ?').all(flow.id);
    expect(runs).toEqual([{ id: expect.any(Number), status: 'downloading' }]);
    expect(await json(await server.api(`/api/playlists/jobs/${flow.id}`, { token: token() }))).toHaveLength(3);
  });
});

describe('rotation, keeping and feeds', () => {
  it('a new run rotates the old tracks out, keeping files a static playlist, the library or another flow uses', async () => {
    const { flow } = await json(await create({ name: 'Rotating', size: 4, mix: { discover: 100 }, scheduleDays: [0], scheduleTime: '10:00' }));
    const run1 = await runFlow(server, token(), flow.id);
    const [a, b, c, d] = runTracks(server, run1.id);
    const root = downloadsRoot(server.ctx);
    const file = (name: string) => {
      const p = path.join(root, 'Rotation', `${name}.mp3`);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, name);
      return p;
    };
    const svc = server.ctx.downloads;
    const db = server.ctx.db;
    // a: in the library and in a static playlist; b: a library file linked by reuse; c: also another flow's; d: only this flow's.
    const fa = file('a');
    db.prepare(`INSERT INTO library_tracks (id, identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (9001, 'rot-a', 'a', 'a', 'x', 'x', 0, 0, 1)`).run();
    db.prepare(`INSERT INTO library_media_files (track_id, source, path, created_at, updated_at) VALUES (9001, 'aurral', ?, 0, 0)`).run(fa);
    const music = fs.mkdtempSync(path.join(server.dataDir, 'music-'));
    const fb = path.join(music, 'b.mp3');
    fs.writeFileSync(fb, 'b');
    const fc = file('c');
    const fd = file('d');
    svc.transition(a!.jobId!, { status: 'done', finalPath: fa, progress: 100 });
    svc.transition(b!.jobId!, { status: 'done', finalPath: fb, reusedTrackId: 9001, progress: 100 });
    svc.transition(c!.jobId!, { status: 'done', finalPath: fc, progress: 100 });
    svc.transition(d!.jobId!, { status: 'done', finalPath: fd, progress: 100 });
    const other = svc.create({ userId: ADMIN, playlistType: 'flow', playlistId: 'another-flow', artistName: 'x', trackName: 'c' });
    svc.transition(other.id, { status: 'done', finalPath: fc });
    // The flow is a playlist of library tracks for every consumer (/rest, artwork): the reused one and the scanned one.
    expect(server.ctx.playlists.trackIds(server.ctx.playlists.find(flow.id)!)).toEqual([9001, 9001]);
    const kept = await json(await server.api(`/api/playlists/flows/${flow.id}/static-playlist`, { method: 'POST', token: token(), json: { name: 'Keepers' } }));
    expect(kept).toMatchObject({ success: true, name: 'Keepers', trackCount: 2 });

    const run2 = await runFlow(server, token(), flow.id);
    expect(run2.id).not.toBe(run1.id);
    expect(fs.existsSync(fa)).toBe(true);
    expect(fs.existsSync(fb)).toBe(true);
    expect(fs.existsSync(fc)).toBe(true);
    expect(fs.existsSync(fd)).toBe(false);
    for (const t of [a, b, c, d]) expect(svc.get(t!.jobId!)).toBeUndefined();
    const jobs = await json<{ id: string }[]>(await server.api(`/api/playlists/jobs/${flow.id}`, { token: token() }));
    expect(jobs).toHaveLength(4);
    // The new run never repeats the previous run's tracks.
    const before = new Set([a, b, c, d].map((t) => t!.trackName));
    expect(runTracks(server, run2.id).some((t) => before.has(t.trackName))).toBe(false);
  }, 30_000);

  it('serves the Lidarr import list with a per-flow token; a wrong token is 401 and reveals nothing', async () => {
    const { flow } = await json(await create({ name: 'Feed', size: 6, mix: { discover: 100 }, scheduleDays: [4], scheduleTime: '10:00' }));
    await runFlow(server, token(), flow.id);
    const list = await json(await server.api(`/api/playlists/flows/${flow.id}/lidarr-import-list`, { token: token() }));
    expect(list).toMatchObject({ success: true, flowId: flow.id, token: expect.stringMatching(/^[0-9a-f]{48}$/), itemCount: 6 });
    const again = await json(await server.api(`/api/playlists/flows/${flow.id}/libmgr-import-list`, { token: token() }));
    expect(again.token).toBe(list.token);
    const feed = await fetch(`${server.url}${list.path}`, { headers: { accept: 'application/json' } });
    expect(feed.status).toBe(200);
    const items = (await feed.json()) as { MusicBrainzId: string; ArtistName: string }[];
    expect(items).toHaveLength(6);
    const recs = new Map(server.ctx.discovery.repo.allRecommendations(ADMIN).map((r) => [r.name, r.mbid]));
    expect(items.every((i) => /^[0-9a-f-]{36}$/.test(i.MusicBrainzId) && recs.get(i.ArtistName) === i.MusicBrainzId)).toBe(true);
    const neutral = await fetch(`${server.url}/api/feeds/libmgr/flows/${flow.id}.json?token=${list.token}`);
    expect(neutral.status).toBe(200);
    for (const url of [`/api/feeds/lidarr/flows/${flow.id}.json?token=wrong`, `/api/feeds/lidarr/flows/${flow.id}.json`, `/api/feeds/lidarr/flows/00000000-0000-4000-8000-000000000000.json?token=${list.token}`]) {
      const res = await fetch(`${server.url}${url}`);
      expect(res.status).toBe(401);
      const body = await res.text();
      expect(body).not.toMatch(/Rec|Feed|MusicBrainzId/);
    }
    // Another user cannot read the token.
    expect((await server.api(`/api/playlists/flows/${flow.id}/lidarr-import-list`, { token: user.token })).status).toBe(404);
  }, 30_000);

  it('adopts an editorial preset as a flow and as a static playlist', async () => {
    expect((await server.api('/api/discover/playlists/adopt', { method: 'POST', token: token(), json: { presetId: 'nope' } })).status).toBe(404);
    const adopted = await json(await server.api('/api/discover/playlists/adopt', { method: 'POST', token: token(), json: { presetId: 'trending-now' } }));
    expect(adopted.flow).toMatchObject({ name: 'Trending Now', discoverPresetId: 'trending-now', mix: { trending: 100, discover: 0, mix: 0, focus: 0 }, size: 20 });
    const tagged = await json(await server.api('/api/discover/playlists/adopt', { method: 'POST', token: token(), json: { presetId: 'heavy-rotation', size: 8 } }));
    expect(tagged.flow).toMatchObject({ mix: { focus: 100 }, tags: ['rock', 'metal', 'hard rock'], size: 8 });
    const byKey = await server.api('/api/discover/playlists/adopt', { method: 'POST', headers: { 'x-api-key': server.apiKey }, json: { presetId: 'trending-now', name: 'K' } });
    expect(await errorOf(byKey)).toBe('Flow ownership requires a real user');

    const pl = await json(await server.api('/api/discover/playlists/adopt-playlist', { method: 'POST', token: token(), json: { presetId: 'trending-now', size: 5, name: 'Chart copy' } }));
    expect(pl).toMatchObject({ success: true, playlist: { name: 'Chart copy' } });
    expect(pl.playlist.trackCount + pl.tracksQueued).toBe(5);
    const jobs = await json<{ playlistType: string; playlistId: string }[]>(await server.api(`/api/playlists/jobs/${pl.playlist.id}`, { token: token() }));
    expect(jobs).toHaveLength(pl.tracksQueued);
    expect(jobs.every((j) => j.playlistType === 'static' && j.playlistId === pl.playlist.id)).toBe(true);
  }, 30_000);
});

describe('status', () => {
  type Message = Record<string, any> & { type: string };
  async function subscriber(t: string) {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${t}`);
    const messages: Message[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Message));
    await waitFor(() => messages.some((m) => m.type === 'connected'), 'connected');
    ws.send(JSON.stringify({ type: 'subscribe', channels: ['playlists'] }));
    await waitFor(() => messages.some((m) => m.type === 'subscribed'), 'subscribed');
    return { ws, statuses: () => messages.filter((m) => m.type === 'playlist_status'), close: () => ws.close() };
  }

  it('is scoped to the caller', async () => {
    const admin = await json(await server.api('/api/playlists/status', { token: token() }));
    const mine = await json(await server.api('/api/playlists/status', { token: user.token }));
    const allFlows = server.ctx.db.prepare('SELECT COUNT(*) AS n FROM flows').get() as { n: number };
    expect(admin.flows).toHaveLength(allFlows.n);
    expect(mine.flows.map((f: { name: string }) => f.name)).toEqual(['V']);
    expect(admin.stats.total).toBe((server.ctx.db.prepare('SELECT COUNT(*) AS n FROM download_jobs').get() as { n: number }).n);
    expect(admin.flowStats.total).toBeGreaterThan(0);
    expect(mine.stats.total).toBe(0);
    expect(admin).toMatchObject({
      sharedPlaylists: [],
      worker: { running: false, processing: false, activeCount: 0, currentJob: null, settings: { running: false }, downloadMetrics: expect.any(Object) },
      hint: { phase: 'stopped' },
      capabilities: { availableSources: ['discover', 'mix', 'trending', 'focus'], unavailableSources: {}, lastfmRequired: false },
      operationQueue: { pending: 0, running: 0 },
      slskd: { configured: false, connected: false },
    });
  });

  it('pushes playlist_status per audience, only when it changed for that audience', async () => {
    const a = await subscriber(token());
    const u = await subscriber(user.token);
    try {
      await waitFor(() => a.statuses().length === 1 && u.statuses().length === 1, 'the first status of each');
      expect(a.statuses()[0]!.flows.length).toBeGreaterThan(1);
      expect(u.statuses()[0]!.flows.map((f: { name: string }) => f.name)).toEqual(['V']);
      // Nothing changed: the 4-second pass sends nothing.
      await new Promise((r) => setTimeout(r, 4500));
      expect(a.statuses()).toHaveLength(1);
      expect(u.statuses()).toHaveLength(1);
      // A change the administrator sees and the user does not.
      const job = server.ctx.downloads.create({ userId: ADMIN, artistName: 'Someone', trackName: 'Something' });
      await waitFor(() => a.statuses().length === 2, "the administrator's new status");
      expect(a.statuses()[1]!.stats.total).toBe(a.statuses()[0]!.stats.total + 1);
      await new Promise((r) => setTimeout(r, 600));
      expect(u.statuses()).toHaveLength(1);
      expect(job.status).toBe('pending');
    } finally {
      a.close();
      u.close();
    }
  }, 20_000);

  it('a push round reads once for every audience and gives each the status its own request gets', async () => {
    // Jobs of both owners in flows and outside them, so the per-owner split matters.
    const svc = server.ctx.downloads;
    svc.create({ userId: user.id, artistName: 'Round', trackName: 'Mine' });
    svc.create({ userId: ADMIN, artistName: 'Round', trackName: 'Theirs' });
    const round: StatusRound = {};
    const principal = (userId: number, role: 'admin' | 'user') => ({ userId, username: String(userId), role, permissions: {}, via: 'session' }) as unknown as Principal;
    const shared = [playlistStatus(server.ctx, principal(ADMIN, 'admin'), round), playlistStatus(server.ctx, principal(user.id, 'user'), round)];
    expect(round.grouped!.length).toBeGreaterThan(0);
    const own = [
      await json(await server.api('/api/playlists/status', { token: token() })),
      await json(await server.api('/api/playlists/status', { token: user.token })),
    ];
    expect(JSON.parse(JSON.stringify(shared))).toEqual(own);
    expect(own[0].stats.total).toBeGreaterThan(own[1].stats.total);
  });

  it("carries the fields the Pocket app reads, computed from the jobs, the flow runs, the retry pauses and slskd", async () => {
    const status = async (t: string) => json(await server.api('/api/playlists/status', { token: t }));
    // Two finished downloads of the user: one took three transfers (two failed first), one took one.
    const svc = server.ctx.downloads;
    const finished = [2, 0].map((failedTransfers, i) => {
      const job = svc.create({ userId: user.id, artistName: 'Metric', trackName: `Done ${i}` });
      const failedRefs = Array.from({ length: failedTransfers }, (_, k) => `slskd\u0000peer${k}`);
      svc.transition(job.id, { status: 'done', progress: 100, downloadSource: 'slskd', sourceState: JSON.stringify({ tried: [], failedRefs, errors: [] }), completedAt: job.createdAt + (i + 1) * 4000 });
      return job;
    });
    const mine = await status(user.token);
    expect(mine.worker.downloadMetrics).toMatchObject({ completedTracks: 2, avgAttemptsPerTrack: 2, avgSuccessLatencyMs: 6000 });
    expect(mine.worker.lastJobMetrics).toMatchObject({ jobId: String(finished[1]!.id), failed: false, elapsedMs: 8000 });
    expect(mine.operationQueue).toMatchObject({ processing: false, currentLabel: null });
    expect(mine.operationWorker).toEqual({ running: server.ctx.jobs.started, currentLabel: null });
    expect(mine.capabilities.unavailableSources).toEqual({});

    // A paused retry cycle shows in the maps, the worker settings of the status and the settings route.
    const shared = (await (await server.api('/api/playlists/shared-playlists', { method: 'POST', token: user.token, json: { name: 'Paused one' } })).json()) as { id: string };
    const paused = await server.api(`/api/playlists/playlists/${shared.id}/retry-cycle`, { method: 'PUT', token: user.token, json: { paused: true } });
    expect(paused.status).toBe(200);
    const after = await status(user.token);
    expect(after.retryCyclePausedByPlaylist[shared.id]).toBe(true);
    expect(after.retryCycleScheduledByPlaylist[shared.id]).toBe(false);
    expect(after.worker.settings.retryPausedPlaylistIds).toEqual([shared.id]);
    expect((await json(await server.api('/api/playlists/worker/settings', { token: token() }))).retryPausedPlaylistIds).toEqual([shared.id]);

    // Each flow with a run: its latest run, the reserve left and the failed tracks.
    const admin = await status(token());
    const runs = Object.entries(admin.worker.playlistRuns as Record<string, { runId: string; status: string; reserveDepth: number; failureSummary: { failedTracks: number } }>);
    expect(runs.length).toBeGreaterThan(0);
    for (const [flowId, run] of runs) {
      const latest = server.ctx.db.prepare('SELECT MAX(id) AS id FROM flow_runs WHERE flow_id = ?').get(flowId) as { id: number };
      expect(run.runId).toBe(String(latest.id));
      expect(run.reserveDepth).toBe((server.ctx.db.prepare(`SELECT count(*) AS n FROM flow_tracks WHERE run_id = ? AND reserve = 1 AND state = 'planned'`).get(latest.id) as { n: number }).n);
      expect(run.failureSummary.failedTracks).toBe((server.ctx.db.prepare(`SELECT count(*) AS n FROM download_jobs WHERE playlist_type = 'flow' AND playlist_id = ? AND status = 'failed'`).get(flowId) as { n: number }).n);
    }

    // slskd: nothing before it is configured; then its folder from the settings and the server state it reports.
    expect(admin.slskd).toEqual({ configured: false, connected: false, downloadPath: null, serverState: null });
    const slskd = await startSlskdFake();
    try {
      const set = await server.api('/api/settings', { method: 'POST', token: token(), json: { integrations: { slskd: { url: slskd.url, apiKey: slskd.apiKey, downloadPath: slskd.downloadsDir } } } });
      expect(set.status).toBe(200);
      let seen: Record<string, unknown> = {};
      await waitFor(async () => (seen = (await status(token())).slskd).serverState === 'Connected, LoggedIn', 'the state slskd reports');
      expect(seen).toEqual({ configured: true, connected: true, downloadPath: slskd.downloadsDir, serverState: 'Connected, LoggedIn' });
    } finally {
      await server.api('/api/settings', { method: 'POST', token: token(), json: { integrations: { slskd: { url: '', apiKey: '', downloadPath: '' } } } });
      await slskd.close();
    }
  }, 30_000);
});
