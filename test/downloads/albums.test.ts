import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloads, type DownloadJobRow } from '../../server/db/downloads.js';
import { downloadAlbums } from '../../server/db/downloadAlbums.js';
import { type DownloadEvent } from '../../server/domain/downloads/service.js';
import type { DownloadSource } from '../../server/domain/downloads/types.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Self-managed albums with no Lidarr: MusicBrainz (fake) gives the track list, the jobs are real
 * rows on the real queue; the worker is simulated by driving `transition` as the pipeline would.
 */

let server: TestServer;
let mb: MusicBrainzFake;
let slskd: SlskdFake;
let dir: string;
const events: DownloadEvent[] = [];

const dawn = catalogue[0]!.releaseGroups[0]!;
const dusk = catalogue[0]!.releaseGroups[1]!;
const rec = (group: typeof dawn, i: number) => group.releases[0]!.tracks[i]!.recordingId;

const call = async (method: string, pathname: string, json?: unknown) => {
  const res = await server.api(pathname, { method, token: server.admin.token, ...(json !== undefined && { json }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const until = async <T>(fn: () => T | undefined | null | false, ms = 5000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const jobsOf = (albumId: number): DownloadJobRow[] =>
  downloads.list(server.ctx.db, { albumId, limit: 100, offset: 0 }).sort((a, b) => (a.trackNumber ?? 0) - (b.trackNumber ?? 0));
const service = () => server.ctx.downloads;
const setSlskd = (on: boolean) =>
  call('POST', '/api/settings', { integrations: { slskd: on ? { url: slskd.url, apiKey: slskd.apiKey, enabled: true } : { enabled: false } } });

/**
 * The slskd source is registered by the pipeline; until that lands on this branch, the test
 * registers a factory that, like the real one, exists only while slskd is configured and switched
 * on. Its transfer methods are never reached: no worker runs the track queue here.
 */
function registerSettingsBackedSource() {
  service().registerSource(() => {
    const s = server.ctx.settings.get().integrations.slskd;
    if (!s.enabled || !s.url || !s.apiKey) return null;
    const unused = () => Promise.reject(new Error('not driven in this test'));
    const source: DownloadSource = { id: 'slskd', label: 'slskd', priority: s.priority, search: unused, start: unused, poll: unused, cancel: unused };
    return source;
  });
}

beforeAll(async () => {
  mb = await startMusicBrainzFake(catalogue);
  slskd = await startSlskdFake();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-albums-'));
  const music = path.join(dir, 'music');
  // The library owns Dawn's first track.
  writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', '01.mp3'), makeMp3Template(dir), {
    title: 'First Light', artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', track: 1, date: '2019',
    musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn,
    musicbrainzAlbumId: ids.relDawn, musicbrainzRecordingId: rec(dawn, 0),
  });
  server = await startTestServer({
    musicDirs: [music],
    env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_UPSTREAM_SPACING_MS: '0', TONEARM_LIBRARY_WATCH: '0' },
  });
  // This file plays the worker (transitions by hand): the real one, once merged, stays stopped.
  expect((await call('POST', '/api/settings', { downloads: { worker: { running: false } } })).status).toBe(200);
  registerSettingsBackedSource();
  service().onEvent((e) => events.push(e));
  const scan = await call('POST', '/api/library/refresh', { mode: 'full' });
  for (let i = 0; i < 200; i++) {
    const job = await call('GET', `/api/library/refresh/${scan.body.jobId}`);
    if (job.body.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await mb?.close();
  await slskd?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a single track without a source', () => {
  it('answers 409 NOT_CONFIGURED naming the sources to set up (a single track has nothing to save)', async () => {
    const res = await call('POST', '/api/library/downloads/track', { artistName: 'Aurora Lane', trackName: 'Tide', trackMbid: rec(catalogue[0]!.releaseGroups[2]!, 0) });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringMatching(/slskd.*Usenet.*yt-dlp/) });
    expect(downloads.count(server.ctx.db, {})).toBe(0);
  });
});

describe('an album requested with no Lidarr and no source', () => {
  let albumId: number;

  it('is saved and reports download_source_missing (owned tracks count as complete)', async () => {
    const res = await call('POST', '/api/library/albums/request', { albumMbid: ids.rgDawn, albumName: 'Dawn', artistMbid: ids.aurora, artistName: 'Aurora Lane' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      createdAlbum: true,
      createdArtist: false,
      queued: false,
      managedBy: 'aurral',
      artist: { mbid: ids.aurora, artistName: 'Aurora Lane', managedBy: 'aurral' },
      album: { mbid: ids.rgDawn, releaseMbid: ids.relDawn, title: 'Dawn', trackCount: 3, managedBy: 'aurral' },
      status: 'blocked',
      albumStatus: {
        status: 'blocked',
        counts: { total: 3, complete: 1, missing: 2, queued: 0 },
        recovery: { code: 'download_source_missing', message: expect.stringContaining('slskd') },
      },
    });
    albumId = res.body.album.id;
    expect(res.body.requestId).toBe(`aurral:${albumId}`);
    expect(jobsOf(albumId)).toEqual([]);
  });

  it('gets its jobs once slskd is configured: one per missing track, with the track data', async () => {
    expect((await setSlskd(true)).status).toBe(200);
    const jobs = await until(() => (jobsOf(albumId).length === 2 ? jobsOf(albumId) : null));
    const me = server.ctx.db.prepare('SELECT id FROM users WHERE username = ?').pluck().get('admin');
    const tracks = dawn.releases[0]!.tracks;
    expect(jobs.map((j) => ({ ...j }))).toEqual([1, 2].map((i) =>
      expect.objectContaining({
        status: 'pending',
        playlistType: 'library',
        albumId,
        userId: me,
        artistName: 'Aurora Lane',
        trackName: tracks[i]!.title,
        albumName: 'Dawn',
        trackNumber: i + 1,
        discNumber: 1,
        durationMs: tracks[i]!.lengthMs,
        recordingMbid: tracks[i]!.recordingId,
        releaseMbid: ids.relDawn,
        albumMbid: ids.rgDawn,
        artistMbid: ids.aurora,
        year: 2019,
        queueJobId: expect.any(Number),
      }),
    ));
    const status = await call('GET', `/api/library/albums/aurral/${albumId}/status`);
    expect(status.body).toMatchObject({ id: `aurral:${albumId}`, status: 'queued', counts: { total: 3, complete: 1, queued: 2, missing: 0 }, recovery: null });
  });

  it('reports its progress as the worker moves the jobs, also through downloads/status without Lidarr', async () => {
    const [tide, glass] = jobsOf(albumId);
    service().transition(tide!.id, { status: 'downloading', phase: 'download', progress: 50 }, ['pending']);
    let status = await call('GET', `/api/library/downloads/status?albumIds=aurral:${albumId}`);
    expect(status.status).toBe(200);
    expect(status.body[`aurral:${albumId}`]).toMatchObject({ status: 'downloading', counts: { complete: 1, downloading: 1, queued: 1 }, progress: 50 });

    service().transition(glass!.id, { status: 'blocked', blockReason: 'duration differs' }, ['pending']);
    service().transition(tide!.id, { status: 'done', progress: 100, completedAt: Date.now() }, ['downloading']);
    status = await call('GET', '/api/library/downloads/status/all');
    expect(status.status).toBe(200);
    expect(status.body[`aurral:${albumId}`]).toMatchObject({
      status: 'blocked',
      counts: { total: 3, complete: 2, blocked: 1 },
      recovery: { code: 'review_required' },
    });
    service().transition(glass!.id, { status: 'done', completedAt: Date.now() }, ['blocked']);
    expect((await call('GET', `/api/library/albums/aurral/${albumId}/status`)).body).toMatchObject({ status: 'complete', progress: 100, recovery: null });
  });

  it('rejects malformed status ids and answers 404 for an unknown album', async () => {
    expect((await call('GET', '/api/library/downloads/status?albumIds=aurral:x')).status).toBe(400);
    expect((await call('GET', '/api/library/albums/aurral/9999/status')).status).toBe(404);
  });
});

let duskAlbumId: number;

describe('cancel and request again', () => {
  let albumId: number;

  it('creates the jobs at once when a source exists', async () => {
    const res = await call('POST', '/api/library/albums', { foreignAlbumId: ids.rgDusk, managedBy: 'aurral-managed' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ managedBy: 'aurral', queued: true, albumStatus: { status: 'queued', counts: { total: 2, queued: 2 } } });
    albumId = duskAlbumId = res.body.album.id;
    expect(jobsOf(albumId).map((j) => j.trackName)).toEqual(['Evening', 'Low Sun']);
  });

  it('cancelling keeps finished tracks and cancels the rest', async () => {
    const [evening, low] = jobsOf(albumId);
    service().transition(evening!.id, { status: 'done', completedAt: Date.now() }, ['pending']);
    service().transition(low!.id, { status: 'downloading', progress: 10 }, ['pending']);
    events.length = 0;
    const res = await call('POST', `/api/library/albums/aurral/${albumId}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, cancelled: 1, albumStatus: { status: 'partial', monitored: false, counts: { complete: 1, cancelled: 1 }, recovery: null } });
    expect(jobsOf(albumId).map((j) => j.status)).toEqual(['done', 'cancelled']);
    // The pipeline hears the cancellation (and stops a running transfer).
    expect(events.some((e) => e.type === 'job_updated' && e.job.id === low!.id && e.job.status === 'cancelled')).toBe(true);
  });

  it('requesting again retries the cancelled track (same job) and leaves the finished one', async () => {
    const before = jobsOf(albumId);
    const res = await call('POST', '/api/library/albums/request', { albumMbid: ids.rgDusk, albumName: 'Dusk', artistMbid: ids.aurora, artistName: 'Aurora Lane' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ createdAlbum: false, queued: true, albumStatus: { status: 'queued', monitored: true, counts: { complete: 1, queued: 1 } } });
    const after = jobsOf(albumId);
    expect(after.map((j) => [j.id, j.status])).toEqual([
      [before[0]!.id, 'done'],
      [before[1]!.id, 'pending'],
    ]);
    expect(after[1]!.error).toBeNull();
  });

  it('a failed track makes the album partial with source_failed, and a new request retries it', async () => {
    const low = jobsOf(albumId)[1]!;
    service().transition(low.id, { status: 'failed', error: 'no source had it' }, ['pending']);
    const status = await call('GET', `/api/library/albums/aurral/${albumId}/status`);
    expect(status.body).toMatchObject({ status: 'partial', counts: { complete: 1, failed: 1 }, recovery: { code: 'source_failed' } });
    const again = await call('PUT', `/api/library/albums/aurral/${albumId}`, { monitored: true });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'queued', counts: { queued: 1 } });
    expect(jobsOf(albumId)[1]).toMatchObject({ id: low.id, status: 'pending' });
  });
});

describe('single tracks (rules 1–3)', () => {
  let trackJobId: string;

  it('answers 200 alreadyOwned for an owned track', async () => {
    const res = await call('POST', '/api/library/downloads/track', { artistName: 'Aurora Lane', trackName: 'First Light', trackMbid: rec(dawn, 0) });
    expect(res).toMatchObject({ status: 200, body: { success: true, alreadyOwned: true, queued: false } });
  });

  it('answers 202 alreadyQueued with the job of an album already fetching it', async () => {
    const low = jobsOf(duskAlbumId).find((j) => j.trackName === 'Low Sun')!;
    expect(low.status).toBe('pending');
    const res = await call('POST', '/api/library/downloads/track', { artistName: 'Aurora Lane', trackName: 'Low Sun', trackMbid: rec(dusk, 1) });
    expect(res).toEqual({ status: 202, body: { success: true, queued: true, jobId: String(low.id), alreadyQueued: true } });
  });

  it('creates a library job of its own, then answers alreadyQueued', async () => {
    const body = { artistName: 'Aurora Lane', trackName: 'Tide', trackMbid: rec(catalogue[0]!.releaseGroups[2]!, 0), albumName: 'Tide' };
    const res = await call('POST', '/api/library/downloads/track', body);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ success: true, queued: true, jobId: expect.any(String) });
    trackJobId = res.body.jobId;
    expect(downloads.get(server.ctx.db, Number(trackJobId))).toMatchObject({
      status: 'pending', playlistType: 'library', albumId: null, trackName: 'Tide', recordingMbid: body.trackMbid, queueJobId: expect.any(Number),
    });
    const again = await call('POST', '/api/library/downloads/track', body);
    expect(again).toEqual({ status: 202, body: { success: true, queued: true, jobId: trackJobId, alreadyQueued: true } });
  });

  it('lists album requests and track jobs as activity', async () => {
    const list = (await call('GET', '/api/requests?refresh=1')).body as any[];
    expect(list.find((a) => a.id === `job:${trackJobId}`)).toMatchObject({ kind: 'track_download', status: 'processing', trackName: 'Tide', managedBy: 'aurral' });
    const albums = list.filter((a) => a.kind === 'album_requested');
    expect(albums.map((a) => [a.title, a.status, a.managedBy])).toEqual(
      expect.arrayContaining([
        ['Dawn', 'available', 'aurral'],
        ['Dusk', 'processing', 'aurral'],
      ]),
    );
    service().transition(Number(trackJobId), { status: 'failed', error: 'nothing found' }, ['pending']);
    const after = (await call('GET', '/api/requests')).body as any[];
    expect(after.find((a) => a.id === `job:${trackJobId}`)).toMatchObject({ status: 'failed' });
  });

  it('removing an album request cancels its unfinished jobs, then the album and its job rows go', async () => {
    const list = (await call('GET', '/api/requests')).body as any[];
    const duskRequest = list.find((a) => a.title === 'Dusk');
    const open = jobsOf(duskRequest.albumId).filter((j) => j.status === 'pending');
    expect(open).toHaveLength(1);
    events.length = 0;
    const res = await call('DELETE', `/api/requests/album/${duskRequest.id}`);
    expect(res).toEqual({ status: 200, body: { success: true, removed: 1 } });
    expect(events.some((e) => e.job.id === open[0]!.id && e.job.status === 'cancelled')).toBe(true);
    expect(downloadAlbums.get(server.ctx.db, duskRequest.albumId)).toBeUndefined();
    expect(((await call('GET', '/api/requests')).body as any[]).some((a) => a.title === 'Dusk')).toBe(false);
    expect((await call('DELETE', `/api/requests/album/${duskRequest.id}`)).status).toBe(404);
  });
});

describe('a self-managed artist', () => {
  it('is recorded and its albums requested by monitor mode', async () => {
    const res = await call('POST', '/api/library/artists', { foreignArtistId: ids.aurora, monitor: 'latest', managedBy: 'aurral' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      created: true,
      id: null,
      mbid: ids.aurora,
      artistName: 'Aurora Lane',
      monitored: true,
      managedBy: 'aurral',
      monitoring: { mode: 'latest', releaseGroupIds: [ids.rgDusk] },
    });
    expect(res.body.monitoring.skipped).toEqual(
      expect.arrayContaining([expect.objectContaining({ releaseGroupId: ids.rgLive, reason: 'not a studio album' })]),
    );
    // The queue requests Dusk again (it was removed above): its jobs come back.
    const album = await until(() => downloadAlbums.byMbid(server.ctx.db, ids.rgDusk));
    await until(() => jobsOf(album.id).length === 2);
    const activity = ((await call('GET', '/api/requests')).body as any[]).find((a) => a.kind === 'artist_added');
    expect(activity).toMatchObject({ mbid: ids.aurora, title: 'Aurora Lane', managedBy: 'aurral' });
    const again = await call('POST', '/api/library/artists', { foreignArtistId: ids.aurora, managedBy: 'aurral' });
    expect(again).toMatchObject({ status: 200, body: { created: false, monitored: false, monitoring: { mode: 'none', releaseGroupIds: [] } } });
  });

  it('refuses the Lidarr-only monitor mode existing', async () => {
    const res = await call('POST', '/api/library/artists', { foreignArtistId: ids.aurora, monitor: 'existing', managedBy: 'aurral' });
    expect(res).toMatchObject({ status: 400, body: { code: 'unsupported_monitor_mode' } });
  });
});
