import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { scanRuns } from '../../server/db/libraryScanRuns.js';
import { scanLibrary } from '../../server/library/scanner.js';
import { makeAudioFile, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { seededBytes } from '../fixtures/tagBytes.js';

/**
 * The rule: a file is indexed when its audio stream has a duration (and, where the container says,
 * audio data); broken tags on such a file are reported and the file is still indexed. A container
 * that cannot be parsed, or holds no audio stream, duration or data, is reported as unreadable and
 * never becomes a 0:00 track.
 */

let dir: string;
let music: string;
let db: Db;

async function scan(mode: 'quick' | 'full' = 'quick') {
  const runId = scanRuns.enqueue(db, mode, 'test', Date.now());
  return scanLibrary(db, { runId, mode, roots: [music], imageDir: path.join(dir, 'images') });
}

const files = () =>
  db.prepare('SELECT f.path, f.duration_ms AS durationMs, f.available, f.tag_error AS tagError FROM library_media_files f ORDER BY f.path').all() as {
    path: string;
    durationMs: number;
    available: number;
    tagError: string | null;
  }[];

/** An ID3v2 header with a version no parser knows, in front of valid MPEG audio. */
function brokenId3(template: Buffer): Buffer {
  const header = Buffer.from([0x49, 0x44, 0x33, 9, 0, 0, 0, 0, 0x01, 0x00]);
  return Buffer.concat([header, Buffer.alloc(128, 0xff), template]);
}

/** A FLAC whose VORBIS_COMMENT block is garbage while STREAMINFO and the frames are intact. */
function brokenVorbisComment(flac: Buffer): Buffer {
  const out = Buffer.from(flac);
  let at = 4;
  for (;;) {
    const last = (out[at]! & 0x80) !== 0;
    const type = out[at]! & 0x7f;
    const length = out.readUIntBE(at + 1, 3);
    if (type === 4) {
      out.fill(0xff, at + 4, at + 4 + Math.min(length, 16));
      return out;
    }
    if (last) throw new Error('no VORBIS_COMMENT block in the fixture');
    at += 4 + length;
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-corrupt-'));
  music = path.join(dir, 'music');
  const album = path.join(music, 'Artist', 'Album');
  const template = makeMp3Template(dir);
  writeTaggedMp3(path.join(album, '01 Good.mp3'), template, { title: 'Good', artist: 'Artist', album: 'Album', track: 1 });
  const flac = makeAudioFile(path.join(dir, 'source.flac'), 'flac', { title: 'Tagged', artist: 'Artist', album: 'Album', track: 2 }, { seconds: 2 });
  const m4a = makeAudioFile(path.join(dir, 'source.m4a'), 'm4a', { title: 'Whole', artist: 'Artist', album: 'Album', track: 3 }, { seconds: 2 });
  fs.writeFileSync(path.join(album, 'random.mp3'), seededBytes(300_000, 'random.mp3'));
  fs.writeFileSync(path.join(album, 'random.flac'), seededBytes(20_000, 'random.flac'));
  fs.writeFileSync(path.join(album, 'empty.mp3'), Buffer.alloc(0));
  fs.writeFileSync(path.join(album, 'header-only.flac'), fs.readFileSync(flac).subarray(0, 300));
  fs.writeFileSync(path.join(album, 'truncated.m4a'), fs.readFileSync(m4a).subarray(0, 200));
  fs.writeFileSync(path.join(album, 'broken-id3.mp3'), brokenId3(template));
  fs.writeFileSync(path.join(album, 'broken-comment.flac'), brokenVorbisComment(fs.readFileSync(flac)));
  db = openDatabase(path.join(dir, 'library.db'));
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('corrupt audio', () => {
  it('reports files without playable audio as unreadable and indexes broken tags on valid audio', async () => {
    const result = await scan();
    const at = (name: string) => path.join('Artist', 'Album', name);
    const reasons = Object.fromEntries(result.errors.map((e) => [e.path, e.reason]));
    expect(Object.keys(reasons).sort()).toEqual(
      ['broken-comment.flac', 'broken-id3.mp3', 'empty.mp3', 'header-only.flac', 'random.flac', 'random.mp3', 'truncated.m4a'].map(at),
    );
    for (const name of ['empty.mp3', 'header-only.flac', 'random.flac', 'random.mp3', 'truncated.m4a']) {
      expect(reasons[at(name)]).toMatch(/^unreadable audio: /);
    }
    expect(reasons[at('header-only.flac')]).toBe('unreadable audio: no audio data (truncated)');
    expect(reasons[at('random.mp3')]).toBe('unreadable audio: no audio duration (corrupt or truncated)');
    expect(reasons[at('broken-id3.mp3')]).toBe('unreadable tags: Unexpected majorVer: 9');
    expect(reasons[at('broken-comment.flac')]).toMatch(/^unreadable tags: /);
    expect(result).toMatchObject({ filesSeen: 8, filesIndexed: 3, filesFailed: 7 });

    const indexed = files().map((f) => ({ ...f, path: path.relative(music, f.path) }));
    expect(indexed.map((f) => f.path)).toEqual([at('01 Good.mp3'), at('broken-comment.flac'), at('broken-id3.mp3')]);
    for (const f of indexed) {
      expect(f.available).toBe(1);
      expect(f.durationMs).toBeGreaterThan(900);
    }
    const count = db.prepare('SELECT COUNT(*) AS n FROM library_tracks WHERE duration_ms = 0').get();
    expect(count).toEqual({ n: 0 });
  });

  it('takes a file off the playable list when it turns corrupt after it was indexed', async () => {
    const good = path.join(music, 'Artist', 'Album', '01 Good.mp3');
    fs.writeFileSync(good, seededBytes(50_000, 'turned corrupt'));
    const result = await scan();
    expect(result.errors).toContainEqual({ path: path.join('Artist', 'Album', '01 Good.mp3'), reason: 'unreadable audio: no audio duration (corrupt or truncated)' });
    expect(files().find((f) => f.path === good)).toMatchObject({ available: 0 });
  });
});
