import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { scanRuns, type ScanMode } from '../../server/db/libraryScanRuns.js';
import { replayGainStore } from '../../server/db/replayGain.js';
import { REPLAYGAIN_TASK } from '../../server/domain/library/replayGain.js';
import { albumReplayGain, parseGain, parseLoudness, parsePeak, parseR128Gain } from '../../server/library/replayGain.js';
import { scanLibrary } from '../../server/library/scanner.js';
import { makeRgFile } from '../fixtures/replayGain.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient, waitForScans } from '../rest/harness.js';
import { ADMIN } from '../helpers/server.js';
import { waitFor } from '../downloads/helpers.js';
import { placeFile, stagingTargetFor } from '../../server/domain/downloads/filing.js';
import { replayGainForDownload } from '../../server/domain/downloads/replayGain.js';
import { readAudio } from '../../server/domain/downloads/verify.js';
import { readFileTags } from '../../server/library/tags.js';
import { createLogger } from '../../server/log.js';
import type { AppContext } from '../../server/context.js';
import { FFMPEG } from '../fixtures/audio.js';

/** Issue 26 §3: ReplayGain read from every tag format, measured for files without, served in /rest and /api. */

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rg-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ReplayGain values', () => {
  it('parses the text forms taggers write', () => {
    expect(parseGain('-6.50 dB')).toBe(-6.5);
    expect(parseGain('+2.1dB')).toBe(2.1);
    expect(parseGain('-3,25 dB')).toBe(-3.25);
    expect(parseGain('loud')).toBeNull();
    expect(parsePeak('0.988547')).toBe(0.988547);
    expect(parsePeak('-1')).toBeNull();
    // Opus R128: Q7.8 against −23 LUFS; −512 is −2 dB there, +3 dB against ReplayGain 2's −18 LUFS.
    expect(parseR128Gain('-512')).toBe(3);
    expect(parseR128Gain('1.5')).toBeNull();
  });

  it('reads ebur128 summaries and leaves silence without a gain', () => {
    const summary = `[Parsed_ebur128_0 @ 0x1] Summary:\n\n  Integrated loudness:\n    I:         -21.8 LUFS\n    Threshold: -31.8 LUFS\n\n  True peak:\n    Peak:      -6.0 dBFS\n`;
    const l = parseLoudness(summary)!;
    expect(l.integrated).toBe(-21.8);
    expect(l.peak).toBeCloseTo(0.501, 3);
    expect(parseLoudness(summary.replace('-21.8 LUFS', '-70.0 LUFS'))).toBeNull();
    expect(parseLoudness('no summary')).toBeNull();
  });

  it('computes album values as the energy mean over the tracks, weighted by duration, and the highest peak', () => {
    const a = albumReplayGain([
      { trackGain: -6, trackPeak: 0.5, durationMs: 1000 },
      { trackGain: -6, trackPeak: 0.9, durationMs: 3000 },
    ])!;
    expect(a).toEqual({ albumGain: -6, albumPeak: 0.9 });
    // −12 LUFS and −24 LUFS for equal times: the loud one dominates (−14.7 LUFS, gain −3.3 dB).
    expect(albumReplayGain([
      { trackGain: -6, trackPeak: null, durationMs: 1000 },
      { trackGain: 6, trackPeak: null, durationMs: 1000 },
    ])!.albumGain).toBeCloseTo(-3.28, 1);
  });
});

describe('scanner', () => {
  let db: Db;
  let music: string;
  const scan = (mode: ScanMode = 'quick') => {
    const runId = scanRuns.enqueue(db, mode, 'test', Date.now());
    return scanLibrary(db, { runId, mode, roots: [music], imageDir: path.join(dir, 'scan-images') });
  };
  const rgOf = (file: string) => {
    const id = db.prepare('SELECT id FROM library_media_files WHERE path = ?').pluck().get(path.join(music, file)) as number;
    return replayGainStore.valuesOf(db, id)!;
  };

  beforeAll(() => {
    music = path.join(dir, 'scan-music');
    const meta = (title: string) => ({ title, album: 'Formats' });
    makeRgFile(path.join(music, 'id3.mp3'), 'mp3', meta('id3'), {
      REPLAYGAIN_TRACK_GAIN: '-6.50 dB', REPLAYGAIN_TRACK_PEAK: '0.501', REPLAYGAIN_ALBUM_GAIN: '-7.25 dB', REPLAYGAIN_ALBUM_PEAK: '0.8',
    });
    // Lower-case TXXX descriptions (some taggers): the same fields.
    makeRgFile(path.join(music, 'id3-lower.mp3'), 'mp3', meta('id3 lower'), { replaygain_track_gain: '+1.20 dB', replaygain_track_peak: '0.3' });
    makeRgFile(path.join(music, 'vorbis.flac'), 'flac', meta('flac'), { REPLAYGAIN_TRACK_GAIN: '-4.00 dB', REPLAYGAIN_TRACK_PEAK: '0.95', REPLAYGAIN_ALBUM_GAIN: '-5.00 dB', REPLAYGAIN_ALBUM_PEAK: '0.99' });
    makeRgFile(path.join(music, 'vorbis.ogg'), 'ogg', meta('ogg'), { REPLAYGAIN_TRACK_GAIN: '2.5 dB', REPLAYGAIN_TRACK_PEAK: '0.25' });
    makeRgFile(path.join(music, 'r128.opus'), 'opus', meta('opus'), { R128_TRACK_GAIN: '-512', R128_ALBUM_GAIN: '256' });
    makeRgFile(path.join(music, 'freeform.m4a'), 'm4a', meta('m4a'), { replaygain_track_gain: '-3.10 dB', replaygain_track_peak: '0.7', replaygain_album_gain: '-3.50 dB', replaygain_album_peak: '0.75' });
    makeRgFile(path.join(music, 'ape.mp3'), 'mp3-ape', meta('ape'), { REPLAYGAIN_TRACK_GAIN: '-2.00 dB', REPLAYGAIN_TRACK_PEAK: '0.6', REPLAYGAIN_ALBUM_GAIN: '-4.00 dB', REPLAYGAIN_ALBUM_PEAK: '0.7' });
    makeRgFile(path.join(music, 'none.flac'), 'flac', meta('none'));
    db = openDatabase(path.join(dir, 'scan.db'));
  }, 60_000);
  afterAll(() => db.close());

  it('reads ReplayGain from ID3 TXXX, Vorbis comments, Opus R128, MP4 freeform atoms and APEv2 items', async () => {
    const result = await scan();
    expect(result.errors).toEqual([]);
    const pick = (file: string) => {
      const v = rgOf(file);
      return [v.trackGain, v.trackPeak, v.albumGain, v.albumPeak, v.source, v.albumSource];
    };
    expect(pick('id3.mp3')).toEqual([-6.5, 0.501, -7.25, 0.8, 'tags', 'tags']);
    expect(pick('id3-lower.mp3')).toEqual([1.2, 0.3, null, null, 'tags', null]);
    expect(pick('vorbis.flac')).toEqual([-4, 0.95, -5, 0.99, 'tags', 'tags']);
    expect(pick('vorbis.ogg')).toEqual([2.5, 0.25, null, null, 'tags', null]);
    expect(pick('r128.opus')).toEqual([3, null, 6, null, 'tags', 'tags']);
    expect(pick('freeform.m4a')).toEqual([-3.1, 0.7, -3.5, 0.75, 'tags', 'tags']);
    expect(pick('ape.mp3')).toEqual([-2, 0.6, -4, 0.7, 'tags', 'tags']);
    expect(pick('none.flac')).toEqual([null, null, null, null, null, null]);
    expect(replayGainStore.pendingCount(db)).toBe(1);
  });

  it('keeps measured values through a full rescan of the unchanged file, and measures a changed file again', async () => {
    const id = db.prepare('SELECT id, path, fingerprint, album_id AS albumId FROM library_media_files WHERE path = ?').get(path.join(music, 'none.flac')) as any;
    expect(replayGainStore.recordMeasured(db, id, { trackGain: -1.5, trackPeak: 0.4 })).toBe(true);
    await scan('full');
    expect(rgOf('none.flac')).toMatchObject({ trackGain: -1.5, trackPeak: 0.4, source: 'analysis' });
    // Rewritten with other audio: the old measurement no longer holds.
    makeRgFile(path.join(music, 'none.flac'), 'flac', { title: 'none', album: 'Formats' }, {}, { seconds: 2 });
    await scan('full');
    expect(rgOf('none.flac')).toMatchObject({ trackGain: null, source: null });
    // And a file that gains tags takes them.
    makeRgFile(path.join(music, 'none.flac'), 'flac', { title: 'none', album: 'Formats' }, { REPLAYGAIN_TRACK_GAIN: '-9.00 dB' });
    await scan('full');
    expect(rgOf('none.flac')).toMatchObject({ trackGain: -9, source: 'tags' });
  });
});

describe('analysis and serving', () => {
  let server: TestServer;
  let rest: RestClient;
  let music: string;

  beforeAll(async () => {
    music = path.join(dir, 'served');
    // An album without tags: a 1 kHz sine at half and at quarter scale (−9.0 and −15.1 LUFS as mono).
    makeRgFile(path.join(music, 'Quiet', 'Untagged', '01 Loud.flac'), 'flac', { title: 'Loud', album: 'Untagged', artist: 'Quiet', track: 1 }, {}, { seconds: 4, volume: 0.5, frequency: 1000 });
    makeRgFile(path.join(music, 'Quiet', 'Untagged', '02 Soft.flac'), 'flac', { title: 'Soft', album: 'Untagged', artist: 'Quiet', track: 2 }, {}, { seconds: 4, volume: 0.25, frequency: 1000 });
    // Silence has no gain to give: recorded as not measurable, not retried.
    makeRgFile(path.join(music, 'Quiet', 'Untagged', '03 Nothing.flac'), 'flac', { title: 'Nothing', album: 'Untagged', artist: 'Quiet', track: 3 }, {}, { seconds: 2, volume: 0 });
    makeRgFile(path.join(music, 'Tagged', 'Album', '01 Tagged.mp3'), 'mp3', { title: 'Tagged', album: 'Album', artist: 'Tagged', track: 1 }, {
      REPLAYGAIN_TRACK_GAIN: '-6.50 dB', REPLAYGAIN_TRACK_PEAK: '0.501', REPLAYGAIN_ALBUM_GAIN: '-7.25 dB', REPLAYGAIN_ALBUM_PEAK: '0.8',
    });
    server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0', TONEARM_REPLAYGAIN_ANALYSIS: '1' } });
    rest = new RestClient(server, ADMIN);
    await waitForScans(server);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  const fileRow = (title: string) =>
    server.ctx.db
      .prepare(`SELECT f.* FROM library_media_files f JOIN library_tracks t ON t.id = f.track_id WHERE t.title = ?`)
      .get(title) as any;

  it('measures files without tags in the background, with album values over the album, shown as a task', async () => {
    await waitFor(() => fileRow('Soft')?.rg_album_source === 'analysis', 60_000, 'album gain');
    const loud = fileRow('Loud');
    const soft = fileRow('Soft');
    const nothing = fileRow('Nothing');
    expect(loud.rg_source).toBe('analysis');
    expect(loud.rg_track_gain).toBeCloseTo(-18 - -9.03, 0);
    expect(soft.rg_track_gain).toBeCloseTo(-18 - -15.05, 0);
    expect(soft.rg_track_gain - loud.rg_track_gain).toBeCloseTo(6.02, 1);
    expect(loud.rg_track_peak).toBeGreaterThan(0.49);
    expect(loud.rg_track_peak).toBeLessThan(0.52);
    expect(nothing.rg_error).toMatch(/silence/);
    // Album: energy mean of the two measured tracks (−11.1 LUFS), the louder peak; the silent file has none of its own.
    const album = albumReplayGain([
      { trackGain: loud.rg_track_gain, trackPeak: loud.rg_track_peak, durationMs: loud.duration_ms },
      { trackGain: soft.rg_track_gain, trackPeak: soft.rg_track_peak, durationMs: soft.duration_ms },
    ])!;
    expect(album.albumGain).toBeCloseTo(-6.93, 0);
    for (const f of [loud, soft, nothing]) {
      expect(f.rg_album_gain).toBe(album.albumGain);
      expect(f.rg_album_peak).toBe(album.albumPeak);
    }
    // The tagged file keeps what its tags say.
    expect(fileRow('Tagged')).toMatchObject({ rg_track_gain: -6.5, rg_album_gain: -7.25, rg_source: 'tags', rg_album_source: 'tags' });
    // The user's files are not rewritten: the values live in the database.
    expect((await readFileTags(loud.path, music)).replayGain).toBeNull();
    // The task, its last run and its queue on the tasks screen.
    const res = await server.api('/api/settings/tasks', { token: server.admin.token });
    const body = (await res.json()) as any;
    const task = body.tasks.find((t: any) => t.name === REPLAYGAIN_TASK);
    expect(task).toMatchObject({ queue: 'replaygain', detail: 'every file has ReplayGain values' });
    await waitFor(() => (server.ctx.jobsRepo.task(REPLAYGAIN_TASK)?.last_status === 'succeeded' ? true : null), 20_000, 'task run');
    expect(replayGainStore.pendingCount(server.ctx.db)).toBe(0);
    // A second run finds nothing to do (the silent file is not retried).
    expect(await server.ctx.replayGain!.run()).toEqual({ measured: 0, failed: 0, albums: 0, written: 0 });
  }, 90_000);

  it('serves the values in /rest song entries (OpenSubsonic replayGain) and /api track objects', async () => {
    await waitFor(() => fileRow('Soft')?.rg_album_source === 'analysis', 60_000, 'album gain');
    const loud = fileRow('Loud');
    const search = await rest.ok('search3', { query: 'Loud', songCount: 5, albumCount: 0, artistCount: 0 });
    const song = search.searchResult3.song.find((s: any) => s.title === 'Loud');
    expect(song.replayGain).toEqual({ trackGain: loud.rg_track_gain, trackPeak: loud.rg_track_peak, albumGain: loud.rg_album_gain, albumPeak: loud.rg_album_peak });
    const tagged = (await rest.ok('search3', { query: 'Tagged', songCount: 5, albumCount: 0, artistCount: 0 })).searchResult3.song.find((s: any) => s.title === 'Tagged');
    expect(tagged.replayGain).toEqual({ trackGain: -6.5, trackPeak: 0.501, albumGain: -7.25, albumPeak: 0.8 });
    // Silent: only the album values; the field itself is always there.
    const nothing = (await rest.ok('search3', { query: 'Nothing', songCount: 5, albumCount: 0, artistCount: 0 })).searchResult3.song[0];
    expect(nothing.replayGain).toEqual({ albumGain: loud.rg_album_gain, albumPeak: loud.rg_album_peak });
    const xml = await rest.xml('search3', { query: '01 Tagged', songCount: 5, albumCount: 0, artistCount: 0 });
    expect(xml).toMatch(/<replayGain trackGain="-6.5" albumGain="-7.25" trackPeak="0.501" albumPeak="0.8"\s*\/>/);
    const page = await server.api('/api/library/canonical?kind=tracks&pageSize=50', { token: server.admin.token });
    const tracks = ((await page.json()) as any).tracks as any[];
    expect(tracks.find((t) => t.title === 'Loud').replayGain).toEqual(song.replayGain);
    expect(tracks.find((t) => t.title === 'Tagged').replayGain).toEqual({ trackGain: -6.5, trackPeak: 0.501, albumGain: -7.25, albumPeak: 0.8 });
  }, 90_000);

  it('writes the measured values into the files\' tags once the administrator turns on "write ReplayGain tags"', async () => {
    const before = fileRow('Loud');
    const saved = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { library: { writeReplayGainTags: true } } });
    expect(saved.status).toBe(200);
    const outcome = await server.ctx.replayGain!.run();
    // Loud and Soft (the silent file has no track gain to write).
    expect(outcome.written).toBe(2);
    const tags = await readFileTags(before.path, music);
    expect(tags.replayGain).toEqual({ trackGain: before.rg_track_gain, trackPeak: before.rg_track_peak, albumGain: before.rg_album_gain, albumPeak: before.rg_album_peak });
    expect(tags.title).toBe('Loud');
    expect(tags.durationMs).toBe(before.duration_ms);
    // The rescan that follows reads them from the tags.
    await waitFor(() => {
      const row = fileRow('Loud');
      return row.rg_source === 'tags' && row.fingerprint !== before.fingerprint ? row : null;
    }, 30_000, 'the rescan of the written file');
    await waitForScans(server);
    expect(fileRow('Loud')).toMatchObject({ rg_track_gain: before.rg_track_gain, rg_album_gain: before.rg_album_gain, rg_source: 'tags', rg_album_source: 'tags' });
    expect(fs.readdirSync(path.dirname(before.path)).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(replayGainStore.pendingCount(server.ctx.db)).toBe(0);
  }, 90_000);
});

describe('downloads', () => {
  const ctx = (on: boolean) => ({ config: { replayGainAnalysis: on }, log: createLogger('silent') }) as unknown as AppContext;
  const tags = { title: 'Harbor Lights', artist: 'Velvet Harbors', album: 'Tidewater', trackNumber: 1, discNumber: 1, year: null, recordingMbid: null, releaseMbid: null, albumMbid: null, artistMbid: null };

  it('measures a download without ReplayGain before filing and writes the values into its tags (MP3 by node-id3, FLAC in-process)', async () => {
    const root = path.join(dir, 'downloads');
    for (const [format, ffmpeg] of [['mp3', null], ['flac', FFMPEG]] as const) {
      const src = makeRgFile(path.join(dir, 'dl-src', `take.${format}`), format, { title: 'x', album: 'y' }, {}, { seconds: 3, volume: 0.5, frequency: 1000 });
      const held = stagingTargetFor(root, 7, src);
      fs.mkdirSync(path.dirname(held), { recursive: true });
      fs.copyFileSync(src, held);
      const facts = await readAudio(held);
      expect(facts.replayGain).toBeNull();
      const rg = (await replayGainForDownload(ctx(true), held, facts, FFMPEG))!;
      // A 1 kHz sine at half scale is −9 LUFS (mono); the MP3 encoder's padding moves it a little.
      expect(Math.abs(rg.trackGain! - -9)).toBeLessThan(1);
      expect(rg.trackPeak).toBeGreaterThan(0.45);
      const target = path.join(root, 'Velvet Harbors', 'Tidewater', `01 Harbor Lights.${format}`);
      const placed = await placeFile({ held, target, jobId: 7, tags: { ...tags, replayGain: rg }, ffmpeg, expectDurationMs: facts.durationMs });
      expect(placed).toMatchObject({ tagged: true, tagError: null });
      const read = await readFileTags(placed.path, root);
      expect(read.title).toBe('Harbor Lights');
      expect(read.replayGain).toEqual({ trackGain: rg.trackGain, trackPeak: rg.trackPeak, albumGain: null, albumPeak: null });
      // Off, or a file whose own tags carry ReplayGain: nothing measured (its values are kept).
      expect(await replayGainForDownload(ctx(false), held, facts, FFMPEG)).toBeNull();
      expect(await replayGainForDownload(ctx(true), placed.path, await readAudio(placed.path), FFMPEG)).toBeNull();
    }
  }, 60_000);
});
