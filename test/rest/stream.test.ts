import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../server/rest/methods/stream.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeAudioFile } from '../fixtures/audio.js';
import { makeLibrary, RestClient, waitForScans, type Fixture } from './harness.js';

let fx: Fixture;
let server: TestServer;
let client: RestClient;
let flac: { id: string; file: string };
let long: { id: string };
let broken: { id: string; file: string };

async function get(params: Record<string, string | number | boolean>, headers: Record<string, string> = {}, method = 'stream') {
  const res = await fetch(client.url(method, params), { headers });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

const transcodeDir = () => path.join(server.dataDir, 'transcodes');
const cachedFiles = () => fs.readdirSync(transcodeDir()).filter((f) => !f.endsWith('.part'));

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-stream-'));
  fx = makeLibrary(dir, { bulk: false });
  makeAudioFile(path.join(fx.music, 'Long', 'Player', '01 Long.flac'), 'flac', { title: 'Long One', artist: 'Long', album: 'Player', track: 1 }, { seconds: 90 });
  const brokenFile = path.join(fx.music, 'Broken', 'Tape', '01 Broken.flac');
  makeAudioFile(brokenFile, 'flac', { title: 'Broken Tape', artist: 'Broken', album: 'Tape', track: 1 }, { seconds: 2 });
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  client = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  const army = (await client.ok('search3', { query: 'Army of Me' })).searchResult3.song[0];
  flac = { id: army.id, file: path.join(fx.music, 'Björk', 'Post', '01 Army of Me.flac') };
  long = { id: (await client.ok('search3', { query: 'Long One' })).searchResult3.song[0].id };
  broken = { id: (await client.ok('search3', { query: 'Broken Tape' })).searchResult3.song[0].id, file: brokenFile };
  // Scanned while whole, damaged since (the watcher is off): ffmpeg cannot decode it any more.
  fs.writeFileSync(brokenFile, Buffer.alloc(4096, 0x5a));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('decision', () => {
  it('raw unless a format or a lower maximum bit rate asks otherwise', () => {
    const flacSource = { suffix: 'flac', kbps: 900 };
    expect(decide(flacSource, undefined, 0)).toEqual({ transcode: null });
    expect(decide(flacSource, 'raw', 128)).toEqual({ transcode: null });
    expect(decide(flacSource, 'flac', 0)).toEqual({ transcode: null });
    expect(decide(flacSource, undefined, 128)).toEqual({ transcode: { format: 'mp3', kbps: 128 } });
    expect(decide(flacSource, 'opus', 0)).toEqual({ transcode: { format: 'opus', kbps: 128 } });
    expect(decide(flacSource, 'aac', 96)).toEqual({ transcode: { format: 'aac', kbps: 96 } });
    expect(decide({ suffix: 'mp3', kbps: 128 }, undefined, 320)).toEqual({ transcode: null });
    expect(decide({ suffix: 'mp3', kbps: 128 }, 'mp3', 0)).toEqual({ transcode: null });
    expect(() => decide(flacSource, 'wma', 0)).toThrow(/unsupported format/);
  });
});

describe('raw streaming', () => {
  it('sends the original bytes with ranges', async () => {
    const original = fs.readFileSync(flac.file);
    const full = await get({ id: flac.id });
    expect(full.res.status).toBe(200);
    expect(full.res.headers.get('accept-ranges')).toBe('bytes');
    expect(full.res.headers.get('content-type')).toBe('audio/flac');
    expect(full.body.equals(original)).toBe(true);
    const part = await get({ id: flac.id }, { range: 'bytes=100-199' });
    expect(part.res.status).toBe(206);
    expect(part.res.headers.get('content-range')).toBe(`bytes 100-199/${original.length}`);
    expect(part.body.equals(original.subarray(100, 200))).toBe(true);
    const tail = await get({ id: flac.id }, { range: 'bytes=-10' });
    expect(tail.body.equals(original.subarray(original.length - 10))).toBe(true);
    const bad = await get({ id: flac.id }, { range: `bytes=${original.length + 10}-` });
    expect(bad.res.status).toBe(416);
    expect(bad.res.headers.get('content-range')).toBe(`bytes */${original.length}`);
    const raw = await get({ id: flac.id, format: 'raw', maxBitRate: 64 });
    expect(raw.body.equals(original)).toBe(true);
  });

  it('answers error 70 for an unknown song and error 0 for an unsupported format', async () => {
    const missing = await get({ id: 'tr-00000000000000', f: 'json' });
    expect(JSON.parse(missing.body.toString())['subsonic-response'].error.code).toBe(70);
    const wma = await get({ id: flac.id, format: 'wma', f: 'json' });
    expect(JSON.parse(wma.body.toString())['subsonic-response'].error.code).toBe(0);
  });
});

describe('transcoding', () => {
  it('transcodes on request, then serves the cached output with a length and ranges', async () => {
    const first = await get({ id: flac.id, format: 'mp3', maxBitRate: 96 });
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get('content-type')).toBe('audio/mpeg');
    expect(first.res.headers.get('accept-ranges')).toBe('none');
    expect(first.res.headers.get('content-length')).toBeNull();
    expect(first.body.length).toBeGreaterThan(10_000);
    expect(first.body[0] === 0xff || first.body.subarray(0, 3).toString('latin1') === 'ID3').toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(cachedFiles()).toHaveLength(1);

    const started = performance.now();
    const second = await get({ id: flac.id, format: 'mp3', maxBitRate: 96 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(second.res.headers.get('content-length')).toBe(String(first.body.length));
    expect(second.res.headers.get('accept-ranges')).toBe('bytes');
    expect(second.body.equals(first.body)).toBe(true);
    const ranged = await get({ id: flac.id, format: 'mp3', maxBitRate: 96 }, { range: 'bytes=1000-1999' });
    expect(ranged.res.status).toBe(206);
    expect(ranged.body.equals(first.body.subarray(1000, 2000))).toBe(true);
  });

  it('a lower maxBitRate alone transcodes to mp3; opus and aac by format; timeOffset shortens the output', async () => {
    const limited = await get({ id: flac.id, maxBitRate: 64 });
    expect(limited.res.headers.get('content-type')).toBe('audio/mpeg');
    const opus = await get({ id: flac.id, format: 'opus' });
    expect(opus.res.headers.get('content-type')).toBe('audio/ogg');
    expect(opus.body.subarray(0, 4).toString('latin1')).toBe('OggS');
    const aac = await get({ id: flac.id, format: 'aac' });
    expect(aac.res.headers.get('content-type')).toBe('audio/aac');
    const whole = await get({ id: long.id, format: 'mp3', maxBitRate: 64 });
    const later = await get({ id: long.id, format: 'mp3', maxBitRate: 64, timeOffset: 60 });
    expect(later.res.headers.get('x-content-duration')).toBe('30.00');
    expect(later.body.length).toBeLessThan(whole.body.length / 2);
    expect(later.body.length).toBeGreaterThan(whole.body.length / 5);
  });

  it('estimateContentLength gives an exact body length for a first transcode', async () => {
    const r = await get({ id: flac.id, format: 'mp3', maxBitRate: 128, estimateContentLength: true });
    // 4 s at 128 kbps.
    expect(r.res.headers.get('content-length')).toBe(String(Math.ceil((4 * 128 * 1000) / 8)));
    expect(r.body.length).toBe(64_000);
  });

  it('caps concurrent transcodes, and kills ffmpeg when the client goes away', async () => {
    // An estimated-length answer can end before its ffmpeg exits: wait for running transcodes to finish.
    for (let i = 0; i < 100 && fs.readdirSync(transcodeDir()).some((f) => f.endsWith('.part')); i++) await new Promise((r) => setTimeout(r, 20));
    server.ctx.settings.update({ transcoding: { maxConcurrent: 1 } });
    try {
      const abort = new AbortController();
      const hold = await fetch(client.url('stream', { id: long.id, format: 'opus', maxBitRate: 320 }), { signal: abort.signal });
      expect(hold.status).toBe(200);
      const refused = await get({ id: long.id, format: 'aac', f: 'json' });
      expect(refused.res.status).toBe(429);
      expect(refused.res.headers.get('retry-after')).toBe('5');
      expect(JSON.parse(refused.body.toString())['subsonic-response'].error.code).toBe(0);
      abort.abort();
      let ok = false;
      for (let i = 0; i < 50 && !ok; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const again = await fetch(client.url('stream', { id: flac.id, format: 'aac', maxBitRate: 100 }));
        ok = again.status === 200;
        await again.arrayBuffer();
      }
      expect(ok).toBe(true);
      // The abandoned output was not cached.
      expect(fs.readdirSync(transcodeDir()).filter((f) => f.endsWith('.part'))).toEqual([]);
    } finally {
      server.ctx.settings.update({ transcoding: { maxConcurrent: 2 } });
    }
  });

  it('a file ffmpeg cannot decode answers a Subsonic error in the asked format, not a dropped connection', async () => {
    for (const extra of [{}, { estimateContentLength: true }] as Record<string, boolean>[]) {
      const r = await get({ id: broken.id, format: 'mp3', f: 'json', ...extra });
      expect(r.res.status).toBe(200);
      expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(r.body.toString())['subsonic-response'].error).toEqual({
        code: 0,
        message: 'Transcoding failed: ffmpeg could not decode this file; request format=raw for the original file',
      });
    }
    const xml = await get({ id: broken.id, format: 'opus' });
    expect(xml.res.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(xml.body.toString()).toContain('<error code="0" message="Transcoding failed: ffmpeg could not decode this file');
    expect(fs.readdirSync(transcodeDir()).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('a timeOffset past the end (even past what ffmpeg parses) is a short stream, not an error', async () => {
    const r = await get({ id: flac.id, format: 'mp3', timeOffset: '9007199254740991' });
    expect(r.res.status).toBe(200);
    expect(r.res.headers.get('content-type')).toBe('audio/mpeg');
    expect(r.body.length).toBeLessThan(1000);
  });

  it('keeps the cache under its size cap, evicting the oldest first', async () => {
    server.ctx.settings.update({ transcoding: { cacheSizeMb: 0 } });
    try {
      await get({ id: flac.id, format: 'mp3', maxBitRate: 40 });
      await new Promise((r) => setTimeout(r, 100));
      expect(cachedFiles()).toEqual([]);
    } finally {
      server.ctx.settings.update({ transcoding: { cacheSizeMb: 2048 } });
    }
  });
});

describe('without ffmpeg', () => {
  it('streams raw bytes and answers a clear error for a transcode', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = '';
    let other: TestServer | undefined;
    try {
      other = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0', FFMPEG_PATH: '/nonexistent/ffmpeg' } });
    } finally {
      process.env.PATH = savedPath;
    }
    try {
      await waitForScans(other);
      const c = new RestClient(other, { username: 'admin', password: 'correct horse battery' });
      const raw = await fetch(c.url('stream', { id: flac.id }));
      expect(Buffer.from(await raw.arrayBuffer()).equals(fs.readFileSync(flac.file))).toBe(true);
      const refused = await fetch(c.url('stream', { id: flac.id, format: 'mp3', f: 'json' }));
      const error = ((await refused.json()) as any)['subsonic-response'].error;
      expect(error).toEqual({
        code: 0,
        message: 'Transcoding is not available: ffmpeg was not found on this server; request format=raw for the original file',
      });
    } finally {
      await other.stop();
    }
  });
});
