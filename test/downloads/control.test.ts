import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadWorkerAvailable, setDownloadsPaused } from '../../main/downloadWorker.js';
import { openDatabase } from '../../server/db/connection.js';
import { downloads, type DownloadJobPatch, type DownloadJobRow } from '../../server/db/downloads.js';
import { jobsRepository } from '../../server/db/jobs.js';
import { BLOCKED_TIMEOUT_TASK, QUALITY_UPGRADE_TASK, failTimedOutBlockedJobs, queueQualityUpgrades, researchJob } from '../../server/domain/downloads/control.js';
import { downloadsRoot } from '../../server/domain/downloads/layout.js';
import { TRACK_QUEUE, type DownloadService } from '../../server/domain/downloads/service.js';
import { effectivePermissions } from '../../server/domain/auth/permissions.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let outside: string;
const users: Record<'ana' | 'bo' | 'cy', { id: number; token: string }> = {} as never;

async function call(method: string, pathname: string, token: string, json?: unknown) {
  const res = await server.api(pathname, { method, token, ...(json !== undefined && { json }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function addUser(username: string, accessFlow: boolean) {
  const created = await call('POST', '/api/users', server.admin.token, { username, password: 'password-123', permissions: { accessFlow } });
  expect(created.status).toBe(201);
  const login = await call('POST', '/api/auth/login', '', { username, password: 'password-123' });
  return { id: created.body.id as number, token: login.body.token as string };
}

let seq = 0;
/**
 * A job created through the download service, then moved to the given state. A job that stopped
 * running (blocked, done, failed, cancelled) has no queued run left, as after a real pipeline run;
 * the run of a pending or downloading one is due only in a year, so no pipeline touches it here.
 */
function job(userId: number | null, patch: DownloadJobPatch = {}, fields: Partial<Parameters<DownloadService['create']>[0]> = {}): DownloadJobRow {
  const service = server.ctx.downloads;
  seq++;
  let row = service.create({ userId, artistName: `Artist ${seq}`, trackName: `Track ${seq}`, albumName: 'Album', ...fields });
  server.ctx.jobs.cancel(row.queueJobId!);
  if (!patch.status || patch.status === 'pending' || patch.status === 'downloading') row = service.schedule(row, { delayMs: 365 * 86_400_000 })!;
  return Object.keys(patch).length ? service.transition(row.id, patch)! : row;
}
const get = (id: number) => downloads.get(server.ctx.db, id);

async function waitFor<T>(read: () => T | undefined | false, what: string, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  server = await startTestServer();
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-outside-'));
  users.ana = await addUser('ana', true);
  users.bo = await addUser('bo', true);
  users.cy = await addUser('cy', false);
  // Jobs here are driven by hand: the worker stays stopped so no pipeline picks them up.
  expect((await call('POST', '/api/playlists/worker/stop', server.admin.token)).body).toEqual({ success: true, running: false });
});

afterAll(async () => {
  await server?.stop();
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('worker settings', () => {
  it('answers the flat settings object to administrators only', async () => {
    const res = await call('GET', '/api/playlists/worker/settings', server.admin.token);
    expect(res).toEqual({
      status: 200,
      body: {
        concurrency: 3,
        existingFileMode: 'reuse',
        durationToleranceSeconds: 10,
        minMatchScore: 0.7,
        retryPauseMinutes: 30,
        blockedTimeoutHours: 168,
        preferLossless: true,
        qualityCutoff: 'high',
        sourcePriorities: { slskd: 10, usenet: 20, ytdlp: 50 },
        running: false,
        retryPausedPlaylistIds: [],
      },
    });
    expect((await call('GET', '/api/playlists/worker/settings', users.ana.token)).status).toBe(403);
    expect((await call('PUT', '/api/playlists/worker/settings', users.ana.token, { concurrency: 2 })).status).toBe(403);
  });

  it('saves the fields sent through the settings store and keeps the others', async () => {
    const res = await call('PUT', '/api/playlists/worker/settings', server.admin.token, {
      concurrency: 5,
      existingFileMode: 'download',
      minMatchScore: 0.8,
      sourcePriorities: { usenet: 15, ytdlp: 40 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ concurrency: 5, existingFileMode: 'download', minMatchScore: 0.8, retryPauseMinutes: 30, qualityCutoff: 'high' });
    expect(res.body.sourcePriorities).toEqual({ slskd: 10, usenet: 15, ytdlp: 40 });

    const stored = await call('GET', '/api/settings', server.admin.token);
    expect(stored.body.downloads.worker).toMatchObject({ concurrency: 5, existingFileMode: 'download', minMatchScore: 0.8, durationToleranceSeconds: 10 });
    expect([stored.body.integrations.sabnzbd.priority, stored.body.integrations.nzbget.priority, stored.body.integrations.ytdlp.priority]).toEqual([15, 15, 40]);
    expect((await call('GET', '/api/playlists/worker/settings', server.admin.token)).body).toEqual(res.body);

    const health = await call('GET', '/api/health', server.admin.token);
    expect(health.body.downloadSources.usenet).toMatchObject({ priority: 15, configured: false, sabnzbdConfigured: false, nzbgetConfigured: false, prowlarrConfigured: false });
    expect(health.body.system.diskSpace.find((d: { role: string }) => d.role === 'downloads').location).toBe(downloadsRoot(server.ctx));

    await call('PUT', '/api/playlists/worker/settings', server.admin.token, {
      concurrency: 3,
      existingFileMode: 'reuse',
      minMatchScore: 0.7,
      sourcePriorities: { usenet: 20, ytdlp: 50 },
    });
  });

  it('refuses values outside the limits and unknown fields, storing nothing', async () => {
    const tooMany = await call('PUT', '/api/playlists/worker/settings', server.admin.token, { concurrency: 9, retryPauseMinutes: 5 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: 'Invalid request', code: 'VALIDATION_ERROR' });
    expect(tooMany.body.message).toMatch(/^concurrency: /);
    const unknown = await call('PUT', '/api/playlists/worker/settings', server.admin.token, { turbo: true });
    expect(unknown.status).toBe(400);
    const badSource = await call('PUT', '/api/playlists/worker/settings', server.admin.token, { sourcePriorities: { deemix: 1 } });
    expect(badSource.status).toBe(400);
    expect(server.ctx.settings.get().downloads.worker).toMatchObject({ concurrency: 3, retryPauseMinutes: 30 });
  });

  it('starts and stops the worker, also from the desktop tray', async () => {
    expect((await call('POST', '/api/playlists/worker/start', server.admin.token)).body).toEqual({ success: true, running: true });
    expect(server.ctx.settings.get().downloads.worker.running).toBe(true);
    expect((await call('POST', '/api/playlists/worker/stop', users.ana.token)).status).toBe(403);

    expect(await downloadWorkerAvailable(server.url)).toBe(true);
    await setDownloadsPaused(server.url, server.admin.token, true);
    expect((await call('GET', '/api/playlists/worker/settings', server.admin.token)).body.running).toBe(false);
    await setDownloadsPaused(server.url, server.admin.token, false);
    expect(server.ctx.settings.get().downloads.worker.running).toBe(true);
    await expect(setDownloadsPaused(server.url, users.ana.token, true)).rejects.toThrow('Sign in to Tonearm as an administrator');

    await setDownloadsPaused(server.url, server.admin.token, true);
    expect(server.ctx.settings.get().downloads.worker.running).toBe(false);
  });
});

describe('deleting jobs', () => {
  it('deletes the caller\'s finished jobs, then every one not running; administrators clear everyone\'s; files stay', async () => {
    const file = path.join(outside, 'kept.flac');
    fs.writeFileSync(file, 'audio');
    const ana = {
      done: job(users.ana.id, { status: 'done', finalPath: file }),
      failed: job(users.ana.id, { status: 'failed', error: 'No source found' }),
      cancelled: job(users.ana.id, { status: 'cancelled' }),
      blocked: job(users.ana.id, { status: 'blocked', blockReason: 'Duration differs' }),
      pending: job(users.ana.id),
      downloading: job(users.ana.id, { status: 'downloading', phase: 'download' }),
    };
    const boDone = job(users.bo.id, { status: 'done' });

    expect((await call('DELETE', '/api/playlists/jobs/completed', users.cy.token)).status).toBe(403);
    expect((await call('DELETE', '/api/playlists/jobs/completed', users.ana.token)).body).toEqual({ success: true, deleted: 3 });
    expect([ana.done, ana.failed, ana.cancelled].map((j) => get(j.id))).toEqual([undefined, undefined, undefined]);
    expect(get(ana.blocked.id)?.status).toBe('blocked');
    expect(get(boDone.id)?.status).toBe('done');
    expect(fs.readFileSync(file, 'utf8')).toBe('audio');

    expect(server.ctx.jobsRepo.byId(ana.pending.queueJobId!)?.status).toBe('pending');
    expect((await call('DELETE', '/api/playlists/jobs/all', users.ana.token)).body).toEqual({ success: true, deleted: 2 });
    expect(get(ana.blocked.id)).toBeUndefined();
    expect(get(ana.pending.id)).toBeUndefined();
    expect(get(ana.downloading.id)?.status).toBe('downloading');
    // The deleted pending job's queued run will not start.
    expect(server.ctx.jobsRepo.byId(ana.pending.queueJobId!)?.status).toBe('cancelled');

    expect((await call('DELETE', '/api/playlists/jobs/completed', server.admin.token)).body.deleted).toBeGreaterThanOrEqual(1);
    expect(get(boDone.id)).toBeUndefined();
    server.ctx.downloads.transition(ana.downloading.id, { status: 'cancelled' });
  });
});

describe('deleting every job', () => {
  it('keeps a pending job whose queued run has already started', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-delete-'));
    const db = openDatabase(path.join(dir, 'tonearm.db'));
    try {
      const queue = jobsRepository(db);
      const track = (n: number) => downloads.insert(db, { userId: null, artistName: 'A', trackName: `T${n}` }, 1000);
      const started = track(1);
      const waiting = track(2);
      const startedRun = queue.enqueue({ queue: TRACK_QUEUE, name: null, payload: '{}', priority: 0, runAt: 0, maxAttempts: 3, dedupeKey: 'a' }, 1000);
      const waitingRun = queue.enqueue({ queue: TRACK_QUEUE, name: null, payload: '{}', priority: 0, runAt: 5000, maxAttempts: 3, dedupeKey: 'b' }, 1000);
      downloads.update(db, started.id, { queueJobId: startedRun.id }, 1000);
      downloads.update(db, waiting.id, { queueJobId: waitingRun.id }, 1000);
      expect(queue.claim(TRACK_QUEUE, 'worker-1', 2000, 60_000)?.id).toBe(startedRun.id);

      expect(downloads.deleteFinished(db, { all: true })).toEqual([{ id: waiting.id, status: 'pending', queueJobId: waitingRun.id }]);
      expect(downloads.get(db, started.id)?.status).toBe('pending');
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('quality upgrades', () => {
  const done = (userId: number, tier: string | null, fields = {}) => job(userId, { status: 'done', format: 'mp3', bitrate: 128, qualityTier: tier }, fields);
  const upgradesOf = (j: DownloadJobRow) => downloads.upgradesOf(server.ctx.db, j);

  it('queues one upgrade job per done track below the cutoff, with the same track fields, never two at once', async () => {
    const low = done(users.ana.id, 'low', { recordingMbid: 'rec-low', trackNumber: 3, durationMs: 200_000, year: 1999, albumMbid: 'alb-1' });
    const medium = done(users.ana.id, 'medium');
    const high = done(users.ana.id, 'high');
    const lossless = done(users.ana.id, 'lossless');
    const unknown = done(users.ana.id, null);
    const inFlow = done(users.ana.id, 'low', { playlistType: 'flow', playlistId: 'flow-1' });
    const bos = done(users.bo.id, 'low');
    const busy = job(users.ana.id, { status: 'downloading' });

    expect((await call('POST', `/api/playlists/quality-upgrades/library/${high.id}`, users.ana.token)).body).toEqual({ success: true, queued: 0, skipped: 1 });
    expect((await call('POST', `/api/playlists/quality-upgrades/library/${low.id}`, users.ana.token)).body).toEqual({ success: true, queued: 1, skipped: 0 });
    const [upgrade] = upgradesOf(low);
    expect(upgrade).toMatchObject({
      status: 'pending',
      upgrade: 1,
      userId: users.ana.id,
      playlistType: 'library',
      playlistId: null,
      artistName: low.artistName,
      trackName: low.trackName,
      albumName: 'Album',
      albumMbid: 'alb-1',
      recordingMbid: 'rec-low',
      trackNumber: 3,
      durationMs: 200_000,
      year: 1999,
      qualityTier: null,
    });
    expect(server.ctx.jobsRepo.byId(upgrade!.queueJobId!)).toMatchObject({ queue: TRACK_QUEUE, priority: 10, run_at: server.clock.now() });
    expect(downloads.upgradeTarget(server.ctx.db, upgrade!)?.id).toBe(low.id);
    expect((await call('POST', `/api/playlists/quality-upgrades/library/${low.id}`, users.ana.token)).body).toEqual({ success: true, queued: 0, skipped: 1 });

    const busyRes = await call('POST', `/api/playlists/quality-upgrades/library/${busy.id}`, users.ana.token);
    expect(busyRes).toEqual({ status: 409, body: { error: 'Conflict', message: 'Track is already being processed', code: 'JOB_BUSY' } });
    expect((await call('POST', `/api/playlists/quality-upgrades/library/${bos.id}`, users.ana.token)).status).toBe(404);
    expect((await call('POST', `/api/playlists/quality-upgrades/flow-1/${low.id}`, users.ana.token)).body.error).toBe('Job not found');
    expect((await call('POST', '/api/playlists/quality-upgrades/library/abc', users.ana.token)).status).toBe(400);
    expect((await call('POST', '/api/playlists/quality-upgrades', users.cy.token)).status).toBe(403);

    expect((await call('POST', '/api/playlists/quality-upgrades/flow-1', users.ana.token)).body).toEqual({ success: true, queued: 1, skipped: 0 });
    expect(upgradesOf(inFlow)).toHaveLength(1);
    // Everything ana may see: medium is new; low and the flow track already have an open upgrade.
    expect((await call('POST', '/api/playlists/quality-upgrades', users.ana.token)).body).toEqual({ success: true, queued: 1, skipped: 2 });
    expect(upgradesOf(medium)).toHaveLength(1);
    expect([high, lossless, unknown].map((j) => upgradesOf(j).length)).toEqual([0, 0, 0]);
    expect(upgradesOf(bos)).toHaveLength(0);
    // Administrators reach everyone's tracks.
    expect((await call('POST', '/api/playlists/quality-upgrades', server.admin.token)).body).toMatchObject({ queued: 1 });
    expect(upgradesOf(bos)[0]).toMatchObject({ userId: users.bo.id, upgrade: 1 });

    // A finished upgrade that reached the cutoff ends the search for that track.
    server.ctx.downloads.transition(upgradesOf(medium)[0]!.id, { status: 'done', qualityTier: 'lossless' });
    server.ctx.downloads.transition(upgradesOf(low)[0]!.id, { status: 'failed', error: 'No better copy found' });
    expect((await call('POST', `/api/playlists/quality-upgrades/library/${medium.id}`, users.ana.token)).body).toEqual({ success: true, queued: 0, skipped: 1 });
    // Asked by hand, a failed upgrade is tried again at once.
    expect((await call('POST', `/api/playlists/quality-upgrades/library/${low.id}`, users.ana.token)).body).toEqual({ success: true, queued: 1, skipped: 0 });
    expect(upgradesOf(low).map((u) => u.status)).toEqual(['pending', 'failed']);
  });

  it('checks every hour for everyone, waiting the retry pause after an upgrade that found nothing', async () => {
    expect(server.ctx.scheduler.list().find((t) => t.name === QUALITY_UPGRADE_TASK)).toMatchObject({ schedule: '@every 1h' });
    const carl = done(users.bo.id, 'medium', { artistName: 'Carl', trackName: 'Hourly' });
    const tried = done(users.bo.id, 'low', { artistName: 'Dora', trackName: 'Tried' });
    const previous = job(users.bo.id, { status: 'failed', error: 'No better copy found' }, { artistName: 'Dora', trackName: 'Tried', upgrade: true });

    server.ctx.scheduler.runNow(QUALITY_UPGRADE_TASK);
    await waitFor(() => upgradesOf(carl).length === 1, 'the hourly check');
    await waitFor(() => server.ctx.scheduler.list().find((t) => t.name === QUALITY_UPGRADE_TASK)?.lastStatus === 'succeeded', 'the task to end');
    expect(upgradesOf(tried).map((u) => u.id)).toEqual([previous.id]);

    server.clock.advance(31 * 60_000);
    expect(queueQualityUpgrades(server.ctx, {}, { respectPause: true })).toEqual({ success: true, queued: 1, skipped: expect.any(Number) });
    expect(upgradesOf(tried).map((u) => u.status)).toEqual(['pending', 'failed']);
  });
});

describe('research of missing tracks', () => {
  it('sends the caller\'s failed and cancelled tracks back to the search, after the retry pause for recent failures', async () => {
    const oldFailure = job(users.ana.id, { status: 'failed', error: 'No source found', phase: 'search' });
    server.clock.advance(40 * 60_000);
    const recentFailure = job(users.ana.id, { status: 'failed', error: 'Transfer failed', phase: 'download' });
    const cancelled = job(users.ana.id, { status: 'cancelled', error: 'Cancelled by user' });
    const duplicate = job(users.ana.id, { status: 'failed' }, { artistName: 'Twin', trackName: 'Song' });
    const open = job(users.ana.id, {}, { artistName: 'Twin', trackName: 'Song' });
    const done = job(users.ana.id, { status: 'done' });
    const bos = job(users.bo.id, { status: 'failed' });
    const now = server.clock.now();

    expect((await call('POST', '/api/playlists/research-missing', users.cy.token)).status).toBe(403);
    const res = await call('POST', '/api/playlists/research-missing', users.ana.token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    for (const j of [oldFailure, recentFailure, cancelled]) expect(get(j.id)).toMatchObject({ status: 'pending', error: null, phase: null, progress: 0 });
    expect(res.body.queued).toBeGreaterThanOrEqual(3);
    const queuedRun = (j: DownloadJobRow) => server.ctx.jobsRepo.byId(get(j.id)!.queueJobId!)!;
    expect(queuedRun(oldFailure)).toMatchObject({ queue: TRACK_QUEUE, run_at: now });
    expect(queuedRun(cancelled).run_at).toBe(now);
    expect(queuedRun(recentFailure)).toMatchObject({ status: 'pending', run_at: now + 30 * 60_000 });

    // The same track already has an open job: not searched twice.
    expect(get(duplicate.id)?.status).toBe('failed');
    expect(get(open.id)?.status).toBe('pending');
    expect(get(done.id)?.status).toBe('done');
    expect(get(bos.id)?.status).toBe('failed');
    expect((await call('POST', '/api/playlists/research-missing', users.ana.token)).body).toEqual({ success: true, queued: 0 });

    expect((await call('POST', '/api/playlists/research-missing', server.admin.token)).body.queued).toBeGreaterThanOrEqual(1);
    expect(get(bos.id)?.status).toBe('pending');
  });

  it('refuses to search again a job that is pending or downloading (409)', () => {
    const principal = { userId: users.ana.id, username: 'ana', role: 'user' as const, permissions: effectivePermissions('user', { accessFlow: true }), via: 'session' as const };
    const pending = job(users.ana.id);
    const downloading = job(users.ana.id, { status: 'downloading' });
    const failed = job(users.ana.id, { status: 'failed' });
    for (const j of [pending, downloading]) expect(() => researchJob(server.ctx, principal, j.id)).toThrow('Track is already being processed');
    expect(() => researchJob(server.ctx, principal, job(users.bo.id, { status: 'failed' }).id)).toThrow(/^No download job \d+$/);
    expect(researchJob(server.ctx, principal, failed.id)).toEqual({ success: true, queued: 1 });
    expect(() => researchJob(server.ctx, principal, failed.id)).toThrow('Track is already being processed');
  });
});

describe('review timeout', () => {
  it('fails blocked jobs past the timeout and removes only held files in staging that no other job uses', async () => {
    await call('PUT', '/api/playlists/worker/settings', server.admin.token, { blockedTimeoutHours: 1 });
    const staging = path.join(downloadsRoot(server.ctx), '.staging');
    const hold = (name: string, file?: (jobId: number) => string) => {
      const row = job(users.ana.id, { status: 'downloading' }, { trackName: name });
      const held = file ? file(row.id) : path.join(staging, String(row.id), `${name}.flac`);
      fs.mkdirSync(path.dirname(held), { recursive: true });
      if (!fs.existsSync(held)) fs.writeFileSync(held, name);
      return server.ctx.downloads.transition(row.id, { status: 'blocked', blockReason: 'Duration differs', stagingPath: held, blockedAt: server.clock.now() })!;
    };
    const inStaging = hold('staged');
    const sourceCopy = hold('source', () => path.join(outside, 'slskd', 'source.flac'));
    const shared = hold('shared');
    const other = job(users.bo.id, { status: 'downloading', stagingPath: shared.stagingPath });
    // A job folder that is a link out of staging: its file is not ours to delete.
    const linkedDir = path.join(outside, 'linked');
    const linked = hold('linked', (id) => {
      fs.mkdirSync(linkedDir, { recursive: true });
      fs.mkdirSync(staging, { recursive: true });
      fs.symlinkSync(linkedDir, path.join(staging, String(id)));
      return path.join(staging, String(id), 'linked.flac');
    });
    server.clock.advance(61 * 60_000);
    const fresh = hold('fresh');

    expect(server.ctx.scheduler.list().find((t) => t.name === BLOCKED_TIMEOUT_TASK)).toMatchObject({ schedule: '@every 15m' });
    server.ctx.scheduler.runNow(BLOCKED_TIMEOUT_TASK);
    await waitFor(() => get(inStaging.id)?.status === 'failed', 'the timeout task');

    expect(get(inStaging.id)).toMatchObject({ status: 'failed', error: 'Review timed out', stagingPath: null, blockReason: 'Duration differs' });
    expect(fs.existsSync(inStaging.stagingPath!)).toBe(false);
    expect(fs.existsSync(path.dirname(inStaging.stagingPath!))).toBe(false);
    expect(get(sourceCopy.id)).toMatchObject({ status: 'failed', error: 'Review timed out', stagingPath: sourceCopy.stagingPath });
    expect(fs.readFileSync(sourceCopy.stagingPath!, 'utf8')).toBe('source');
    expect(get(shared.id)).toMatchObject({ status: 'failed', stagingPath: shared.stagingPath });
    expect(fs.existsSync(shared.stagingPath!)).toBe(true);
    expect(get(other.id)?.stagingPath).toBe(shared.stagingPath);
    expect(get(linked.id)?.status).toBe('failed');
    expect(fs.readFileSync(path.join(linkedDir, 'linked.flac'), 'utf8')).toBe('linked');
    expect(get(fresh.id)?.status).toBe('blocked');

    // 0 keeps held tracks until someone reviews them.
    await call('PUT', '/api/playlists/worker/settings', server.admin.token, { blockedTimeoutHours: 0 });
    server.clock.advance(24 * 3600_000);
    expect(failTimedOutBlockedJobs(server.ctx)).toBe(0);
    expect(get(fresh.id)?.status).toBe('blocked');
    await call('PUT', '/api/playlists/worker/settings', server.admin.token, { blockedTimeoutHours: 168 });
  });
});
