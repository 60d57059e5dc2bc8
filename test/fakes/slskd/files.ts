import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { id3Tag, makeAudioFile, makeMp3Template, writeTaggedMp3, type FixtureTags } from '../../fixtures/audio.js';

/**
 * The files the fake slskd's peers share: what a search announces of each (size, extension, bit
 * rate or depth) and the real audio a finished download writes. By the shared name: `.flac` and
 * `.ogg` are real FLAC and Ogg Vorbis files with the file's tags (made with ffmpeg); anything else is
 * an MP3 (the shared frames with the file's ID3 tag); `audioFile` is sent as it is.
 */

export interface FakeSlskdFile {
  /** The sharer's path, Windows-style: `Music\\Artist\\Album\\01 - Title.mp3` (or `.flac`, `.ogg`). */
  filename: string;
  /** kbit/s, for an mp3 (slskd announces none for lossless files). */
  bitRate: number;
  /** Seconds. */
  length: number;
  tags: FixtureTags;
  /**
   * A real audio file this peer sends as it is (its own tags and audio, e.g. a distinct melody for
   * fingerprint tests) instead of the shared template; `length` still says what the peer announces.
   */
  audioFile?: string;
}

const templates = new Map<number, Buffer>();
/** The audio frames every written MP3 carries, made once per length with ffmpeg. */
export function mp3Template(seconds: number): Buffer {
  let template = templates.get(seconds);
  if (!template) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slskd-fake-template-'));
    template = makeMp3Template(dir, seconds);
    fs.rmSync(dir, { recursive: true, force: true });
    templates.set(seconds, template);
  }
  return template;
}

/** The format of a shared file ffmpeg makes (FLAC, Ogg Vorbis), by its name; null for the MP3 template. */
function madeFormat(file: FakeSlskdFile): 'flac' | 'ogg' | null {
  const ext = path.extname(file.filename).toLowerCase();
  return ext === '.flac' ? 'flac' : ext === '.ogg' ? 'ogg' : null;
}

const made = new Map<string, Buffer>();
/** A real FLAC or Ogg file with the shared file's tags, made with ffmpeg once per name and length. */
function madeFileOf(file: FakeSlskdFile, format: 'flac' | 'ogg'): Buffer {
  const key = `${file.filename}\u0000${file.length}`;
  let bytes = made.get(key);
  if (!bytes) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `slskd-fake-${format}-`));
    bytes = fs.readFileSync(makeAudioFile(path.join(dir, `file.${format}`), format, file.tags, { seconds: file.length }));
    fs.rmSync(dir, { recursive: true, force: true });
    made.set(key, bytes);
  }
  return bytes;
}

/** What a search response says of a shared file besides its name and length. */
export function announced(file: FakeSlskdFile, templateSeconds: number) {
  const format = madeFormat(file);
  return {
    size: sharedSize(file, templateSeconds),
    extension: format ?? 'mp3',
    ...(format === 'flac' ? { bitDepth: 16, sampleRate: 44100 } : { bitRate: file.bitRate }),
  };
}

/** The bytes a download of the file delivers. */
export function sharedSize(file: FakeSlskdFile, templateSeconds: number): number {
  if (file.audioFile) return fs.statSync(file.audioFile).size;
  const format = madeFormat(file);
  if (format) return madeFileOf(file, format).length;
  return id3Tag(file.tags).length + mp3Template(templateSeconds).length;
}

/** Writes the file a finished download delivers at `dest`. */
export function writeShared(dest: string, file: FakeSlskdFile, templateSeconds: number): void {
  const format = madeFormat(file);
  if (!file.audioFile && !format) return writeTaggedMp3(dest, mp3Template(templateSeconds), file.tags);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  if (file.audioFile) fs.copyFileSync(file.audioFile, dest);
  else fs.writeFileSync(dest, madeFileOf(file, format!));
}
