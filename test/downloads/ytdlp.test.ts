import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadsRoot, stagingDir } from '../../server/domain/downloads/layout.js';
import { parseVideoTitle, PID_FILE, processStart, ytdlpSource, type YtdlpSource } from '../../server/domain/downloads/sources/ytdlp.js';
import type { TrackQuery, TransferHandle, TransferState } from '../../server/domain/downloads/types.js';
import { IntegrationError } from '../../server/integrations/errors.js';
import { errorCause, locateYtdlp, parseProgress, YtdlpClient } from '../../server/integrations/ytdlp/index.js';
import { startYtdlpFake, type YtdlpFake } from '../fakes/ytdlp/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const FFMPEG = process.env.FFMPEG_PATH ?? '/usr/bin/ffmpeg';

let fake: YtdlpFake;
let server: TestServer;
let tmp: string;
let client: YtdlpClient;

beforeAll(async () => {
  fake = await startYtdlpFake({
    entries: [
      { title: 'Fake Artist - First Song (Official Video)', uploader: 'FakeArtistVEVO', file: 'tone.mp3' },
      { title: 'Second Song', channel: 'Other Artist - Topic', file: 'tone.m4a', match: 'second' },
    ],
  });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-ytdlp-test-'));
  client = new YtdlpClient({ binary: fake.bin, ffmpeg: FFMPEG, timeoutMs: 20_000 });
  server = await startTestServer({ ytdlp: fake.bin });
});

afterAll(async () => {
  await server?.stop();
  await fake?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('yt-dlp client against the real yt-dlp', () => {
  it('searches with ytsearchN and parses the NDJSON', async () => {
    const all = await client.search('first song', 5);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ title: 'Fake Artist - First Song (Official Video)', uploader: 'FakeArtistVEVO', durationSeconds: 3, url: fake.mediaUrl('tone.mp3') });
    const both = await client.search('the second one', 5);
    expect(both.map((e) => e.title)).toEqual(['Fake Artist - First Song (Official Video)', 'Second Song']);
    expect(await client.search('second', 1)).toHaveLength(1);
    const call = fake.calls().find((args) => args.includes('ytsearch1:second'))!;
    expect(call).toEqual(expect.arrayContaining(['--flat-playlist', '--dump-json', '--ignore-config']));
  });

  it('downloads with -x into the folder and the file is real audio', async () => {
    const out = path.join(tmp, 'dl1');
    const progress: number[] = [];
    const { file } = await client.download(fake.mediaUrl('tone.mp3'), out, { onProgress: (p) => p.percent !== null && progress.push(p.percent) });
    expect(path.dirname(file)).toBe(out);
    expect(file).toMatch(/\.mp3$/);
    const meta = await parseFile(file);
    expect(meta.format.duration).toBeGreaterThan(2.5);
    expect(meta.format.duration).toBeLessThan(3.5);
    expect(progress.at(-1)).toBe(100);
    expect(fs.readdirSync(out).filter((n) => n.endsWith('.part'))).toEqual([]);
    const call = fake.calls().find((args) => args.includes(fake.mediaUrl('tone.mp3')))!;
    expect(call).toEqual(expect.arrayContaining(['-x', '--no-playlist', '--newline', '--ffmpeg-location', FFMPEG]));
  });

  it('converts with --audio-format through ffmpeg', async () => {
    const opus = new YtdlpClient({ binary: fake.bin, ffmpeg: FFMPEG, audioFormat: 'opus' });
    const { file } = await opus.download(fake.mediaUrl('tone.m4a'), path.join(tmp, 'dl2'));
    expect(file).toMatch(/\.opus$/);
    const meta = await parseFile(file);
    expect(meta.format.duration).toBeGreaterThan(1.5);
    expect(meta.format.codec?.toLowerCase()).toContain('opus');
  });

  it('names the cause of a failed download', async () => {
    const err = await client.download(fake.mediaUrl('tone.mp3', { status: 404 }), path.join(tmp, 'dl3')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrationError);
    expect((err as IntegrationError).kind).toBe('not_found');
    expect((err as IntegrationError).message).toContain('HTTP Error 404');
  });

  it('names the cause of a failed search', async () => {
    fake.failSearch('Unable to download API page: HTTP Error 429: Too Many Requests');
    try {
      const err = await client.search('anything', 3).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IntegrationError);
      expect((err as IntegrationError).kind).toBe('rate_limited');
      expect((err as IntegrationError).message).toBe('Unable to download API page: HTTP Error 429: Too Many Requests');
    } finally {
      fake.clearFailures();
    }
  });

  it('abort kills the process group mid-download and leaves no finished file', async () => {
    const controller = new AbortController();
    let pid = 0;
    const out = path.join(tmp, 'dl4');
    let abortedAt = 0;
    const p = client.download(fake.mediaUrl('tone.mp3', { slow: true }), out, {
      signal: controller.signal,
      onSpawn: (id) => (pid = id),
      onProgress: (pr) => {
        if (pr.downloadedBytes > 0 && !abortedAt) {
          abortedAt = Date.now();
          controller.abort();
        }
      },
    });
    const err = await p.catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    expect(Date.now() - abortedAt).toBeLessThan(2500);
    expect(fs.readdirSync(out).filter((n) => !n.endsWith('.part') && !n.endsWith('.ytdl'))).toEqual([]);
  });

  it('times out a download that takes too long', async () => {
    const err = await client.download(fake.mediaUrl('tone.mp3', { slow: true }), path.join(tmp, 'dl5'), { timeoutMs: 1200 }).catch((e: unknown) => e);
    expect((err as IntegrationError).kind).toBe('timeout');
  });

  it('finds the binary from the setting, the environment or PATH and says why not', () => {
    expect(locateYtdlp('', undefined, fake.binDir)).toMatchObject({ binary: fake.bin, origin: 'path' });
    expect(locateYtdlp('', fake.bin, '')).toMatchObject({ binary: fake.bin, origin: 'env' });
    expect(locateYtdlp(fake.bin, '/nope', '')).toMatchObject({ binary: fake.bin, origin: 'setting' });
    expect(locateYtdlp('', undefined, '/nonexistent')).toEqual({ binary: null, origin: null, reason: 'yt-dlp was not found on PATH; install it or set its path' });
    expect(locateYtdlp('/opt/none/yt-dlp', undefined, fake.binDir).reason).toBe('yt-dlp was not found at /opt/none/yt-dlp (the integrations.ytdlp.path setting); install it or set its path');
  });

  it('parses titles, progress lines and errors', () => {
    const base = { artist: null, track: null, uploader: null, channel: null };
    expect(parseVideoTitle({ ...base, title: 'Daft Punk - Around the World (Official Music Video)' })).toEqual({ artistName: 'Daft Punk', trackName: 'Around the World' });
    expect(parseVideoTitle({ ...base, title: 'Björk – Jóga [HD]' })).toEqual({ artistName: 'Björk', trackName: 'Jóga' });
    expect(parseVideoTitle({ ...base, title: 'Windowlicker', channel: 'Aphex Twin - Topic' })).toEqual({ artistName: 'Aphex Twin', trackName: 'Windowlicker' });
    expect(parseVideoTitle({ ...base, title: 'Some video (Lyrics)' })).toEqual({ artistName: null, trackName: 'Some video' });
    expect(parseVideoTitle({ ...base, title: 'x - y', artist: 'Real', track: 'Name' })).toEqual({ artistName: 'Real', trackName: 'Name' });
    expect(parseProgress('[tonearm-progress] 512 2048 NA')).toEqual({ downloadedBytes: 512, totalBytes: 2048, percent: 25 });
    expect(parseProgress('[download]  42.5% of 3.00MiB')).toMatchObject({ percent: 42.5 });
    expect(errorCause('[generic] x\nERROR: [generic] None: Unable to download webpage: HTTP Error 404: Not Found (caused by <HTTPError 404>); please report this issue on https://x')).toBe(
      '[generic] None: Unable to download webpage: HTTP Error 404: Not Found',
    );
  });
});

describe('the yt-dlp download source', () => {
  const query: TrackQuery = {
    artistName: 'Fake Artist',
    trackName: 'First Song',
    albumName: null,
    durationMs: 3000,
    trackNumber: null,
    year: null,
    recordingMbid: null,
    queries: ['Fake Artist First Song'],
  };
  const source = () => server.ctx.downloads.sources().find((s) => s.id === 'ytdlp') as YtdlpSource;
  const until = async (s: YtdlpSource, handle: TransferHandle, ctx: { stagingDir: string; jobId: number; signal: AbortSignal }) => {
    for (let i = 0; i < 200; i++) {
      const st: TransferState = await s.poll(handle, ctx);
      if (st.state === 'done' || st.state === 'failed') return st;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no end');
  };

  it('is registered, searches into candidates and downloads into the staging folder', async () => {
    const s = source();
    expect(s).toBeDefined();
    expect(s.priority).toBe(50);
    const candidates = await s.search(query, new AbortController().signal);
    expect(candidates).toHaveLength(1);
    expect(candidates[0]).toMatchObject({
      source: 'ytdlp',
      ref: fake.mediaUrl('tone.mp3'),
      artistName: 'Fake Artist',
      trackName: 'First Song',
      durationMs: 3000,
    });
    const ctx = { stagingDir: stagingDir(downloadsRoot(server.ctx), 9001), jobId: 9001, signal: new AbortController().signal };
    const handle = await s.start(candidates[0]!, ctx);
    expect(JSON.parse(JSON.stringify(handle))).toEqual(handle);
    const done = await until(s, handle, ctx);
    expect(done.state).toBe('done');
    const file = (done as { file: string }).file;
    expect(path.dirname(file)).toBe(ctx.stagingDir);
    expect((await parseFile(file)).format.duration).toBeGreaterThan(2.5);

    // After a restart the run is unknown: poll starts yt-dlp again and it finishes again.
    // A process the killed server left behind is ended first (here a stand-in noted in the pid file).
    const orphan = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const orphanGone = new Promise((r) => orphan.once('exit', r));
    fs.writeFileSync(path.join(ctx.stagingDir, PID_FILE), JSON.stringify({ pid: orphan.pid, start: processStart(orphan.pid!) }));
    const restarted = { ...handle, data: { ...handle.data, runId: 'from-before-a-restart' } };
    expect((await s.poll(restarted, ctx)).state).toBe('queued');
    await orphanGone;
    expect(orphan.signalCode).toBe('SIGKILL');
    expect(await until(s, restarted, ctx)).toMatchObject({ state: 'done', file });
  });

  it('reports a failed transfer with its cause and cancels a running one', async () => {
    const s = source();
    const ctx = { stagingDir: stagingDir(downloadsRoot(server.ctx), 9002), jobId: 9002, signal: new AbortController().signal };
    const bad = { source: 'ytdlp' as const, ref: fake.mediaUrl('gone.mp3', { status: 404 }), title: 'gone', artistName: null, trackName: null, albumName: null, durationMs: null, format: null, bitrate: null, sizeBytes: null, data: {} };
    const failed = await until(s, await s.start(bad, ctx), ctx);
    expect(failed).toMatchObject({ state: 'failed' });
    expect((failed as { message: string }).message).toContain('HTTP Error 404');

    const slow = { ...bad, ref: fake.mediaUrl('tone.mp3', { slow: true }) };
    const handle = await s.start(slow, ctx);
    await new Promise((r) => setTimeout(r, 600));
    await s.cancel(handle);
    expect(fs.readdirSync(ctx.stagingDir).filter((n) => n.startsWith('ytdlp-audio') || n === PID_FILE)).toEqual([]);
    expect(await s.poll(handle, ctx)).toEqual({ state: 'failed', message: 'cancelled' });
    await expect(s.start(bad, { ...ctx, stagingDir: tmp })).rejects.toThrow(/outside the staging folder/);
  });
});

describe('yt-dlp settings and download-client routes', () => {
  const post = (p: string, json?: unknown) => server.api(p, { method: 'POST', token: server.admin.token, ...(json !== undefined && { json }) });
  const get = async (p: string) => (await server.api(p, { token: server.admin.token })).json();

  it('tests yt-dlp: version and ffmpeg; a missing binary names the cause', async () => {
    const res = await post('/api/settings/ytdlp/test');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ success: true, path: fake.bin });
    expect(body.version).toMatch(/^\d{4}\.\d{2}\.\d{2}/);
    expect(body.ffmpegFound).toBe(fs.existsSync(FFMPEG));
    expect(fake.calls().some((args) => args.length === 1 && args[0] === '--version')).toBe(true);
    const missing = await post('/api/settings/ytdlp/test', { path: '/opt/nothing/yt-dlp' });
    expect(missing.status).toBe(409);
    expect(await missing.json()).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('yt-dlp was not found at /opt/nothing/yt-dlp') });
    expect((await server.api('/api/settings/ytdlp/test', { method: 'POST' })).status).toBe(401);
  });

  it('accepts only a program whose --version answers like yt-dlp, and says so otherwise', async () => {
    const echo = fs.existsSync('/bin/echo') ? '/bin/echo' : '/usr/bin/echo';
    const res = await post('/api/settings/ytdlp/test', { path: echo });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.message).toMatch(new RegExp(`^${echo} is not yt-dlp: its --version answered ".+", where yt-dlp answers with a date such as \\d{4}\\.\\d{2}\\.\\d{2}$`));
    const other = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'not-ytdlp-')), 'yt-dlp');
    fs.writeFileSync(other, '#!/bin/sh\necho "Python 3.11.2"\n', { mode: 0o755 });
    const impostor = await post('/api/settings/ytdlp/test', { path: other });
    expect([impostor.status, (await impostor.json()).message]).toEqual([400, expect.stringContaining('its --version answered "Python 3.11.2"')]);
    fs.rmSync(path.dirname(other), { recursive: true, force: true });
  });

  it('lists the download clients and dispatches their tests', async () => {
    const { clients } = await get('/api/settings/download-clients');
    expect(clients.map((c: { key: string }) => c.key)).toEqual(['slskd', 'prowlarr', 'sabnzbd', 'nzbget', 'ytdlp']);
    const yt = clients.find((c: { key: string }) => c.key === 'ytdlp');
    expect(yt).toMatchObject({ configured: true, enabled: true, priority: 50, testPath: '/api/settings/ytdlp/test' });
    const slskd = clients.find((c: { key: string }) => c.key === 'slskd');
    expect(slskd).toMatchObject({ configured: false, priority: 10 });
    expect(slskd.fields.find((f: { key: string }) => f.key === 'apiKey')).toMatchObject({ setting: 'integrations.slskd.apiKey', secret: true, hasValue: false });
    expect(clients.find((c: { key: string }) => c.key === 'prowlarr').priority).toBeNull();

    const yt2 = await post('/api/settings/download-clients/ytdlp/test');
    expect(yt2.status).toBe(200);
    expect((await yt2.json()).version).toMatch(/^\d{4}\./);
    const slskdTest = await post('/api/settings/download-clients/slskd/test');
    expect(slskdTest.status).toBe(409);
    expect(await slskdTest.json()).toMatchObject({ code: 'NOT_CONFIGURED' });
    const sab = await post('/api/settings/download-clients/sabnzbd/test', { url: 'not a url' });
    expect(sab.status).toBe(400);
    const unknown = await post('/api/settings/download-clients/deemix/test');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('Download client not found');
  });

  it('health reports yt-dlp as found and follows the enabled switch', async () => {
    let h = await get('/api/health');
    expect(h.ytdlpConfigured).toBe(true);
    expect(h.downloadSources.ytdlp).toEqual({ id: 'ytdlp', label: 'yt-dlp', configured: true, enabled: true, priority: 50 });
    const off = await post('/api/settings', { integrations: { ytdlp: { enabled: false, priority: 40 } } });
    expect(off.status).toBe(200);
    h = await get('/api/health');
    expect(h.ytdlpConfigured).toBe(false);
    expect(h.downloadSources.ytdlp).toMatchObject({ configured: true, enabled: false, priority: 40 });
    expect(ytdlpSource(server.ctx)).toBeNull();
    await post('/api/settings', { integrations: { ytdlp: { enabled: true, priority: 50 } } });
  });
});
