import type { IPicture, ITag } from 'music-metadata';
import { latin1, notPlain, notSynchsafe, synchsafe, uint32 } from './plainMp3Bytes.js';

/**
 * The direct MP3 reader's ID3v2.3/2.4 frames (see plainMp3.ts): the values music-metadata would give
 * the fields the scanner keeps, by its rules (text decoding, which frames split into several values,
 * how each kept frame maps to a common field), or a refusal.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf16le = new TextDecoder('utf-16le', { fatal: true });

type Encoding = 'latin1' | 'utf16' | 'utf16be' | 'utf8';

function encodingOf(byte: number): Encoding {
  switch (byte) {
    case 0:
      return 'latin1';
    case 1:
      return 'utf16';
    case 2:
      return 'utf16be';
    case 3:
      return 'utf8';
    default:
      return notPlain('text encoding byte out of range');
  }
}

/** Text of `bytes` in `encoding`, BOMs handled as music-metadata does; refuses what it could fail on or decode lossily. */
function decode(bytes: Uint8Array, encoding: Encoding): string {
  // A leading FF FE is dropped whatever the encoding (music-metadata's double-BOM workaround).
  while (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    if (encoding === 'latin1' || encoding === 'utf8') notPlain('byte-order mark in 8-bit text');
    bytes = bytes.subarray(2);
  }
  switch (encoding) {
    case 'latin1':
      return latin1(bytes);
    case 'utf8':
      try {
        return utf8.decode(bytes);
      } catch {
        return notPlain('invalid UTF-8');
      }
    case 'utf16':
    case 'utf16be': {
      if (bytes.length % 2 !== 0) notPlain('odd-length UTF-16');
      const bigEndian = encoding === 'utf16be' || (bytes[0] === 0xfe && bytes[1] === 0xff);
      let le = bytes;
      if (bigEndian) {
        le = new Uint8Array(bytes.length);
        for (let i = 0; i < bytes.length; i += 2) {
          le[i] = bytes[i + 1]!;
          le[i + 1] = bytes[i]!;
        }
      }
      try {
        return utf16le.decode(le);
      } catch {
        return notPlain('invalid UTF-16');
      }
    }
  }
}

/** Where the NUL terminator of a string in `encoding` is (2-byte aligned for UTF-16), or the length. */
function zeroAt(bytes: Uint8Array, encoding: Encoding): number {
  if (encoding === 'utf16' || encoding === 'utf16be') {
    for (let i = 0; i + 1 < bytes.length; i += 2) if (bytes[i] === 0 && bytes[i + 1] === 0) return i;
    return bytes.length;
  }
  const i = bytes.indexOf(0);
  return i < 0 ? bytes.length : i;
}

const terminatorLength = (encoding: Encoding) => (encoding === 'utf16' || encoding === 'utf16be' ? 2 : 1);

/** A NUL-terminated string at the start of `bytes`, and the bytes after its terminator. */
function terminated(bytes: Uint8Array, encoding: Encoding): { text: string; rest: Uint8Array } {
  const zero = zeroAt(bytes, encoding);
  if (zero >= bytes.length) return { text: decode(bytes, encoding), rest: bytes.subarray(bytes.length) };
  return { text: decode(bytes.subarray(0, zero), encoding), rest: bytes.subarray(zero + terminatorLength(encoding)) };
}

function trimNulls(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Frames whose value the scanner keeps; each is read below. */
const KEPT = new Set(['TIT2', 'TPE1', 'TPE2', 'TALB', 'TRCK', 'TPOS', 'TYER', 'TDRC', 'TCON', 'TXXX', 'UFID', 'APIC', 'USLT']);

/**
 * Frames music-metadata decodes in a way that can fail or that lead to a field the scanner keeps
 * by a path not reproduced here (TDRV is mapped to the date, SYLT to lyrics, chapters to format).
 */
const REFUSED = new Set(['TDRV', 'SYLT', 'CHAP', 'CTOC', 'GEOB', 'WXXX', 'WFED', 'POPM', 'PCNT', 'IPLS', 'TIPL', 'TMCL', 'MVIN', 'MVNM', 'PCST', 'GRP1']);

/**
 * TXXX descriptions (upper case) that music-metadata maps to a field the scanner keeps. The four
 * MusicBrainz ones are read here; the others refuse the file.
 */
const TXXX_KEPT = new Map<string, 'musicbrainz_albumid' | 'musicbrainz_artistid' | 'musicbrainz_albumartistid' | 'musicbrainz_releasegroupid' | null>([
  ['MUSICBRAINZ ALBUM ID', 'musicbrainz_albumid'],
  ['MUSICBRAINZ ARTIST ID', 'musicbrainz_artistid'],
  ['MUSICBRAINZ ALBUM ARTIST ID', 'musicbrainz_albumartistid'],
  ['MUSICBRAINZ RELEASE GROUP ID', 'musicbrainz_releasegroupid'],
  ['ARTISTS', null],
  ['DISCOGS_ARTISTS', null],
  ['DISCOGS_ARTIST_NAME', null],
  ['DISCOGS_ALBUM_ARTISTS', null],
  ['DISCOGS_RELEASED', null],
  ['STYLE', null],
]);

/** music-metadata's ID3v2.3 "/"-separated frames, where the splitting happens (TXXX values too). */
const SLASH_SPLIT_V23 = new Set(['TPE1', 'TCOM', 'TEXT', 'TOLY', 'TOPE', 'TSRC', 'TXXX']);

interface Common {
  title?: string;
  artist?: string;
  artists?: string[];
  albumartist?: string;
  albumartists?: string[];
  album?: string;
  track: { no: number | null; of: number | null };
  disk: { no: number | null; of: number | null };
  year?: number;
  date?: string;
  genre?: string[];
  musicbrainz_recordingid?: string;
  musicbrainz_albumid?: string;
  musicbrainz_releasegroupid?: string;
  musicbrainz_artistid?: string[];
  musicbrainz_albumartistid?: string[];
  lyrics?: { language: string; descriptor: string; text: string }[];
  picture?: IPicture[];
}

function normalizeTrack(value: string): { no: number | null; of: number | null } {
  const split = value.split('/');
  return { no: Number.parseInt(split[0]!, 10) || null, of: Number.parseInt(split[1]!, 10) || null };
}

/** The values of a text frame as music-metadata splits them ("A\0B" in 2.4; "A/B" in some 2.3 frames). */
function splitValues(id: string, text: string, major: number): string[] {
  let values = text.split('\0');
  if (major < 4 && values.length === 1 && SLASH_SPLIT_V23.has(id)) values = text.split('/');
  return values.map((v) => trimNulls(v).trim());
}

/** One value or refuse: several values in a kept field go through music-metadata's plural handling. */
function single(values: string[]): string {
  if (values.length !== 1) notPlain('several values in a kept field');
  return values[0]!;
}

/** A genre value as music-metadata's parseGenre reads it, for values without genre references. */
function genresOf(value: string): string[] {
  if (value.includes('(')) notPlain('genre reference');
  if (value === '') return [];
  if (/^\d*$/.test(value)) notPlain('numeric genre');
  return [value];
}

export interface Tag {
  common: Common;
  native: ITag[];
}

/** What a file without an ID3v2 tag gives: music-metadata's empty common tags. */
export function noTag(): Tag {
  return { common: { track: { no: null, of: null }, disk: { no: null, of: null } }, native: [] };
}

export function readFrames(data: Uint8Array, major: number): Tag {
  const { common, native } = noTag();
  const seen = new Set<string>();
  let offset = 0;
  while (offset < data.length) {
    if (offset + 10 > data.length) {
      // music-metadata stops here with a warning; only zero padding may be left.
      if (data.subarray(offset).some((b) => b !== 0)) notPlain('bytes after the last frame');
      break;
    }
    if (data[offset] === 0) {
      // Padding: music-metadata walks through it as empty frames, which adds nothing.
      if (data.subarray(offset).some((b) => b !== 0)) notPlain('non-zero padding');
      break;
    }
    const id = String.fromCharCode(data[offset]!, data[offset + 1]!, data[offset + 2]!, data[offset + 3]!);
    if (!/^[A-Z0-9]{4}$/.test(id)) notPlain('invalid frame id');
    if (major === 4 && notSynchsafe(data, offset + 4)) notPlain('frame size not synchsafe');
    const size = major === 4 ? synchsafe(data, offset + 4) : uint32(data, offset + 4);
    // Format flags (compression, encryption, grouping, unsynchronisation, data length) are not reproduced.
    if (data[offset + 9] !== 0) notPlain('frame format flags');
    const start = offset + 10;
    if (start + size > data.length) notPlain('frame runs past the tag');
    offset = start + size;
    if (size === 0) continue; // music-metadata warns and adds nothing
    const body = data.subarray(start, start + size);
    if (REFUSED.has(id)) notPlain(`frame ${id}`);
    if (id === 'COMM') {
      // A comment maps to nothing the scanner keeps, but music-metadata fails on text it cannot decode.
      commentText(body);
      continue;
    }
    // Every other frame maps to a field the scanner does not keep, and decodes without failing:
    // other text frames (music-metadata catches their decoding errors), PRIV, MCDI and URL frames
    // (Latin-1), and ids music-metadata does not decode at all.
    if (!KEPT.has(id)) continue;
    if (id !== 'TXXX' && id !== 'APIC' && id !== 'USLT') {
      if (seen.has(id)) notPlain(`second ${id} frame`);
      seen.add(id);
    }
    readKeptFrame(id, body, major, common, native);
  }
  return { common, native };
}

/** A COMM or USLT frame's language, descriptor and text. */
function commentText(body: Uint8Array): { language: string; descriptor: string; text: string } {
  if (body.length < 4) notPlain('short comment frame');
  const encoding = encodingOf(body[0]!);
  const descriptor = terminated(body.subarray(4), encoding);
  return { language: latin1(body.subarray(1, 4)), descriptor: descriptor.text, text: terminated(descriptor.rest, encoding).text };
}

function readKeptFrame(id: string, body: Uint8Array, major: number, common: Common, native: ITag[]): void {
  const push = (nativeId: string, value: unknown) => native.push({ id: nativeId, value });
  switch (id) {
    case 'TXXX': {
      const encoding = encodingOf(body[0]!);
      const { text: description, rest } = terminated(body.subarray(1), encoding);
      const values = splitValues('TXXX', trimNulls(decode(rest, encoding)), major);
      for (const v of values) push(`TXXX:${description}`, v);
      const upper = description.toUpperCase();
      if (!TXXX_KEPT.has(upper)) return;
      const field = TXXX_KEPT.get(upper);
      if (!field) notPlain(`TXXX:${description}`);
      if (field === 'musicbrainz_artistid' || field === 'musicbrainz_albumartistid') (common[field] ??= []).push(...values);
      else common[field] = single(values);
      return;
    }
    case 'UFID': {
      const owner = terminated(body, 'latin1');
      push('UFID', { owner_identifier: owner.text, identifier: owner.rest.slice() });
      if (owner.text === 'http://musicbrainz.org') common.musicbrainz_recordingid = decode(owner.rest, 'latin1');
      return;
    }
    case 'APIC': {
      const encoding = encodingOf(body[0]!);
      let rest = body.subarray(1);
      const mimeEnd = zeroAt(rest, 'latin1');
      const format = latin1(rest.subarray(0, mimeEnd)).toLocaleLowerCase();
      rest = rest.subarray(mimeEnd + 1);
      const type = rest[0];
      rest = rest.subarray(1);
      const descriptionEnd = zeroAt(rest, encoding);
      const description = decode(rest.subarray(0, descriptionEnd), encoding);
      // A copy: the bytes may be a read buffer the next file reuses.
      const data = rest.slice(descriptionEnd + terminatorLength(encoding));
      if (data.length === 0) return; // music-metadata drops an empty picture
      if (format === '') notPlain('picture without a MIME type');
      const mime = format === 'jpg' || format === 'image/jpg' ? 'image/jpeg' : format === 'png' ? 'image/png' : format;
      // The scanner keeps only the first picture's bytes; the type is left as its number.
      const picture = { format: mime, type: String(type), description, data };
      push('APIC', picture);
      (common.picture ??= []).push(picture as IPicture);
      return;
    }
    case 'USLT': {
      const lyric = commentText(body);
      push('USLT', lyric);
      (common.lyrics ??= []).push(lyric);
      return;
    }
  }
  // Text frames (music-metadata would drop one it cannot decode, with a warning).
  const text = trimNulls(decode(body.subarray(1), encodingOf(body[0]!)));
  if (text.includes('\0')) notPlain('several values');
  // TIT2, TRCK, TPOS keep the text as it is; TPE1 and TCON always split; the others split in 2.4 only.
  const raw = id === 'TIT2' || id === 'TRCK' || id === 'TPOS';
  const values = raw ? [text] : id === 'TPE1' || id === 'TCON' || major >= 4 ? splitValues(id, text, major) : [text];
  for (const v of values) push(id, v);
  switch (id) {
    case 'TIT2':
      common.title = text;
      return;
    case 'TPE1':
      common.artist = single(values);
      common.artists = [common.artist];
      return;
    case 'TPE2':
      common.albumartist = single(values);
      common.albumartists = [common.albumartist];
      return;
    case 'TALB':
      common.album = single(values);
      return;
    case 'TRCK':
      common.track = normalizeTrack(text);
      return;
    case 'TPOS':
      common.disk = normalizeTrack(text);
      return;
    case 'TYER':
      common.year = Number.parseInt(single(values), 10);
      return;
    case 'TDRC': {
      const date = single(values);
      const year = Number.parseInt(date.substring(0, 4), 10);
      if (!Number.isNaN(year)) common.year = year;
      common.date = date;
      return;
    }
    case 'TCON': {
      const genres = (common.genre ??= []);
      for (const v of values) for (const g of genresOf(v)) if (!genres.includes(g)) genres.push(g);
      if (genres.length === 0) delete common.genre;
      return;
    }
  }
}

/**
 * How the direct reader treats a music-metadata native tag key ("TIT2", "TXXX:<description>",
 * "UFID:<owner>"): read as music-metadata maps it, refused (the file goes to music-metadata), or
 * passed over (it maps to nothing the scanner keeps). Tests hold this against music-metadata's own
 * ID3v2 mapping, so a new mapping in a later version cannot slip past unnoticed.
 */
export function plainMp3Treats(key: string): 'read' | 'refused' | 'passed over' {
  const [id, ...rest] = key.split(':');
  const qualifier = rest.join(':');
  if (REFUSED.has(id!)) return 'refused';
  if (id === 'TXXX') {
    const upper = qualifier.toUpperCase();
    return TXXX_KEPT.has(upper) ? (TXXX_KEPT.get(upper) ? 'read' : 'refused') : 'passed over';
  }
  if (id === 'UFID') return qualifier === 'http://musicbrainz.org' ? 'read' : 'passed over';
  return KEPT.has(id!) ? 'read' : 'passed over';
}
