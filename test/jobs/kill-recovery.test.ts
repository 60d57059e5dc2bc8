import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from '../fakes/lidarr/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { waitFor } from '../downloads/helpers.js';
import { call, onboard, query, startServerProcess, type ServerProcess } from '../helpers/killable.js';
import { PLEX_APP_URL, startPlexFakes, type PlexFakes } from '../plex/helpers.js';

/**
 * kill -9 of the real server in the middle of background work on the job queue: a library scan, a
 * Lidarr index run, a Plex library sync and a scrobble (the download pipeline's own kill test is
 * test/downloads/recovery.test.ts). After a restart on the same data folder each finishes exactly
 * once, and no job is left queued, running or dead.
 */

let dir: string;
let server: ServerProcess | undefined;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-kill-'));
});
afterEach(async () => {
  await server?.kill();
  server = undefined;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type JobState = { id: number; status: string; attempts: number };
const jobsOf = (dataDir: string, queue: string) => query<JobState>(dataDir, 'SELECT id, status, attempts FROM jobs WHERE queue = ? ORDER BY id', queue);
const runsOf = (dataDir: string, jobId: number) =>
  query<{ attempt: number; status: string }>(dataDir, 'SELECT attempt, status FROM job_runs WHERE job_id = ? ORDER BY attempt', jobId).map((r) => `${r.attempt}:${r.status}`);
const allDone = (dataDir: string, queue: string) => {
  const jobs = jobsOf(dataDir, queue);
  return jobs.length > 0 && jobs.every((j) => j.status === 'done') ? jobs : null;
};

describe('kill -9 during background work', () => {
  it('a library scan: the interrupted run is closed, its work runs once more and completes once', async () => {
    const dataDir = path.join(dir, 'scan');
    const music = path.join(dir, 'scan-music');
    const template = makeMp3Template(dir);
    const FILES = 600;
    for (let i = 0; i < FILES; i++) {
      writeTaggedMp3(path.join(music, `Artist ${i % 20}`, `Album ${i % 60}`, `${i}.mp3`), template, { title: `Track ${i}`, artist: `Artist ${i % 20}`, album: `Album ${i % 60}`, track: (i % 10) + 1 });
    }
    const env = { TONEARM_MUSIC_DIRS: music, TONEARM_LIBRARY_WATCH: '0', TONEARM_REPLAYGAIN_ANALYSIS: '0' };
    server = await startServerProcess(dataDir, env);
    // The start-up scan has committed its first batches: kill it there.
    await waitFor(() => query<{ n: number }>(dataDir, "SELECT files_indexed AS n FROM library_scan_runs WHERE status = 'running'")[0]?.n || null, 60_000, 'the scan under way');
    await server.kill();
    const [killed] = query<{ id: number; indexed: number }>(dataDir, "SELECT id, files_indexed AS indexed FROM library_scan_runs WHERE status = 'running'");
    expect(killed!.indexed).toBeLessThan(FILES);

    server = await startServerProcess(dataDir, env);
    const completed = await waitFor(
      () => query<{ id: number; seen: number }>(dataDir, "SELECT id, files_seen AS seen FROM library_scan_runs WHERE status = 'completed'")[0],
      60_000,
      'the scan completed',
    );
    expect(completed.seen).toBe(FILES);
    const jobs = await waitFor(() => allDone(dataDir, 'library-scan'), 10_000, 'every scan job done');
    // The killed run is closed as interrupted, its work ran once more in one new run, and nothing else is queued.
    expect(query(dataDir, 'SELECT id, status, error FROM library_scan_runs ORDER BY id')).toEqual([
      { id: killed!.id, status: 'failed', error: 'interrupted' },
      { id: completed.id, status: 'completed', error: null },
    ]);
    expect(query<{ n: number }>(dataDir, 'SELECT COUNT(*) AS n FROM library_tracks')[0]!.n).toBe(FILES);
    expect(query<{ n: number }>(dataDir, 'SELECT COUNT(DISTINCT path) AS n FROM library_media_files')[0]!.n).toBe(FILES);
    // The killed run's job was taken back at the start and ended at once (its run was closed).
    expect(jobs).toHaveLength(2);
    expect(runsOf(dataDir, jobs[0]!.id)).toEqual(['1:abandoned', '2:succeeded']);
    expect(runsOf(dataDir, jobs[1]!.id)).toEqual(['1:succeeded']);
  }, 180_000);

  describe('with a Lidarr', () => {
    let lidarr: LidarrFake;
    beforeAll(async () => {
      lidarr = await startLidarrFake({ rootFolderPath: path.join(dir, 'lidarr-root') });
      lidarr.seedLibrary({ artists: 40, albumsPerArtist: 2, tracksPerAlbum: 3, withFiles: true });
    });
    afterAll(() => lidarr.close());

    it('a Lidarr index run: closed as interrupted, one full run after the restart indexes everything once', async () => {
      const dataDir = path.join(dir, 'lidarr');
      const env = { TONEARM_LIBRARY_WATCH: '0', TONEARM_REPLAYGAIN_ANALYSIS: '0' };
      server = await startServerProcess(dataDir, env);
      // Every Lidarr answer takes a while, so the index started by onboarding is killed part-way.
      lidarr.state.delayMs = 60;
      lidarr.state.resetCounts();
      await onboard(server.url, { lidarr: { url: lidarr.url, apiKey: lidarr.apiKey } });
      const running = () => query(dataDir, "SELECT id FROM library_scan_runs WHERE source = 'lidarr' AND status = 'running'").length > 0;
      await waitFor(() => (running() && lidarr.state.requestCount >= 20) || null, 60_000, 'the index under way');
      await server.kill();
      const [killed] = query<{ id: number; seen: number }>(dataDir, "SELECT id, files_seen AS seen FROM library_scan_runs WHERE source = 'lidarr' AND status = 'running'");
      expect(killed!.seen).toBeLessThan(240);

      lidarr.state.delayMs = 0;
      server = await startServerProcess(dataDir, env);
      const completed = await waitFor(
        () => query<{ id: number; seen: number }>(dataDir, "SELECT id, files_seen AS seen FROM library_scan_runs WHERE source = 'lidarr' AND status = 'completed'")[0],
        60_000,
        'the index completed',
      );
      const jobs = await waitFor(() => allDone(dataDir, 'lidarr-index'), 10_000, 'every index job done');
      expect(query(dataDir, "SELECT id, status, error FROM library_scan_runs WHERE source = 'lidarr' ORDER BY id")).toEqual([
        { id: killed!.id, status: 'failed', error: 'interrupted' },
        { id: completed.id, status: 'completed', error: null },
      ]);
      expect(query<{ n: number }>(dataDir, "SELECT COUNT(*) AS n FROM library_tracks")[0]!.n).toBe(240);
      expect(jobs).toHaveLength(2);
      expect(runsOf(dataDir, jobs[0]!.id)).toEqual(['1:abandoned', '2:succeeded']);
    }, 180_000);
  });

  describe('with a Plex server', () => {
    let plex: PlexFakes;
    beforeAll(async () => {
      plex = await startPlexFakes();
      plex.pms.sections = [{ key: '3', title: 'Music', type: 'artist', locations: ['/plexmedia/music'] }];
      plex.pms.tracks = Array.from({ length: 2000 }, (_, i) => ({
        ratingKey: String(10_000 + i),
        sectionKey: '3',
        title: `Plex ${i}`,
        artist: 'Plex Artist',
        album: `Plex Album ${i % 50}`,
        file: `/plexmedia/music/${i}.flac`,
      }));
    });
    afterAll(() => plex.close());

    it('a Plex library sync: the job runs again after the restart and maps the whole library once', async () => {
      const dataDir = path.join(dir, 'plex');
      const env = { TONEARM_PLEXTV_URL: plex.tv.url, TONEARM_PLEX_APP_URL: PLEX_APP_URL, TONEARM_LIBRARY_WATCH: '0', TONEARM_REPLAYGAIN_ANALYSIS: '0' };
      server = await startServerProcess(dataDir, env);
      const token = await onboard(server.url);
      const pin = (await call(server.url, token, '/api/settings/plex/auth/pin', { method: 'POST', json: {} })).body;
      plex.tv.approve(pin.pinId, plex.ownerToken);
      expect((await call(server.url, token, '/api/settings/plex/auth/check', { method: 'POST', json: { pinId: pin.pinId, code: pin.code } })).body.linked).toBe(true);
      // plex.tv lists the server's address: the token may go there.
      expect((await call(server.url, token, '/api/settings/plex/resources', { method: 'POST', json: {} })).status).toBe(200);
      const saved = await call(server.url, token, '/api/settings', {
        method: 'POST',
        json: { integrations: { plex: { url: plex.pms.url, machineIdentifier: plex.pms.machineIdentifier, serverName: 'Den', librarySectionId: '3' } } },
      });
      expect(saved.status).toBe(200);
      // Ten pages of 200 tracks, each answered slowly: the sync is killed part-way.
      plex.pms.faults.delayMs = 400;
      const pages = () => plex.pms.requests.filter((r) => r.path === '/library/sections/3/all').length;
      void call(server.url, token, '/api/settings/plex/sync', { method: 'POST' }).catch(() => undefined);
      await waitFor(() => pages() >= 2 || null, 30_000, 'the sync reading pages');
      await server.kill();
      expect(jobsOf(dataDir, 'plex-sync').map((j) => j.status)).toEqual(['running']);
      expect(query(dataDir, 'SELECT * FROM plex_tracks')).toEqual([]);

      plex.pms.faults.delayMs = 0;
      server = await startServerProcess(dataDir, env);
      const jobs = await waitFor(() => allDone(dataDir, 'plex-sync'), 60_000, 'the sync job done');
      expect(jobs).toHaveLength(1);
      expect(runsOf(dataDir, jobs[0]!.id)).toEqual(['1:abandoned', '2:succeeded']);
      expect(query<{ n: number }>(dataDir, "SELECT COUNT(*) AS n FROM plex_tracks WHERE section_id = '3'")[0]!.n).toBe(2000);
    }, 120_000);
  });

  describe('with ListenBrainz', () => {
    let lb: ListenBrainzFake;
    beforeAll(async () => {
      lb = await startListenBrainzFake();
    });
    afterAll(() => lb.close());

    it('a scrobble: the delivery in flight at the kill is sent once more after the restart and recorded once', async () => {
      const dataDir = path.join(dir, 'scrobble');
      const env = { TONEARM_LISTENBRAINZ_URL: lb.url, TONEARM_UPSTREAM_SPACING_MS: '0', TONEARM_LIBRARY_WATCH: '0' };
      server = await startServerProcess(dataDir, env);
      const token = await onboard(server.url);
      lb.tokens.set('lb-admin', 'admin');
      expect((await call(server.url, token, '/api/scrobbling/listenbrainz/link', { method: 'PUT', json: { token: 'lb-admin' } })).status).toBe(200);
      // ListenBrainz holds the submission: the kill lands while the delivery job waits for its answer.
      lb.faults.delayMs = 1500;
      const submits = () => lb.requests.filter((r) => r.path === '/1/submit-listens').length;
      const posted = await call(server.url, token, '/api/play-events', { method: 'POST', json: { title: 'Roads', artist: 'Portishead', playedAt: Date.UTC(2026, 10, 27, 9, 0) } });
      expect(posted.status).toBe(201);
      await waitFor(() => submits() >= 1 || null, 10_000, 'the submission on its way');
      await server.kill();
      expect(jobsOf(dataDir, 'scrobbles').map((j) => j.status)).toEqual(['running']);
      // The held request is answered to nobody; what ListenBrainz made of it is its own (it keeps one
      // listen per user and time). The server never learned of it and sends it once more.
      await waitFor(() => lb.submissions.length >= 1 || null, 10_000, 'the held submission taken by ListenBrainz');
      lb.faults.delayMs = 0;
      lb.submissions.length = 0;

      server = await startServerProcess(dataDir, env);
      const jobs = await waitFor(() => allDone(dataDir, 'scrobbles'), 30_000, 'the delivery job done');
      expect(jobs).toHaveLength(1);
      expect(runsOf(dataDir, jobs[0]!.id)).toEqual(['1:abandoned', '2:succeeded']);
      expect(query(dataDir, 'SELECT service, status, attempts FROM scrobble_deliveries')).toEqual([{ service: 'listenbrainz', status: 'delivered', attempts: 1 }]);
      expect(lb.submissions.map((s) => s.payload[0]!.track_metadata.track_name)).toEqual(['Roads']);
    }, 120_000);
  });
});
