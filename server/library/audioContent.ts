import fs from 'node:fs';
import path from 'node:path';
import { AUDIO_TYPES } from './audioFormats.js';
import { id3v2End } from './plainMp3Bytes.js';
import { mpegFramesAt } from './plainMp3Stream.js';

/**
 * What a file's content says it is, whatever its name. The parsers are chosen by a file's name, so a
 * FLAC file named `.mp3` reads as a broken MP3. The scan then says which format the file holds and
 * what to rename it to, instead of "corrupt or truncated", and a download check says what a
 * rejected download held.
 */

/** An audio format by its content: a name for people and the extension it is indexed under. */
export interface AudioKind {
  name: string;
  extension: string;
}

/** How many bytes after any ID3v2 tag are looked at: two MPEG frames of any bitrate fit. */
const LOOK = 4096;

/** The audio format the first bytes of a file (after any ID3v2 tag) announce, or null when they announce none. */
export function audioKindOfBytes(b: Uint8Array): AudioKind | null {
  const at = (offset: number, text: string) => spellsAt(b, offset, text);
  if (at(0, 'fLaC')) return { name: 'FLAC', extension: '.flac' };
  if (at(0, 'OggS')) return at(28, 'OpusHead') ? { name: 'Opus', extension: '.opus' } : { name: 'Ogg', extension: '.ogg' };
  if (at(0, 'RIFF') && at(8, 'WAVE')) return { name: 'WAV', extension: '.wav' };
  if (at(0, 'FORM') && (at(8, 'AIFF') || at(8, 'AIFC'))) return { name: 'AIFF', extension: '.aiff' };
  if (at(4, 'ftyp')) return { name: 'MP4 (AAC or ALAC)', extension: '.m4a' };
  if (at(0, 'DSD ')) return { name: 'DSF', extension: '.dsf' };
  if (b.length >= 16 && ASF_HEADER.every((v, i) => b[i] === v)) return { name: 'WMA', extension: '.wma' };
  if (mpegFramesAt(b, 0)) return { name: 'MP3', extension: '.mp3' };
  if (adtsFramesAt(b, 0)) return { name: 'AAC', extension: '.aac' };
  return null;
}

/** Whether `b` holds the ASCII `text` at `offset`, byte for byte. */
function spellsAt(b: Uint8Array, offset: number, text: string): boolean {
  if (b.length < offset + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[offset + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** The ASF header object's GUID (75B22630-668E-11CF-A6D9-00AA0062CE6C) as it lies in the file. */
const ASF_HEADER = [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9, 0x00, 0xaa, 0x00, 0x62, 0xce, 0x6c];

/** Two ADTS (raw AAC) frames in a row from `at`: sync 0xFFF, layer 0, and the 13-bit frame length. */
function adtsFramesAt(b: Uint8Array, at: number): boolean {
  const header = (i: number) => i + 7 <= b.length && b[i] === 0xff && (b[i + 1]! & 0xf6) === 0xf0;
  if (!header(at)) return false;
  const length = ((b[at + 3]! & 0x03) << 11) | (b[at + 4]! << 3) | (b[at + 5]! >> 5);
  return length >= 7 && header(at + length);
}

/**
 * Why a file its parser could not read looks misnamed: "the file holds FLAC audio, but its name ends
 * in .mp3", with the extension its content calls for; or null when its content is of the type its
 * name says, or of no type known here, or the file cannot be read.
 */
export function misnamedAudio(file: string): { said: string; extension: string } | null {
  const extension = path.extname(file).toLowerCase();
  let kind: AudioKind | null;
  try {
    kind = audioKindOfBytes(bytesAfterId3v2(file));
  } catch {
    return null;
  }
  if (!kind || AUDIO_TYPES[kind.extension] === AUDIO_TYPES[extension]) return null;
  return { said: `the file holds ${kind.name} audio, but its name ends in ${extension || 'no extension'}`, extension: kind.extension };
}

/** The first bytes of a file after an ID3v2 tag in front (and the zero padding some writers leave after it). */
function bytesAfterId3v2(file: string): Uint8Array {
  const fd = fs.openSync(file, 'r');
  try {
    const read = (offset: number, length: number) => {
      const buffer = Buffer.alloc(length);
      return buffer.subarray(0, fs.readSync(fd, buffer, 0, length, offset));
    };
    const head = read(0, LOOK);
    const end = id3v2End(head);
    if (end === null) return head;
    const after = read(end, LOOK);
    const start = after.findIndex((v) => v !== 0);
    return start > 0 ? after.subarray(start) : after;
  } finally {
    fs.closeSync(fd);
  }
}
