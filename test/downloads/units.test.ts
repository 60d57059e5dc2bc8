import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import NodeID3 from 'node-id3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFsError, freeName, holdInStaging, placeFile, renameHeld, stagingTargetFor, tempNameOf } from '../../server/domain/downloads/filing.js';
import { finalPath, isInside } from '../../server/domain/downloads/layout.js';
import { MIN_CANDIDATE_SCORE, queryVariants, rankCandidates, scoreCandidate } from '../../server/domain/downloads/scoring.js';
import { describeRemoteFile } from '../../server/domain/downloads/sources/slskd.js';
import { describeRelease, pickAudioFile } from '../../server/domain/downloads/sources/usenet.js';
import { qualityTier, readAudio, verify } from '../../server/domain/downloads/verify.js';
import type { Candidate, TrackQuery } from '../../server/domain/downloads/types.js';
import { readFileTags } from '../../server/library/tags.js';
import { FFMPEG, makeAudioFile } from '../fixtures/audio.js';

let dir: string;
let flac: string;
let mp3: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-units-'));
  flac = makeAudioFile(path.join(dir, 'src', 'take.flac'), 'flac', { title: 'Wrong Name', artist: 'Somebody' }, { seconds: 2 });
  mp3 = makeAudioFile(path.join(dir, 'src', 'take.mp3'), 'mp3', { title: 'Wrong Name', artist: 'Somebody' }, { seconds: 2 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const want: TrackQuery = {
  artistName: 'Velvet Harbors',
  trackName: 'Harbor Lights',
  albumName: 'Tidewater',
  durationMs: 200_000,
  trackNumber: 1,
  year: 2019,
  recordingMbid: null,
  queries: [],
};
const candidate = (over: Partial<Candidate>): Candidate => ({
  source: 'slskd',
  ref: over.ref ?? 'u\u0000f',
  title: 'Music\\Velvet Harbors\\Tidewater\\01 - Harbor Lights.mp3',
  artistName: 'Velvet Harbors',
  trackName: 'Harbor Lights',
  albumName: 'Tidewater',
  durationMs: 200_000,
  format: 'mp3',
  bitrate: 320,
  sizeBytes: 1,
  data: {},
  ...over,
});

describe('scoring', () => {
  it('builds query variants without duplicates or bracketed noise', () => {
    expect(queryVariants({ artistName: 'The Band & Co.', trackName: 'Song (Remastered 2011)', albumName: 'Album' })).toEqual([
      'the band and co song',
      'the band and co album song',
      'song the band and co',
    ]);
  });

  it('ranks by match, duration and the quality profile; drops denied, tried, non-audio and unlike titles', () => {
    const good = candidate({ ref: 'a' });
    const lossless = candidate({ ref: 'b', format: 'flac', bitrate: null });
    const offLength = candidate({ ref: 'c', durationMs: 90_000 });
    const other = candidate({ ref: 'd', title: 'Music\\Velvet Harbors\\Tidewater\\02 - Low Tide.mp3', trackName: 'Low Tide' });
    const video = candidate({ ref: 'e', format: 'mkv' });
    const denied = candidate({ ref: 'f' });
    const ranked = rankCandidates([good, lossless, offLength, other, video, denied], want, { preferLossless: true }, { denied: new Set(['slskd\u0000f']), tried: new Set() });
    expect(ranked.map((r) => r.candidate.ref)).toEqual(['b', 'a', 'c']);
    expect(rankCandidates([good, lossless], want, { preferLossless: false }, { denied: new Set(), tried: new Set(['slskd\u0000b']) }).map((r) => r.candidate.ref)).toEqual(['a']);
    expect(scoreCandidate(other, want, { preferLossless: true }).parts.title).toBe(0);
    expect(scoreCandidate(good, want, { preferLossless: true }).score).toBeGreaterThan(MIN_CANDIDATE_SCORE);
  });

  it('accepts a whole-album Usenet release when artist and album match', () => {
    const release = candidate({ source: 'usenet', ref: 'nzb', title: 'Velvet Harbors - Tidewater (2019) [FLAC]', trackName: null, durationMs: null, format: 'flac', data: { albumRelease: true } });
    expect(rankCandidates([release], want, { preferLossless: true }, { denied: new Set(), tried: new Set() })).toHaveLength(1);
    expect(describeRelease('Velvet Harbors - Tidewater (2019) [MP3 320]')).toEqual({ artist: 'Velvet Harbors', album: 'Tidewater', format: 'mp3', bitrate: 320 });
  });
});

describe('source names', () => {
  it('reads artist, album and title from a sharer path', () => {
    expect(describeRemoteFile('@@music\\Velvet Harbors\\Velvet Harbors - Tidewater (2019)\\01 - Harbor Lights.mp3')).toEqual({ artist: 'Velvet Harbors', album: 'Tidewater', title: 'Harbor Lights', ext: 'mp3' });
    expect(describeRemoteFile('Artist - Title.flac')).toMatchObject({ artist: 'Artist', title: 'Title', ext: 'flac' });
  });

  it('keeps path-traversal names inside staging and the downloads root', () => {
    const root = path.join(dir, 'root');
    for (const evil of ['..\\..\\evil.flac', '../../x.mp3', '/etc/passwd', '..', 'a/../../../b.mp3']) {
      const held = stagingTargetFor(root, 7, evil);
      expect(isInside(path.join(root, '.staging', '7'), held)).toBe(true);
      const filed = finalPath(root, { artistName: '..', albumName: '../..', trackName: evil, trackNumber: 1 }, '../mp3');
      expect(isInside(root, filed)).toBe(true);
    }
  });

  it('cuts long non-ASCII names by bytes, so the file, its folders and its temporary name fit the file system', async () => {
    const cjk = '音楽の時間です夜明け前'.repeat(13).slice(0, 117); // 117 characters, 351 bytes
    const root = path.join(dir, 'lib-cjk');
    const target = finalPath(root, { artistName: cjk, albumName: cjk, trackName: cjk, trackNumber: 12, discNumber: 2 }, 'mp3');
    for (const segment of path.relative(root, target).split(path.sep)) expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(200);
    expect(Buffer.byteLength(path.basename(tempNameOf(freeName(target, null), 123456789)))).toBeLessThan(255);
    const held = stagingTargetFor(root, 123456789, path.join(dir, 'src', `${cjk}.mp3`));
    fs.mkdirSync(path.dirname(held), { recursive: true });
    fs.copyFileSync(mp3, held);
    const placed = await placeFile({ held, target, jobId: 123456789, tags: { title: cjk, artist: cjk, album: cjk, trackNumber: 12, discNumber: 2, year: null, recordingMbid: null, releaseMbid: null, albumMbid: null, artistMbid: null }, ffmpeg: null });
    expect(placed).toMatchObject({ path: target, tagged: true });
    expect(path.basename(target).startsWith(`2-12 ${cjk.slice(0, 60)}`)).toBe(true);
  });

  it('picks the wanted track inside a release folder', () => {
    const rel = path.join(dir, 'release');
    fs.mkdirSync(path.join(rel, 'CD1'), { recursive: true });
    for (const n of ['01 - Harbor Lights.mp3', '02 - Salt and Iron.mp3', 'cover.jpg']) fs.writeFileSync(path.join(rel, 'CD1', n), 'x');
    expect(pickAudioFile(rel, { trackName: 'Salt and Iron', trackNumber: 2 })).toBe(path.join(rel, 'CD1', '02 - Salt and Iron.mp3'));
    expect(pickAudioFile(rel, { trackName: 'Nothing Here', trackNumber: null })).toBeNull();
  });
});

describe('verify and quality', () => {
  it('flags a wrong duration and a poor title/artist match, passes a good file', async () => {
    const facts = await readAudio(flac);
    expect([facts.format, facts.lossless, Math.round(facts.durationMs / 1000)]).toEqual(['flac', true, 2]);
    const rules = { durationToleranceSeconds: 5, minMatchScore: 0.7 };
    expect(verify({ artistName: 'Somebody', trackName: 'Wrong Name', durationMs: 2000 }, facts, flac, rules)).toMatchObject({ ok: true, reason: null });
    const bad = verify({ artistName: 'Velvet Harbors', trackName: 'Harbor Lights', durationMs: 200_000 }, facts, flac, rules);
    expect(bad.ok).toBe(false);
    expect(bad.reason).toMatch(/^duration 0:02 differs from the expected 3:20 by 198 s \(tolerance 5 s\); tags "Somebody – Wrong Name" match/);
  });

  it('classifies quality tiers', () => {
    expect(qualityTier({ format: 'flac', bitrate: null })).toBe('lossless');
    expect(qualityTier({ format: 'mp3', bitrate: 320 })).toBe('high');
    expect(qualityTier({ format: 'mp3', bitrate: 192 })).toBe('medium');
    expect(qualityTier({ format: 'mp3', bitrate: 128 })).toBe('low');
  });
});

describe('filing', () => {
  it('renames a held file for its content without losing it to a kill before the new name is recorded', () => {
    const staging = path.join(dir, 'staging-rename');
    fs.mkdirSync(staging, { recursive: true });
    const held = path.join(staging, 'First Light.mp3');
    fs.writeFileSync(held, 'fLaC and the rest');
    // Killed after the new name exists and before it was recorded: the old name is still there.
    expect(() => renameHeld(held, '.flac', () => { throw new Error('killed'); })).toThrow('killed');
    expect(fs.readdirSync(staging).sort()).toEqual(['First Light.flac', 'First Light.mp3']);
    // The next start does it again from the recorded (old) name.
    const recorded: string[] = [];
    const renamed = renameHeld(held, '.flac', (name) => recorded.push(name));
    expect([renamed, recorded]).toEqual([path.join(staging, 'First Light.flac'), [path.join(staging, 'First Light.flac')]]);
    expect(fs.readdirSync(staging)).toEqual(['First Light.flac']);
    expect(fs.readFileSync(renamed, 'utf8')).toBe('fLaC and the rest');
    expect(() => renameHeld(path.join(staging, 'gone.mp3'), '.flac', () => undefined)).toThrow(/ENOENT/);
  });

  const tags = { title: 'Harbor Lights', artist: 'Velvet Harbors', album: 'Tidewater', trackNumber: 1, discNumber: 1, year: 2019, recordingMbid: 'rec-1', releaseMbid: 'rel-1', albumMbid: 'rg-1', artistMbid: 'art-1' };

  it('tags a FLAC copy with the MusicBrainz ids and never overwrites an unrelated file', async () => {
    const root = path.join(dir, 'lib');
    const held = stagingTargetFor(root, 1, flac);
    fs.mkdirSync(path.dirname(held), { recursive: true });
    fs.copyFileSync(flac, held);
    const wanted = finalPath(root, { artistName: 'Velvet Harbors', albumName: 'Tidewater', trackName: 'Harbor Lights', trackNumber: 1 }, 'flac');
    fs.mkdirSync(path.dirname(wanted), { recursive: true });
    fs.writeFileSync(wanted, 'somebody else’s file');
    const target = freeName(wanted, null);
    expect(target).toBe(wanted.replace('.flac', ' (2).flac'));
    const placed = await placeFile({ held, target, jobId: 1, tags, ffmpeg: FFMPEG, expectDurationMs: 2000 });
    expect(placed).toEqual({ path: target, tagged: true, tagError: null });
    expect(fs.readFileSync(wanted, 'utf8')).toBe('somebody else’s file');
    expect(fs.existsSync(tempNameOf(target, 1))).toBe(false);
    const { parseFile } = await import('music-metadata');
    const read = await parseFile(target);
    expect(read.common).toMatchObject({ title: 'Harbor Lights', artist: 'Velvet Harbors', album: 'Tidewater', musicbrainz_recordingid: 'rec-1', musicbrainz_albumid: 'rel-1', musicbrainz_releasegroupid: 'rg-1' });
    // Filed again after a restart: the same file stays, no second copy.
    expect((await placeFile({ held, target, jobId: 1, tags, ffmpeg: FFMPEG })).path).toBe(target);
    expect(fs.readdirSync(path.dirname(target)).sort()).toEqual(['01 Harbor Lights (2).flac', '01 Harbor Lights.flac']);
  });

  it('tags an MP3 copy without ffmpeg: the recording id in the UFID frame tag readers use, the other frames kept', async () => {
    const root = path.join(dir, 'lib-mp3');
    const held = stagingTargetFor(root, 4, mp3);
    fs.mkdirSync(path.dirname(held), { recursive: true });
    fs.copyFileSync(mp3, held);
    // What the source's copy already carries: a wrong title, a comment and an unrelated TXXX frame.
    NodeID3.write({ title: 'track01', comment: { language: 'eng', text: 'ripped by someone' }, userDefinedText: [{ description: 'SOURCE', value: 'p2p' }] }, held);
    const target = finalPath(root, { artistName: 'Velvet Harbors', albumName: 'Tidewater', trackName: 'Harbor Lights', trackNumber: 1 }, 'mp3');
    const recording = '11111111-1111-4111-8111-111111111111';
    const placed = await placeFile({ held, target, jobId: 4, tags: { ...tags, recordingMbid: recording }, ffmpeg: null, expectDurationMs: 2000 });
    expect(placed).toEqual({ path: target, tagged: true, tagError: null });
    const { parseFile } = await import('music-metadata');
    const read = await parseFile(target);
    expect(read.common).toMatchObject({
      title: 'Harbor Lights', artist: 'Velvet Harbors', albumartist: 'Velvet Harbors', album: 'Tidewater', year: 2019, track: { no: 1 }, disk: { no: 1 },
      musicbrainz_recordingid: recording, musicbrainz_albumid: 'rel-1', musicbrainz_releasegroupid: 'rg-1', musicbrainz_artistid: ['art-1'],
    });
    expect(read.common.comment?.map((c) => (typeof c === 'string' ? c : c.text))).toEqual(['ripped by someone']);
    expect(NodeID3.read(target).userDefinedText).toContainEqual({ description: 'SOURCE', value: 'p2p' });
    // The held file itself is left as it was.
    expect(NodeID3.read(held).title).toBe('track01');
    expect(read.format.duration).toBeGreaterThan(1.5);
    // What the library's own scanner reads from the file.
    expect((await readFileTags(target, path.dirname(target))).recordingMbid).toBe(recording);
  });

  it('tags a FLAC without ffmpeg, and files an Ogg untagged when ffmpeg is missing', async () => {
    const root = path.join(dir, 'lib2');
    const flacTarget = finalPath(root, { artistName: 'A', albumName: 'B', trackName: 'C', trackNumber: 3 }, 'flac');
    expect(await placeFile({ held: flac, target: flacTarget, jobId: 2, tags, ffmpeg: null, expectDurationMs: 2000 })).toEqual({ path: flacTarget, tagged: true, tagError: null });
    const { parseFile } = await import('music-metadata');
    expect((await parseFile(flacTarget)).common).toMatchObject({ title: 'Harbor Lights', artist: 'Velvet Harbors', musicbrainz_recordingid: 'rec-1' });

    const ogg = makeAudioFile(path.join(dir, 'src', 'take.ogg'), 'ogg', { title: 'Wrong Name', artist: 'Somebody' }, { seconds: 2 });
    const oggTarget = finalPath(root, { artistName: 'A', albumName: 'B', trackName: 'D', trackNumber: 4 }, 'ogg');
    const placed = await placeFile({ held: ogg, target: oggTarget, jobId: 3, tags, ffmpeg: null });
    expect(placed.tagged).toBe(false);
    expect(fs.readFileSync(oggTarget).equals(fs.readFileSync(ogg))).toBe(true);
  });

  it('holds a download in staging and names the folder in storage errors', async () => {
    const root = path.join(dir, 'lib3');
    const src = path.join(dir, 'incoming.flac');
    fs.copyFileSync(flac, src);
    const dest = stagingTargetFor(root, 9, src);
    await holdInStaging(src, dest);
    // A download client's file is its own: linked or copied, never moved.
    expect([fs.existsSync(src), fs.readFileSync(dest).equals(fs.readFileSync(flac)), fs.existsSync(`${dest}.part`)]).toEqual([true, true, false]);
    await holdInStaging(src, dest); // after a restart: already held
    expect(fs.existsSync(src)).toBe(true);
    // A file the job wrote into its own staging folder (yt-dlp) is moved.
    const own = path.join(path.dirname(dest), 'ytdlp-audio.flac');
    fs.copyFileSync(flac, own);
    const ownDest = stagingTargetFor(root, 9, path.join(path.dirname(dest), 'take two.flac'));
    await holdInStaging(own, ownDest);
    expect([fs.existsSync(own), fs.existsSync(ownDest)]).toEqual([false, true]);
    // From another file system (a source's folder on another disk): copied, the source's file kept.
    if (fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').dev !== fs.statSync(dir).dev) {
      const elsewhere = fs.mkdtempSync('/dev/shm/tonearm-hold-');
      try {
        const far = path.join(elsewhere, 'far.flac');
        fs.copyFileSync(flac, far);
        const farDest = stagingTargetFor(root, 10, far);
        await holdInStaging(far, farDest);
        expect([fs.existsSync(far), fs.readFileSync(farDest).equals(fs.readFileSync(flac)), fs.existsSync(`${farDest}.part`)]).toEqual([true, true, false]);
      } finally {
        fs.rmSync(elsewhere, { recursive: true, force: true });
      }
    }
    expect(describeFsError(Object.assign(new Error('x'), { code: 'ENOSPC' }), '/music')).toBe('The disk holding /music is full; free some space and retry');
    expect(describeFsError(Object.assign(new Error('x'), { code: 'EACCES' }), '/music')).toBe('The folder /music is not writable by this server (permission denied)');
    expect(describeFsError(Object.assign(new Error('x'), { code: 'EROFS' }), '/music')).toBe('The folder /music is on a read-only file system');
  });
});
