import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFlacWithComments } from '../../server/library/flacTags.js';
import { FFMPEG, makeAudioFile, makeCoverImage } from '../fixtures/audio.js';
import { id3v2, textFrame } from '../fixtures/tagBytes.js';

/**
 * FLAC tags are written in-process (no ffmpeg): the given Vorbis comments replace the same keys, the
 * other comments and metadata blocks (the picture) stay, and the audio is the same to the sample.
 */

let dir: string;
let flac: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-flactags-'));
  const cover = makeCoverImage(path.join(dir, 'cover.png'));
  flac = makeAudioFile(path.join(dir, 'source.flac'), 'flac', { title: 'Old Title', artist: 'Old Artist', album: 'Kept Album', track: 3 }, { seconds: 2, cover });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The decoded audio's MD5, as ffmpeg computes it. */
const audioMd5 = (file: string) => execFileSync(FFMPEG, ['-v', 'error', '-i', file, '-map', '0:a', '-f', 'md5', '-'], { encoding: 'utf8' }).trim();

/** The FLAC's metadata blocks: [type, body]. */
function blocksOf(bytes: Buffer): [number, Buffer][] {
  const out: [number, Buffer][] = [];
  for (let at = 4, last = false; !last; ) {
    last = (bytes[at]! & 0x80) !== 0;
    const length = bytes.readUIntBE(at + 1, 3);
    out.push([bytes[at]! & 0x7f, bytes.subarray(at + 4, at + 4 + length)]);
    at += 4 + length;
  }
  return out;
}

/** The same FLAC with its comment block changed by `change` (removed when it returns null). */
function withCommentBlock(bytes: Buffer, change: (body: Buffer) => Buffer | null): Buffer {
  const blocks = blocksOf(bytes).flatMap(([type, body]): [number, Buffer][] => {
    if (type !== 4) return [[type, body]];
    const changed = change(body);
    return changed ? [[type, changed]] : [];
  });
  const audioAt = blocksOf(bytes).reduce((at, [, body]) => at + 4 + body.length, 4);
  const parts = blocks.map(([type, body], i) => {
    const header = Buffer.alloc(4);
    header[0] = (i === blocks.length - 1 ? 0x80 : 0) | type;
    header.writeUIntBE(body.length, 1, 3);
    return Buffer.concat([header, body]);
  });
  return Buffer.concat([Buffer.from('fLaC'), ...parts, bytes.subarray(audioAt)]);
}

describe('FLAC tags written in-process', () => {
  it('replaces the given keys, keeps the other comments, the picture and the audio', async () => {
    const out = path.join(dir, 'tagged.flac');
    await copyFlacWithComments(flac, out, [['title', 'New Title'], ['artist', 'New Artist'], ['album_artist', 'New Artist'], ['track', '7'], ['MUSICBRAINZ_TRACKID', 'rec-1'], ['REPLAYGAIN_TRACK_GAIN', '-6.50 dB']]);
    const before = await parseFile(flac);
    const after = await parseFile(out);
    expect(after.common).toMatchObject({ title: 'New Title', artist: 'New Artist', albumartist: 'New Artist', album: 'Kept Album', musicbrainz_recordingid: 'rec-1' });
    expect(after.common.track.no).toBe(7);
    expect(after.common.replaygain_track_gain?.dB).toBe(-6.5);
    expect(after.common.picture?.[0]?.data).toEqual(before.common.picture?.[0]?.data);
    expect(after.format.duration).toBe(before.format.duration);
    expect(audioMd5(out)).toBe(audioMd5(flac));
    // One value per key, however often the file is tagged.
    const again = path.join(dir, 'tagged-again.flac');
    await copyFlacWithComments(out, again, [['title', 'Third Title']]);
    const titles = (await parseFile(again)).native.vorbis!.filter((t) => t.id.toUpperCase() === 'TITLE').map((t) => t.value);
    expect(titles).toEqual(['Third Title']);
    // The metadata blocks stay in their order, the new comments in the old one's place.
    expect(blocksOf(fs.readFileSync(again)).map(([type]) => type)).toEqual(blocksOf(fs.readFileSync(flac)).map(([type]) => type));
  });

  it('adds a comment block to a FLAC without one, and replaces one that cannot be read', async () => {
    const bytes = fs.readFileSync(flac);
    for (const [name, change] of [
      ['without', () => null],
      ['broken', (body: Buffer) => Buffer.alloc(body.length, 0xff)],
    ] as const) {
      const input = path.join(dir, `${name}.flac`);
      fs.writeFileSync(input, withCommentBlock(bytes, change));
      const out = path.join(dir, `${name}-tagged.flac`);
      await copyFlacWithComments(input, out, [['title', 'Given']]);
      const read = await parseFile(out);
      expect(read.common.title, name).toBe('Given');
      // music-metadata lists the PICTURE block among the Vorbis tags.
      expect(read.native.vorbis!.map((t) => t.id).filter((id) => id !== 'METADATA_BLOCK_PICTURE')).toEqual(['TITLE']);
      expect(audioMd5(out)).toBe(audioMd5(flac));
    }
    expect(blocksOf(fs.readFileSync(path.join(dir, 'without-tagged.flac')))[1]![0]).toBe(4);
  });

  it('reads past an ID3v2 tag in front of a FLAC and leaves it out of the copy', async () => {
    const input = path.join(dir, 'id3-in-front.flac');
    fs.writeFileSync(input, Buffer.concat([id3v2(3, [textFrame(3, 'TIT2', 'From ID3')]), fs.readFileSync(flac)]));
    const out = path.join(dir, 'id3-in-front-tagged.flac');
    await copyFlacWithComments(input, out, [['title', 'Given']]);
    expect(fs.readFileSync(out).subarray(0, 4).toString('latin1')).toBe('fLaC');
    expect((await parseFile(out)).common).toMatchObject({ title: 'Given', album: 'Kept Album' });
    expect(audioMd5(out)).toBe(audioMd5(flac));
  });

  it('refuses a file that is not FLAC, or whose metadata runs past its end', async () => {
    const mp3ish = path.join(dir, 'not.flac');
    fs.writeFileSync(mp3ish, Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00 and more'));
    await expect(copyFlacWithComments(mp3ish, path.join(dir, 'x.flac'), [['title', 'x']])).rejects.toThrow('not a FLAC file');
    const cut = path.join(dir, 'cut.flac');
    fs.writeFileSync(cut, fs.readFileSync(flac).subarray(0, 200));
    await expect(copyFlacWithComments(cut, path.join(dir, 'y.flac'), [['title', 'x']])).rejects.toThrow('runs past the end');
  });
});
