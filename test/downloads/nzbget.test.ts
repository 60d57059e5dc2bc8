import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState } from '../../server/domain/downloads/state.js';
import { startFakeNzbget, type FakeNzbget } from '../fakes/nzbget/index.js';
import { startFakeProwlarr, type FakeProwlarr } from '../fakes/prowlarr/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirmClientFolders, createJob, jobOf, settled, setSettings, waitFor } from './helpers.js';

/**
 * The track pipeline with Usenet through NZBGet as the only source (no Lidarr, no slskd, no
 * yt-dlp): Prowlarr search → JSON-RPC `append` of the release's NZB URL → `listgroups` while it
 * downloads and is post-processed → `history` SUCCESS/ALL with DestDir holding a real MP3 →
 * verified, tagged, filed, streamable. A failed download moves the job to the next release, or
 * fails it naming NZBGet's reason; NZBGet down fails it naming the connection error.
 */

let server: TestServer;
let prowlarr: FakeProwlarr;
let nzbget: FakeNzbget;
let dir: string;
let root: string;

const release = (guid: string, indexerId: number, releaseTitle: string, title: string, track: number, categories: number[]) => ({
  guid,
  indexerId,
  releaseTitle,
  artist: 'Velvet Harbors',
  album: 'Tidewater',
  title,
  track,
  size: 90_000_000,
  categories,
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzbget-pipeline-'));
  root = path.join(dir, 'library-downloads');
  [prowlarr, nzbget] = await Promise.all([startFakeProwlarr(), startFakeNzbget({ completedDir: path.join(dir, 'nzbget', 'complete') })]);
  prowlarr.releases.push(
    release('nzb-harbor-320', 1, 'Velvet Harbors - Tidewater (2019) [MP3 320]', 'Harbor Lights', 1, [3010]),
    release('nzb-harbor-flac', 2, 'Velvet Harbors - Tidewater (2019) [FLAC]', 'Harbor Lights', 1, [3040]),
    release('nzb-salt', 1, 'Velvet Harbors - Tidewater (2019) [MP3 V0]', 'Salt and Iron', 2, [3010]),
    release('nzb-low', 1, 'Velvet Harbors - Tidewater (2019) [MP3 256]', 'Low Tide', 3, [3010]),
    release('nzb-fog', 1, 'Velvet Harbors - Tidewater (2019) [MP3 192]', 'Fog Bank', 4, [3010]),
  );
  nzbget.downloads.durationMs = 200;
  server = await startTestServer();
  await setSettings(server, {
    downloads: { folderPath: root, worker: { durationToleranceSeconds: 5, minMatchScore: 0.7 } },
    integrations: {
      prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey },
      nzbget: { url: nzbget.url, username: nzbget.username, password: nzbget.password, category: 'music' },
    },
  });
  await confirmClientFolders(server, 'nzbget');
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([prowlarr?.close(), nzbget?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit & { json?: unknown; token?: string } = {}) => server.api(p, { token: server.admin.token, ...init });
const stagingLeft = (id: number) => fs.existsSync(path.join(root, '.staging', String(id)));
const appendedUrls = () => nzbget.calls.filter((c) => c.method === 'append').map((c) => c.params[1]);

describe('track pipeline through Prowlarr and NZBGet', () => {
  it('has NZBGet as the only source', async () => {
    expect(server.ctx.downloads.sources().map((s) => s.label)).toEqual(['Usenet (Prowlarr + NZBGet)']);
    const health = (await (await api('/api/health')).json()) as { downloadSources: { usenet: Record<string, unknown> } };
    expect(health.downloadSources.usenet).toMatchObject({ configured: true, nzbgetConfigured: true, sabnzbdConfigured: false, prowlarrConfigured: true });
  });

  it('searches, appends the NZB, follows the download through post-processing, then verifies, tags, files and streams it', async () => {
    // A slow NZBGet: every call waits, the articles take 1.5 s, post-processing another second.
    Object.assign(nzbget.downloads, { durationMs: 1500, postProcessMs: 1000 });
    nzbget.faults.delayMs = 80;
    const progress: number[] = [];
    const off = server.ctx.downloads.onEvent((e) => e.job.status === 'downloading' && e.job.phase === 'download' && progress.push(e.job.progress));
    try {
      const job = createJob(server, {
        artistName: 'Radiohead',
        trackName: 'Paranoid Android',
        albumName: 'OK Computer',
        trackNumber: 2,
        durationMs: 2000,
        recordingMbid: '11111111-1111-4111-8111-111111111111',
        releaseMbid: '22222222-2222-4222-8222-222222222222',
        artistMbid: '33333333-3333-4333-8333-333333333333',
      });
      // While NZBGet unpacks, the group is still listed and the job is still downloading.
      await waitFor(() => nzbget.downloads.jobs.some((j) => nzbget.downloads.stage(j) === 'post-processing'), 20_000, 'post-processing in NZBGet');
      expect(jobOf(server, job.id).status).toBe('downloading');
      const done = await settled(server, job.id, ['done', 'failed', 'blocked'], 30_000);
      expect([done.status, done.downloadSource, done.error]).toEqual(['done', 'usenet', null]);

      // The release Prowlarr offered went to NZBGet by URL, in the configured category, with 11 parameters.
      const chosen = prowlarr.releases.find((r) => r.guid === readState(done).chosen?.ref)!;
      expect(chosen.title).toBe('Paranoid Android');
      const append = nzbget.calls.find((c) => c.method === 'append')!;
      expect(append.params).toHaveLength(11);
      expect(append.params.slice(0, 3)).toEqual([`${chosen.releaseTitle}.nzb`, prowlarr.downloadUrlOf(chosen), 'music']);
      expect(nzbget.calls.some((c) => c.method === 'listgroups')).toBe(true);
      expect(nzbget.calls.some((c) => c.method === 'history')).toBe(true);
      expect(progress.some((p) => p > 0 && p < 100)).toBe(true);

      const filed = path.join(root, 'Radiohead', 'OK Computer', '02 Paranoid Android.mp3');
      expect(done.finalPath).toBe(filed);
      expect(fs.readdirSync(path.dirname(filed))).toEqual(['02 Paranoid Android.mp3']);
      expect(stagingLeft(job.id)).toBe(false);
      const tags = await parseFile(filed);
      expect(tags.common).toMatchObject({ title: 'Paranoid Android', artist: 'Radiohead', album: 'OK Computer' });
      expect(tags.common.track.no).toBe(2);
      // The recording id is in the UFID frame tag readers map it from.
      expect(tags.common.musicbrainz_recordingid).toBe('11111111-1111-4111-8111-111111111111');
      expect(tags.common.musicbrainz_albumid).toBe('22222222-2222-4222-8222-222222222222');
      expect([done.format, done.qualityTier]).toEqual(['mp3', done.bitrate! >= 256 ? 'high' : done.bitrate! >= 160 ? 'medium' : 'low']);

      const trackId = await waitFor(
        () => server.ctx.db.prepare('SELECT track_id FROM library_media_files WHERE path = ? AND available = 1').pluck().get(filed) as number | undefined,
        15_000,
        'the filed track in the library',
      );
      const lib = await api(`/api/library/stream/${trackId}`);
      expect(lib.status).toBe(200);
      expect(Buffer.from(await lib.arrayBuffer()).equals(fs.readFileSync(filed))).toBe(true);
      const part = await api(`/api/playlists/stream/${job.id}`, { headers: { range: 'bytes=0-9' } });
      expect([part.status, part.headers.get('content-type'), (await part.arrayBuffer()).byteLength]).toEqual([206, 'audio/mpeg', 10]);
    } finally {
      off();
      Object.assign(nzbget.downloads, { durationMs: 200, postProcessMs: 0 });
      nzbget.faults.delayMs = 0;
    }
  }, 40_000);

  it('moves to the next release when NZBGet reports the download failed', async () => {
    nzbget.downloads.failNextDownloads(1, 'health');
    const before = nzbget.downloads.jobs.length;
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Harbor Lights', albumName: 'Tidewater', trackNumber: 1, durationMs: 2000 });
    const done = await settled(server, job.id, ['done', 'failed', 'blocked'], 30_000);
    expect([done.status, done.error]).toEqual(['done', null]);
    expect(done.finalPath).toBe(path.join(root, 'Velvet Harbors', 'Tidewater', '01 Harbor Lights.mp3'));

    const st = readState(done);
    const [failedRef] = st.failedRefs;
    expect(st.failedRefs).toHaveLength(1);
    expect(['usenet\u0000nzb-harbor-320', 'usenet\u0000nzb-harbor-flac']).toContain(failedRef);
    expect(st.chosen?.ref).not.toBe(failedRef!.split('\u0000')[1]);
    expect(st.errors).toContain('Usenet (Prowlarr + NZBGet): NZBGet reports the download failed: articles are missing on the news server (FAILURE/HEALTH)');
    // Both releases went to NZBGet; its history holds the failure and the success.
    const ours = nzbget.downloads.jobs.slice(before);
    expect(ours.map((j) => [j.finished?.ok, j.finished?.failure])).toEqual([
      [false, 'health'],
      [true, null],
    ]);
    expect(stagingLeft(job.id)).toBe(false);
  }, 40_000);

  it('fails the job with NZBGet\'s reason when no release downloads', async () => {
    nzbget.downloads.failNextDownloads(1, 'unpack');
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Salt and Iron', albumName: 'Tidewater', trackNumber: 2, durationMs: 2000 });
    const failed = await settled(server, job.id, ['done', 'failed', 'blocked'], 30_000);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('NZBGet reports the download failed: unpacking failed (FAILURE/UNPACK)');
    expect(failed.error).toMatch(/^No source had an acceptable copy of "Velvet Harbors – Salt and Iron"/);
    expect(fs.existsSync(path.join(root, 'Velvet Harbors', 'Tidewater', '02 Salt and Iron.mp3'))).toBe(false);
    expect(stagingLeft(job.id)).toBe(false);
  }, 40_000);

  it('fails the job naming the connection error when NZBGet is down', async () => {
    const appends = appendedUrls().length;
    nzbget.faults.down = true;
    try {
      const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Low Tide', albumName: 'Tidewater', trackNumber: 3, durationMs: 2000 });
      const failed = await settled(server, job.id, ['done', 'failed', 'blocked'], 30_000);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(new RegExp(`Usenet \\(Prowlarr \\+ NZBGet\\): NZBGet at ${nzbget.url.replace(/[.]/g, '\\.')}/jsonrpc: connection (reset|closed)`));
      expect(stagingLeft(job.id)).toBe(false);
    } finally {
      nzbget.faults.down = false;
    }
    expect(appendedUrls().length).toBe(appends);
  }, 40_000);

  it('fails the job naming the connection error when NZBGet goes down mid-download', async () => {
    nzbget.downloads.durationMs = 60_000;
    try {
      const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Fog Bank', albumName: 'Tidewater', trackNumber: 4, durationMs: 2000 });
      await waitFor(() => (readState(jobOf(server, job.id)).handle ? true : undefined), 20_000, 'the grab');
      expect(nzbget.downloads.queued().map((d) => d.name)).toEqual(['Velvet Harbors - Tidewater (2019) [MP3 192]']);
      nzbget.faults.down = true;
      const failed = await settled(server, job.id, ['done', 'failed', 'blocked'], 30_000);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/Usenet \(Prowlarr \+ NZBGet\): NZBGet at http:\/\/127\.0\.0\.1:\d+\/jsonrpc: connection (reset|closed)/);
      expect(stagingLeft(job.id)).toBe(false);
    } finally {
      nzbget.faults.down = false;
      nzbget.downloads.durationMs = 200;
    }
  }, 40_000);
});
