import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { scanRuns } from '../../server/db/libraryScanRuns.js';
import { readAudio } from '../../server/domain/downloads/verify.js';
import { audioKindOfBytes, misnamedAudio } from '../../server/library/audioContent.js';
import { scanLibrary } from '../../server/library/scanner.js';
import { ffmpeg, makeAudioFile, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { seededBytes } from '../fixtures/tagBytes.js';

/**
 * The parsers are chosen by a file's name, so a file named for another format cannot be read. The
 * scan says which format the file holds and what to rename it to, and indexes nothing for it.
 */

let dir: string;
let music: string;
let db: Db;
const album = () => path.join(music, 'Artist', 'Album');
const sine = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'];

/** Each misnamed file: its name, and the format and extension the scan should name. */
const MISNAMED: [string, string, string][] = [
  ['flac-named.mp3', 'FLAC', '.flac'],
  ['m4a-named.mp3', 'MP4 (AAC or ALAC)', '.m4a'],
  ['aiff-named.mp3', 'AIFF', '.aiff'],
  ['tagged-mp3-named.flac', 'MP3', '.mp3'],
  ['wav-named.flac', 'WAV', '.wav'],
  ['opus-named.flac', 'Opus', '.opus'],
  ['ogg-named.m4a', 'Ogg', '.ogg'],
  ['adts-named.m4a', 'AAC', '.aac'],
];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-misnamed-'));
  music = path.join(dir, 'music');
  fs.mkdirSync(album(), { recursive: true });
  const tags = { title: 'Song', artist: 'Artist', album: 'Album', track: 1 };
  const made = (name: string) => path.join(dir, name);
  const copy = (from: string, name: string) => fs.copyFileSync(from, path.join(album(), name));
  copy(makeAudioFile(made('a.flac'), 'flac', tags), 'flac-named.mp3');
  copy(makeAudioFile(made('a.m4a'), 'm4a', tags), 'm4a-named.mp3');
  copy(makeAudioFile(made('a.ogg'), 'ogg', tags), 'ogg-named.m4a');
  writeTaggedMp3(path.join(album(), 'tagged-mp3-named.flac'), makeMp3Template(dir), tags);
  for (const [out, args] of [
    ['a.aiff', []],
    ['a.wav', []],
    ['a.opus', ['-c:a', 'libopus']],
    ['a.aac', ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts']],
  ] as [string, string[]][]) ffmpeg([...sine, ...args, made(out)]);
  copy(made('a.aiff'), 'aiff-named.mp3');
  copy(made('a.wav'), 'wav-named.flac');
  copy(made('a.opus'), 'opus-named.flac');
  copy(made('a.aac'), 'adts-named.m4a');
  // Rightly named files: one good, one that is noise (no format to name).
  copy(makeAudioFile(made('b.flac'), 'flac', { ...tags, title: 'Right', track: 2 }), 'right.flac');
  fs.writeFileSync(path.join(album(), 'noise.flac'), seededBytes(20_000, 'noise.flac'));
  db = openDatabase(path.join(dir, 'library.db'));
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('misnamed audio', () => {
  it('names the format a misnamed file holds and the extension to give it, and indexes only the rightly named file', async () => {
    const runId = scanRuns.enqueue(db, 'quick', 'test', Date.now());
    const result = await scanLibrary(db, { runId, mode: 'quick', roots: [music], imageDir: path.join(dir, 'images') });
    const at = (name: string) => path.join('Artist', 'Album', name);
    const reasons = Object.fromEntries(result.errors.map((e) => [e.path, e.reason]));
    for (const [name, format, extension] of MISNAMED) {
      const ext = path.extname(name);
      expect(reasons[at(name)], name).toBe(`unreadable audio: the file holds ${format} audio, but its name ends in ${ext} (rename it to ${extension})`);
    }
    expect(reasons[at('noise.flac')]).toMatch(/^unreadable audio: /);
    expect(reasons[at('noise.flac')]).not.toMatch(/the file holds/);
    expect(result).toMatchObject({ filesSeen: MISNAMED.length + 2, filesIndexed: 1, filesFailed: MISNAMED.length + 1 });
    const titles = db.prepare('SELECT title FROM library_tracks').pluck().all();
    expect(titles).toEqual(['Right']);
  });

  it('the download check says what a misnamed file holds (the pipeline then renames it: pipeline.test.ts)', async () => {
    await expect(readAudio(path.join(album(), 'flac-named.mp3'))).rejects.toThrow(/^not a readable audio file: the file holds FLAC audio, but its name ends in \.mp3$/);
    await expect(readAudio(path.join(album(), 'noise.flac'))).rejects.toThrow(/^not a readable audio file: unreadable tags: /);
    expect((await readAudio(path.join(album(), 'right.flac'))).format).toBe('flac');
  });

  it('says nothing of a file whose content is of the type its name says, or of no known type', () => {
    expect(misnamedAudio(path.join(album(), 'flac-named.mp3'))).toEqual({ said: 'the file holds FLAC audio, but its name ends in .mp3', extension: '.flac' });
    expect(misnamedAudio(path.join(album(), 'right.flac'))).toBeNull();
    expect(misnamedAudio(path.join(album(), 'noise.flac'))).toBeNull();
    expect(misnamedAudio(path.join(dir, 'a.opus'))).toBeNull();
    // Opus and Vorbis both stream as audio/ogg: an Opus file named .ogg is named rightly.
    const opusAsOgg = path.join(dir, 'opus.ogg');
    fs.copyFileSync(path.join(dir, 'a.opus'), opusAsOgg);
    expect(misnamedAudio(opusAsOgg)).toBeNull();
    expect(misnamedAudio(path.join(dir, 'does-not-exist.mp3'))).toBeNull();
  });

  it('knows WMA and DSF by their headers, and takes one stray MPEG sync for nothing', () => {
    const asf = Buffer.from('3026b2758e66cf11a6d900aa0062ce6c', 'hex');
    expect(audioKindOfBytes(Buffer.concat([asf, Buffer.alloc(64)]))).toEqual({ name: 'WMA', extension: '.wma' });
    expect(audioKindOfBytes(Buffer.concat([Buffer.from('DSD '), Buffer.alloc(64)]))).toEqual({ name: 'DSF', extension: '.dsf' });
    // A valid MPEG-1 Layer III header (128 kbit/s, 44.1 kHz) with no second frame where it should be.
    const lone = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x00]), Buffer.alloc(2000)]);
    expect(audioKindOfBytes(lone)).toBeNull();
    const two = Buffer.from(lone);
    two.set([0xff, 0xfb, 0x90, 0x00], 417);
    expect(audioKindOfBytes(two)).toEqual({ name: 'MP3', extension: '.mp3' });
  });
});
