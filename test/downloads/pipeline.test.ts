import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloads } from '../../server/db/downloads.js';
import { readState } from '../../server/domain/downloads/state.js';
import { sweepOnce } from '../../server/domain/downloads/start.js';
import { makeAudioFile } from '../fixtures/audio.js';
import { startFakeProwlarr, type FakeProwlarr } from '../fakes/prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../fakes/sabnzbd/index.js';
import { defaultUsers, startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createJob, jobOf, makeUser, setSettings, settled, waitFor } from './helpers.js';

/**
 * The track pipeline end to end on a real server against the slskd, Prowlarr and SABnzbd fakes:
 * search → download → verify → tag → file → scoped scan → stream; review (block, preview,
 * approve, deny → next candidate → next source), cancel, reuse, permissions, unsafe names.
 */

let server: TestServer;
let slskd: SlskdFake;
let prowlarr: FakeProwlarr;
let sab: FakeSabnzbd;
let dir: string;
let root: string;

const evilUser = {
  username: 'mallory',
  delayMs: 0,
  uploadSpeed: 9_000_000,
  queueLength: 0,
  hasFreeUploadSlot: true,
  files: [
    { filename: '..\\..\\Evil Band - Bad Song.flac', bitRate: 320, length: 1, tags: { artist: 'Evil Band', title: 'Bad Song', album: 'Bad', track: 1 } },
    { filename: '../../Evil Band - Bad Song.mp3', bitRate: 320, length: 1, tags: { artist: 'Evil Band', title: 'Bad Song', album: 'Bad', track: 1 } },
  ],
};

/** Holds one track no other test asks for, so the sweep test's job is its own. */
const harborUser = {
  username: 'harborpeer',
  delayMs: 0,
  uploadSpeed: 2_000_000,
  queueLength: 0,
  hasFreeUploadSlot: true,
  files: [
    {
      filename: '@@harbor\\Velvet Harbors\\Velvet Harbors - Tidewater (2019)\\04 - Breakwater.mp3',
      bitRate: 320,
      length: 1,
      tags: { artist: 'Velvet Harbors', albumArtist: 'Velvet Harbors', album: 'Tidewater', title: 'Breakwater', track: 4, date: '2019' },
    },
  ],
};

/** Shares a FLAC file under an `.mp3` name (made in beforeAll). */
const misnamedUser = {
  username: 'oddnames',
  delayMs: 0,
  uploadSpeed: 2_000_000,
  queueLength: 0,
  hasFreeUploadSlot: true,
  files: [
    {
      filename: '@@odd\\Quiet Coast\\Quiet Coast - Shoreline (2020)\\01 - First Light.mp3',
      bitRate: 320,
      length: 1,
      tags: { artist: 'Quiet Coast', albumArtist: 'Quiet Coast', album: 'Shoreline', title: 'First Light', track: 1, date: '2020' },
      audioFile: '',
    },
  ],
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-e2e-'));
  misnamedUser.files[0]!.audioFile = makeAudioFile(path.join(dir, 'first-light.flac'), 'flac', misnamedUser.files[0]!.tags, { seconds: 1 });
  root = path.join(dir, 'library-downloads');
  // Deep, so the fake's (unsafe) writes of "../../" names stay inside this test's folder.
  const slskdDir = path.join(dir, 'a', 'b', 'slskd');
  fs.mkdirSync(slskdDir, { recursive: true });
  [slskd, prowlarr, sab] = await Promise.all([
    startSlskdFake({ downloadsDir: slskdDir, users: [...defaultUsers(), evilUser, harborUser, misnamedUser], searchMs: 250, maxConcurrentSearches: 8 }),
    startFakeProwlarr(),
    startFakeSabnzbd({ completedDir: path.join(dir, 'sab') }),
  ]);
  prowlarr.releases.push({ guid: 'nzb-low', indexerId: 2, releaseTitle: 'Velvet Harbors - Tidewater (2019) [MP3 320]', artist: 'Velvet Harbors', album: 'Tidewater', title: 'Low Tide', track: 3, size: 90_000_000, categories: [3010] });
  sab.downloads.durationMs = 200;
  server = await startTestServer();
  await setSettings(server, {
    downloads: { folderPath: root, worker: { durationToleranceSeconds: 5, minMatchScore: 0.7 } },
    integrations: {
      slskd: { url: slskd.url, apiKey: slskd.apiKey },
      prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey },
      sabnzbd: { url: sab.url, apiKey: sab.apiKey, category: 'music' },
    },
  });
  // Pressing Test confirms the folders the clients report: files are taken only from there.
  for (const client of ['slskd', 'sabnzbd']) {
    const res = await server.api(`/api/settings/${client}/test`, { method: 'POST', token: server.admin.token, json: {} });
    expect(((await res.json()) as { confirmedFolder: string }).confirmedFolder).toBe(client === 'slskd' ? slskdDir : sab.downloads.completedDir);
  }
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([slskd?.close(), prowlarr?.close(), sab?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit & { json?: unknown; token?: string } = {}) => server.api(p, { token: server.admin.token, ...init });
const stagingLeft = (id: number) => fs.existsSync(path.join(root, '.staging', String(id)));

describe('track pipeline', () => {
  let filedPath = '';

  it('downloads from slskd, verifies, tags, files under the layout and makes the track streamable', async () => {
    const job = createJob(server, {
      artistName: 'Velvet Harbors',
      trackName: 'Harbor Lights',
      albumName: 'Tidewater',
      trackNumber: 1,
      durationMs: 1000,
      recordingMbid: '11111111-1111-4111-8111-111111111111',
      releaseMbid: '22222222-2222-4222-8222-222222222222',
      artistMbid: '33333333-3333-4333-8333-333333333333',
    });
    const done = await settled(server, job.id);
    expect([done.status, done.error]).toEqual(['done', null]);
    filedPath = path.join(root, 'Velvet Harbors', 'Tidewater', '01 Harbor Lights.mp3');
    expect(done.finalPath).toBe(filedPath);
    expect(done.downloadSource).toBe('slskd');
    expect(readState(done).chosen?.ref).toBe('quickpeer\u0000@@music\\Velvet Harbors\\Velvet Harbors - Tidewater (2019)\\01 - Harbor Lights.mp3');
    expect([done.format, done.qualityTier, done.progress]).toEqual(['mp3', done.bitrate! >= 256 ? 'high' : done.bitrate! >= 160 ? 'medium' : 'low', 100]);
    expect(stagingLeft(job.id)).toBe(false);
    expect(fs.readdirSync(path.dirname(filedPath))).toEqual(['01 Harbor Lights.mp3']);

    const tags = await parseFile(filedPath);
    expect(tags.common).toMatchObject({ title: 'Harbor Lights', artist: 'Velvet Harbors', album: 'Tidewater' });
    expect(tags.common.track.no).toBe(1);
    expect(tags.common.musicbrainz_albumid).toBe('22222222-2222-4222-8222-222222222222');
    expect(tags.common.musicbrainz_artistid).toEqual(['33333333-3333-4333-8333-333333333333']);

    // The scoped scan indexes it: the canonical library streams it.
    const trackId = await waitFor(
      () => server.ctx.db.prepare('SELECT track_id FROM library_media_files WHERE path = ? AND available = 1').pluck().get(filedPath) as number | undefined,
      15_000,
      'the filed track in the library',
    );
    const lib = await api(`/api/library/stream/${trackId}`);
    expect(lib.status).toBe(200);
    expect(Buffer.from(await lib.arrayBuffer()).equals(fs.readFileSync(filedPath))).toBe(true);
    const part = await api(`/api/playlists/stream/${job.id}`, { headers: { range: 'bytes=0-9' } });
    expect([part.status, part.headers.get('content-type'), (await part.arrayBuffer()).byteLength]).toEqual([206, 'audio/mpeg', 10]);
  });

  it('files a FLAC shared under an .mp3 name as the FLAC it is', async () => {
    const job = createJob(server, { artistName: 'Quiet Coast', trackName: 'First Light', albumName: 'Shoreline', trackNumber: 1, durationMs: 1000 });
    const done = await settled(server, job.id);
    expect([done.status, done.error]).toEqual(['done', null]);
    expect(readState(done).chosen?.ref).toBe('oddnames\u0000@@odd\\Quiet Coast\\Quiet Coast - Shoreline (2020)\\01 - First Light.mp3');
    const filed = path.join(root, 'Quiet Coast', 'Shoreline', '01 First Light.flac');
    expect(done.finalPath).toBe(filed);
    expect([done.format, done.qualityTier]).toEqual(['flac', 'lossless']);
    expect(fs.readFileSync(filed).subarray(0, 4).toString('latin1')).toBe('fLaC');
    expect(fs.readdirSync(path.dirname(filed))).toEqual(['01 First Light.flac']);
    expect(stagingLeft(job.id)).toBe(false);
  });

  it('holds a doubtful file for review, previews it with ranges, and files it on approve', async () => {
    const events: string[] = [];
    const off = server.ctx.downloads.onEvent((e) => events.push(`${e.job.id} ${e.type} ${e.job.status}`));
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Salt and Iron', albumName: 'Tidewater', trackNumber: 2, durationMs: 200_000 });
    const blocked = await settled(server, job.id);
    off();
    expect(blocked.status).toBe('blocked');
    expect(events.filter((e) => e.startsWith(`${job.id} job_blocked`))).toEqual([`${job.id} job_blocked blocked`]);
    expect(events).toContain(`${job.id} job_updated downloading`);
    expect(blocked.blockReason).toMatch(/duration 0:01 differs from the expected 3:20/);
    expect(blocked.blockedAt).not.toBeNull();
    expect(blocked.stagingPath!.startsWith(path.join(root, '.staging', String(job.id)) + path.sep)).toBe(true);

    const list = (await (await api('/api/playlists/jobs?status=blocked')).json()) as { id: string; blockReason: string }[];
    expect(list.map((j) => j.id)).toContain(String(job.id));

    const size = fs.statSync(blocked.stagingPath!).size;
    const token = ((await (await api('/api/health/stream-token', { method: 'POST' })).json()) as { token: string }).token;
    const preview = await fetch(`${server.url}/api/playlists/staging-stream/${job.id}?st=${token}`, { headers: { range: 'bytes=4-' } });
    expect([preview.status, preview.headers.get('content-range'), preview.headers.get('content-type')]).toEqual([206, `bytes 4-${size - 1}/${size}`, 'audio/mpeg']);
    await preview.arrayBuffer();
    expect((await api(`/api/playlists/staging-stream/${job.id}`, { headers: { range: `bytes=${size + 10}-` } })).status).toBe(416);

    const approved = await api(`/api/playlists/jobs/${job.id}/approve`, { method: 'POST' });
    const body = (await approved.json()) as { success: boolean; path: string };
    expect([approved.status, body]).toEqual([200, { success: true, path: path.join(root, 'Velvet Harbors', 'Tidewater', '02 Salt and Iron.mp3') }]);
    expect(fs.existsSync(body.path)).toBe(true);
    expect(jobOf(server, job.id)).toMatchObject({ status: 'done', finalPath: body.path, stagingPath: null });
    expect(stagingLeft(job.id)).toBe(false);
    const again = await api(`/api/playlists/jobs/${job.id}/approve`, { method: 'POST' });
    expect([again.status, (await again.json()).error]).toEqual([404, 'Blocked job not found']);
  });

  it('an approve in progress is not taken for an orphan by the sweep (no second run of the same job)', async () => {
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Breakwater', albumName: 'Tidewater', trackNumber: 4, durationMs: 200_000 });
    const blocked = await settled(server, job.id);
    expect(blocked.status).toBe('blocked');
    const queuedBefore = blocked.queueJobId;
    // The sweep runs every 2 s; on a busy machine it lands while approve is filing. Run it right then.
    let swept = false;
    const off = server.ctx.downloads.onEvent((e) => {
      if (e.job.id === job.id && e.previousStatus === 'blocked' && e.job.status === 'downloading' && !swept) {
        swept = true;
        sweepOnce(server.ctx);
      }
    });
    const approved = await api(`/api/playlists/jobs/${job.id}/approve`, { method: 'POST' });
    off();
    expect(swept).toBe(true);
    const body = (await approved.json()) as { success: boolean; path: string };
    expect([approved.status, body.success]).toEqual([200, true]);
    const after = jobOf(server, job.id);
    expect([after.status, after.queueJobId]).toEqual(['done', queuedBefore]);
    expect(fs.existsSync(body.path)).toBe(true);
  });

  it('deny removes the held file, never picks that source again: next candidate, then the next source, then fails', async () => {
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Low Tide', albumName: 'Tidewater', trackNumber: 3, durationMs: 200_000 });
    const first = await settled(server, job.id);
    expect(first.status).toBe('blocked');
    expect(readState(first).chosen?.data.username).toBe('quickpeer');
    const held = first.stagingPath!;
    expect((await (await api(`/api/playlists/jobs/${job.id}/deny`, { method: 'POST' })).json())).toEqual({ success: true });
    expect(fs.existsSync(held)).toBe(false);
    expect([...downloads.denied(server.ctx.db, job.id)]).toEqual([`slskd\u0000${readState(first).chosen!.ref}`]);

    const second = await waitFor(() => {
      const j = jobOf(server, job.id);
      return j.status === 'blocked' && readState(j).chosen?.ref !== readState(first).chosen?.ref ? j : undefined;
    }, 20_000, 'the second candidate');
    expect(readState(second).chosen?.data.username).toBe('slow peer');
    await api(`/api/playlists/jobs/${job.id}/deny`, { method: 'POST' });

    const third = await waitFor(() => {
      const j = jobOf(server, job.id);
      return j.status === 'blocked' && j.downloadSource === 'usenet' ? j : undefined;
    }, 20_000, 'the Usenet candidate');
    expect(readState(third).chosen?.ref).toBe('nzb-low');
    await api(`/api/playlists/jobs/${job.id}/deny`, { method: 'POST' });
    const failed = await settled(server, job.id, ['failed']);
    expect(failed.error).toMatch(/No source had an acceptable copy/);
    expect(downloads.denied(server.ctx.db, job.id).size).toBe(3);
    expect(stagingLeft(job.id)).toBe(false);
  });

  it('moves to Usenet when slskd is down', async () => {
    slskd.faults.down = true;
    try {
      const job = createJob(server, { artistName: 'Radiohead', trackName: 'Paranoid Android', albumName: 'OK Computer', trackNumber: 2, durationMs: 2000 });
      const done = await settled(server, job.id, ['done', 'failed', 'blocked'], 60_000);
      expect([done.status, done.downloadSource, done.error]).toEqual(['done', 'usenet', null]);
      expect(done.finalPath).toBe(path.join(root, 'Radiohead', 'OK Computer', '02 Paranoid Android.mp3'));
      expect(readState(done).errors.join(' ')).toMatch(/slskd/);
    } finally {
      slskd.faults.down = false;
    }
  }, 70_000);

  it('refuses a finished download SABnzbd reports outside the confirmed folder, and leaves that file where it is', async () => {
    prowlarr.releases.push({ guid: 'nzb-lie', indexerId: 1, releaseTitle: 'Radiohead - Kid A (2000) [MP3 320]', artist: 'Radiohead', album: 'Kid A', title: 'Idioteque', track: 8, size: 9_000_000, categories: [3010] });
    // Someone's own music, in a folder that has nothing to do with SABnzbd.
    const victim = path.join(dir, 'home', 'Music', 'Radiohead - Kid A');
    fs.mkdirSync(victim, { recursive: true });
    fs.copyFileSync(filedPath, path.join(victim, '08 - Idioteque.mp3'));
    slskd.faults.down = true;
    sab.downloads.reportFolder = victim;
    try {
      const job = createJob(server, { artistName: 'Radiohead', trackName: 'Idioteque', albumName: 'Kid A', trackNumber: 8, durationMs: 2000 });
      const failed = await settled(server, job.id, ['done', 'failed', 'blocked'], 60_000);
      expect(failed.status).toBe('failed');
      expect(failed.error).toContain(`SABnzbd reports the finished download in ${victim}, outside the confirmed completed folder ${sab.downloads.completedDir}; refusing to take files from ${victim}`);
      expect(fs.readdirSync(victim)).toEqual(['08 - Idioteque.mp3']);
      expect(fs.existsSync(path.join(root, 'Radiohead', 'Kid A'))).toBe(false);
    } finally {
      slskd.faults.down = false;
      sab.downloads.reportFolder = null;
    }
  }, 70_000);

  it('leaves the files in the download clients\' folders: they are copied, never moved', () => {
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [e.name]));
    expect(walk(path.join(dir, 'a', 'b', 'slskd'))).toContain('01 - Harbor Lights.mp3');
    expect(walk(sab.downloads.completedDir)).toContain('02 - Paranoid Android.mp3');
  });

  it('cancels a Usenet job mid-download: the release leaves the SABnzbd queue', async () => {
    prowlarr.releases.push({ guid: 'nzb-owl', indexerId: 1, releaseTitle: 'Night Owls - Midnight Run (2020) [MP3 320]', artist: 'Night Owls', album: 'Midnight Run', title: 'Midnight Run', track: 1, size: 9_000_000, categories: [3010] });
    sab.downloads.durationMs = 30_000;
    try {
      const job = createJob(server, { artistName: 'Night Owls', trackName: 'Midnight Run', albumName: 'Midnight Run', trackNumber: 1, durationMs: 2000 });
      await waitFor(() => (jobOf(server, job.id).downloadSource === 'usenet' && readState(jobOf(server, job.id)).handle ? true : undefined), 20_000, 'the grab');
      expect(sab.downloads.queued().map((d) => d.name)).toEqual(['Night Owls - Midnight Run (2020) [MP3 320]']);
      expect((await api(`/api/playlists/jobs/${job.id}/cancel`, { method: 'POST' })).status).toBe(200);
      expect(sab.downloads.queued()).toEqual([]);
      expect(jobOf(server, job.id).status).toBe('cancelled');
    } finally {
      sab.downloads.durationMs = 200;
    }
  });

  it('cancels a job mid-transfer: the slskd transfer is cancelled and nothing is left in staging', async () => {
    slskd.state.options.transferMs = 20_000;
    try {
      const job = createJob(server, { artistName: 'Copper Lanterns', trackName: 'Departure', albumName: 'Night Ferry', trackNumber: 1, durationMs: 1000 });
      await waitFor(() => (jobOf(server, job.id).phase === 'download' && readState(jobOf(server, job.id)).handle ? true : undefined), 15_000, 'the transfer');
      const res = await api(`/api/playlists/jobs/${job.id}/cancel`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { job: { status: string } }).job.status).toBe('cancelled');
      const t = slskd.state.transfers.find((x) => x.file.filename.endsWith('01 - Departure.mp3'));
      expect(t === undefined || t.cancelled).toBe(true);
      expect(slskd.state.countOf(`DELETE /api/v0/transfers/downloads/collector/${readState(jobOf(server, job.id)).handle!.data.id}`)).toBe(1);
      await new Promise((r) => setTimeout(r, 1200));
      expect(jobOf(server, job.id).status).toBe('cancelled');
      expect(stagingLeft(job.id)).toBe(false);
      expect((await api(`/api/playlists/jobs/${job.id}/cancel`, { method: 'POST' })).status).toBe(409);
    } finally {
      slskd.state.options.transferMs = 300;
    }
  });

  it('links a track the library already holds instead of downloading it', async () => {
    const enqueues = slskd.state.requests.filter((r) => r.method === 'POST').length;
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Harbor Lights', albumName: 'Tidewater', trackNumber: 1, durationMs: 1000 });
    const done = await settled(server, job.id);
    expect(done.status).toBe('done');
    expect(done.reusedTrackId).not.toBeNull();
    expect(done.finalPath).toBe(fs.realpathSync(filedPath));
    expect(slskd.state.requests.filter((r) => r.method === 'POST').length).toBe(enqueues);
    expect((await api(`/api/playlists/stream/${job.id}`)).status).toBe(200);
  });

  it('starts no job while the worker is stopped, and runs it once it is started again', async () => {
    await setSettings(server, { downloads: { worker: { running: false } } });
    try {
      const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Harbor Lights', albumName: 'Tidewater', trackNumber: 1, durationMs: 1000 });
      await new Promise((r) => setTimeout(r, 2500));
      expect(jobOf(server, job.id)).toMatchObject({ status: 'pending', phase: null });
      await setSettings(server, { downloads: { worker: { running: true } } });
      expect((await settled(server, job.id)).status).toBe('done');
    } finally {
      await setSettings(server, { downloads: { worker: { running: true } } });
    }
  });

  it('never reads or writes outside the downloads folders for path-traversal names from a source', async () => {
    const job = createJob(server, { artistName: 'Evil Band', trackName: 'Bad Song', durationMs: 1000 });
    const failed = await settled(server, job.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/unsafe file name/);
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    expect(walk(root).filter((f) => /Bad Song/.test(f))).toEqual([]);
    expect(stagingLeft(job.id)).toBe(false);
  });

  it('checks permissions and ownership', async () => {
    const noFlow = await makeUser(server, 'noflow', { accessFlow: false });
    const flow = await makeUser(server, 'flowuser', { accessFlow: true });
    expect((await server.api('/api/playlists/jobs', { token: noFlow.token })).status).toBe(403);
    const adminJobs = (await (await api('/api/playlists/jobs?limit=2')).json()) as unknown[];
    expect(adminJobs).toHaveLength(2);
    expect(await (await server.api('/api/playlists/jobs', { token: flow.token })).json()).toEqual([]);

    const held = createJob(server, { artistName: 'Copper Lanterns', trackName: 'Open Water', albumName: 'Night Ferry', trackNumber: 2, durationMs: 300_000 }, 1);
    expect((await settled(server, held.id)).status).toBe('blocked');
    for (const action of ['approve', 'deny', 'cancel']) {
      const res = await server.api(`/api/playlists/jobs/${held.id}/${action}`, { method: 'POST', token: flow.token });
      expect(res.status).toBe(404);
    }
    expect((await server.api(`/api/playlists/staging-stream/${held.id}`, { token: flow.token })).status).toBe(404);
    expect((await server.api(`/api/playlists/staging-stream/${held.id}`, { token: noFlow.token })).status).toBe(403);

    const own = createJob(server, { artistName: 'Copper Lanterns', trackName: 'Open Water', albumName: 'Night Ferry', trackNumber: 2, durationMs: 300_000 }, flow.id);
    expect((await settled(server, own.id)).status).toBe('blocked');
    const mine = (await (await server.api('/api/playlists/jobs?status=blocked', { token: flow.token })).json()) as { id: string }[];
    expect(mine.map((j) => j.id)).toEqual([String(own.id)]);
    expect((await server.api(`/api/playlists/jobs/${own.id}/deny`, { method: 'POST', token: flow.token })).status).toBe(200);
    expect((await (await api('/api/health/bootstrap')).json()).api.features).toEqual(expect.arrayContaining(['review', 'downloadCancel']));
  });

  it('runs at most downloads.worker.concurrency jobs at once', async () => {
    await setSettings(server, { downloads: { worker: { concurrency: 1 } } });
    slskd.state.options.transferMs = 1500;
    try {
      const a = createJob(server, { artistName: 'Copper Lanterns', trackName: 'Departure', albumName: 'Night Ferry', trackNumber: 1, durationMs: 1000 });
      const b = createJob(server, { artistName: 'Copper Lanterns', trackName: 'Open Water', albumName: 'Night Ferry', trackNumber: 2, durationMs: 1000 });
      let overlap = false;
      const watch = setInterval(() => {
        if (jobOf(server, a.id).status === 'downloading' && jobOf(server, b.id).status === 'downloading') overlap = true;
      }, 20);
      const [da, db] = [await settled(server, a.id), await settled(server, b.id)];
      clearInterval(watch);
      expect([da.status, db.status, overlap]).toEqual(['done', 'done', false]);
    } finally {
      slskd.state.options.transferMs = 300;
      await setSettings(server, { downloads: { worker: { concurrency: 3 } } });
    }
  });
});
