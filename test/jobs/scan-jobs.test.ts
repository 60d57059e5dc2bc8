import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { waitFor } from '../downloads/helpers.js';
import { holdScans } from '../helpers/holdScans.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { setup } from '../lidarr/helpers.js';

/**
 * Library scans and Lidarr index runs run on the durable job queue: each run (a library_scan_runs
 * row) has exactly one job, written with it, and the tasks screen shows them as on-demand tasks.
 */
let dir: string;
let music: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scanjobs-'));
  music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  for (let i = 0; i < 3; i++) writeTaggedMp3(path.join(music, 'Queue Artist', 'Queue Album', `${i}.mp3`), template, { title: `Queued ${i}`, artist: 'Queue Artist', album: 'Queue Album', track: i + 1 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Json = Record<string, any>;
const tasks = async (server: TestServer) => (await (await server.api('/api/settings/tasks', { token: server.admin.token })).json()) as Json;
const jobsOf = (server: TestServer, queue: string) =>
  server.ctx.db.prepare('SELECT id, name, payload, status FROM jobs WHERE queue = ? ORDER BY id').all(queue) as { id: number; name: string; payload: string; status: string }[];

describe('library scans on the job queue', () => {
  it('gives every scan run one job, merges a request into a queued run, and shows the scans on the tasks screen', async () => {
    const server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: 'false' } });
    try {
      const scans = server.ctx.library.scans;
      await scans.whenIdle();
      const refresh = async (mode: string) =>
        ((await (await server.api('/api/library/refresh', { method: 'POST', json: { mode }, headers: server.admin.headers })).json()) as Json).jobId as string;
      // The first request starts at once (held running, see holdScans); the next two arrive while a
      // run is queued and join it.
      const release = holdScans(scans);
      let first, second, third;
      try {
        first = await refresh('quick');
        second = await refresh('quick');
        third = await refresh('full');
      } finally {
        release();
      }
      expect(third).toBe(second);
      await scans.whenIdle();
      expect(scans.job(Number(second))).toMatchObject({ status: 'completed', mode: 'full' });
      expect(scans.job(Number(first))?.status).toBe('completed');

      const runs = server.ctx.db.prepare('SELECT id FROM library_scan_runs ORDER BY id').pluck().all() as number[];
      // The queue records a job's end just after the run's end.
      const jobs = await waitFor(() => {
        const all = jobsOf(server, 'library-scan');
        return all.every((j) => j.status === 'done') && all;
      }, 5000, 'the scan jobs done');
      expect(jobs.map((j) => JSON.parse(j.payload).runId)).toEqual(runs);
      expect(jobs.every((j) => j.name === 'library-scan')).toBe(true);

      const body = await tasks(server);
      const task = body.tasks.find((t: Json) => t.name === 'library-scan');
      expect(task).toMatchObject({ queue: 'library-scan', schedule: 'on demand', nextRunAt: null, lastStatus: 'succeeded', lastError: null, running: false, detail: null });
      expect(Date.parse(task.lastFinishedAt)).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('a run queued without its job (written before scans used the queue) gets one at the next start and runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
    const env = { TONEARM_SCAN_ON_START: 'false', TONEARM_LIBRARY_WATCH: 'false' };
    const first = await startTestServer({ dataDir, env, musicDirs: [music] });
    await first.stop();
    const db = new Database(path.join(dataDir, 'tonearm.db'));
    const runId = db
      .prepare("INSERT INTO library_scan_runs (source, mode, status, reason, requested_at) VALUES ('aurral', 'quick', 'queued', 'old', ?) RETURNING id")
      .pluck()
      .get(Date.now()) as number;
    db.close();
    const second = await startTestServer({ dataDir, env, musicDirs: [music] });
    try {
      await waitFor(() => second.ctx.library.scans.job(runId)?.status === 'completed' || null, 30_000, 'the old run completed');
      // The queue records a job's end just after the run's end.
      const jobs = await waitFor(() => {
        const all = jobsOf(second, 'library-scan');
        return all.every((j) => j.status === 'done') && all;
      }, 5000, 'the old run\'s job done');
      expect(jobs.map((j) => [JSON.parse(j.payload).runId, j.status])).toEqual([[runId, 'done']]);
    } finally {
      await second.stop();
    }
  }, 60_000);
});

describe('Lidarr index runs on the job queue', () => {
  it('gives every index run one job and shows the index on the tasks screen', async () => {
    const s = await setup();
    try {
      s.fake.seedLibrary({ artists: 2, albumsPerArtist: 1, tracksPerAlbum: 2, withFiles: true });
      const res = await s.call('POST', `/api/webhooks/lidarr?api_key=${s.server.apiKey}`, { eventType: 'Rename', artist: { id: 1 } });
      expect(res.status).toBeLessThan(300);
      await s.indexed();
      const runs = s.server.ctx.db.prepare("SELECT id FROM library_scan_runs WHERE source = 'lidarr' ORDER BY id").pluck().all() as number[];
      expect(runs.length).toBeGreaterThan(0);
      const jobs = await waitFor(() => {
        const all = jobsOf(s.server, 'lidarr-index');
        return all.every((j) => j.status === 'done') && all;
      }, 5000, 'the index jobs done');
      expect(jobs.map((j) => JSON.parse(j.payload).runId)).toEqual(runs);
      const task = (await tasks(s.server)).tasks.find((t: Json) => t.name === 'lidarr-index');
      expect(task).toMatchObject({ queue: 'lidarr-index', schedule: 'on demand', lastStatus: 'succeeded', running: false, detail: null });
    } finally {
      await s.close();
    }
  }, 60_000);
});
