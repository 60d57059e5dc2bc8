import type { IAudioMetadata, IFormat, IPicture, ITag } from 'music-metadata';

/**
 * A direct reader for the commonest file a library holds: an MP3 with one ID3v2.3/2.4 tag in front,
 * MPEG audio frames, and nothing at the end. It answers exactly what music-metadata (11.x) answers
 * for such a file in the fields the scanner keeps (tags.ts `tagsOf`, replayGain.ts), at a small
 * fraction of its cost: music-metadata reads through a chain of asynchronous token reads, builds
 * every frame's value and maps each tag through its generic mapper, which made tag parsing the
 * largest share of a first scan (issue 25).
 *
 * "Exactly" is the rule. Each step below follows what music-metadata does with the same bytes,
 * including its quirks (which frames' values are split on "/" in ID3v2.3, that the year comes from
 * whichever of TYER and TDRC comes last, how the MPEG sync skips through a LAME header, how the CBR
 * length is counted). Anything outside what is reproduced here returns null, and the file is parsed
 * by music-metadata as before: other tag versions, unsynchronisation, extended headers, frame flags,
 * multiple values in a field the scanner keeps, numeric genre references, a second tag, ID3v1 or APE
 * tags at the end, a stream that needs re-syncing, a frame that music-metadata could fail on.
 * test/library/plain-mp3.test.ts compares both readers on a corpus of such files and of files just
 * outside the line.
 */

/** Bytes of the file: `length` bytes at `offset`, or fewer at the end of the file. */
export type ReadBytes = (offset: number, length: number) => Uint8Array;

/** Why the direct reader stepped aside (tests and profiling only; the caller just parses the other way). */
class NotPlain extends Error {}

function notPlain(why: string): never {
  throw new NotPlain(why);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf16le = new TextDecoder('utf-16le', { fatal: true });

// ---------------------------------------------------------------------------------------------
// ID3v2 text

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

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
  return s;
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

// ---------------------------------------------------------------------------------------------
// ID3v2 frames

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

interface Tag {
  common: Common;
  native: ITag[];
}

function readFrames(data: Uint8Array, major: number): Tag {
  const common: Common = { track: { no: null, of: null }, disk: { no: null, of: null } };
  const native: ITag[] = [];
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
    const s0 = data[offset + 4]!, s1 = data[offset + 5]!, s2 = data[offset + 6]!, s3 = data[offset + 7]!;
    let size: number;
    if (major === 4) {
      if ((s0 | s1 | s2 | s3) & 0x80) notPlain('frame size not synchsafe');
      size = (s0 << 21) | (s1 << 14) | (s2 << 7) | s3;
    } else {
      size = ((s0 << 24) | (s1 << 16) | (s2 << 8) | s3) >>> 0;
    }
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

// ---------------------------------------------------------------------------------------------
// MPEG audio frames

const VERSIONS = [2.5, null, 2, 1] as const;
const LAYERS = [0, 3, 2, 1] as const;
/** kbit/s by bitrate index, for [MPEG-1 L1, L2, L3, MPEG-2/2.5 L1, L2, L3]. */
const BITRATES: number[][] = [
  [], [32, 32, 32, 32, 8, 8], [64, 48, 40, 48, 16, 16], [96, 56, 48, 56, 24, 24], [128, 64, 56, 64, 32, 32],
  [160, 80, 64, 80, 40, 40], [192, 96, 80, 96, 48, 48], [224, 112, 96, 112, 56, 56], [256, 128, 112, 128, 64, 64],
  [288, 160, 128, 144, 80, 80], [320, 192, 160, 160, 96, 96], [352, 224, 192, 176, 112, 112], [384, 256, 224, 192, 128, 128],
  [416, 320, 256, 224, 144, 144], [448, 384, 320, 256, 160, 160],
];
const SAMPLE_RATES: Record<number, number[]> = { 1: [44100, 48000, 32000], 2: [22050, 24000, 16000], 2.5: [11025, 12000, 8000] };

interface FrameHeader {
  version: 1 | 2 | 2.5;
  layer: 1 | 2 | 3;
  bitrate: number;
  sampleRate: number;
  padding: boolean;
  mono: boolean;
  crc: boolean;
}

/** An MPEG audio frame header, or null where music-metadata's header parse would throw. ADTS refuses. */
function frameHeader(b1: number, b2: number, b3: number): FrameHeader | null {
  const versionIndex = (b1 >> 3) & 3;
  const layer = LAYERS[(b1 >> 1) & 3]!;
  if (versionIndex > 1 && layer === 0) notPlain('ADTS stream');
  const version = VERSIONS[versionIndex]!;
  const bitrateIndex = b2 >> 4;
  if (version === null || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15) return null;
  const kbps = BITRATES[bitrateIndex]![(version === 1 ? 0 : 3) + layer - 1]!;
  const rateIndex = (b2 >> 2) & 3;
  if (rateIndex === 3) return null;
  return {
    version, layer, bitrate: kbps * 1000, sampleRate: SAMPLE_RATES[version]![rateIndex]!,
    padding: (b2 & 2) !== 0, mono: b3 >> 6 === 3, crc: (b1 & 1) === 0,
  };
}

const samplesPerFrame = (h: FrameHeader) => (h.layer === 1 ? 384 : h.layer === 2 ? 1152 : h.version === 1 ? 1152 : 576);

function sideInfoLength(h: FrameHeader): number {
  if (h.layer !== 3) return 2;
  if (h.mono) return h.version === 1 ? 17 : 9;
  return h.version === 1 ? 32 : 17;
}

/** The format fields music-metadata's MPEG parser sets (mutable while the stream is walked). */
interface StreamFormat {
  lossless: boolean;
  hasAudio: boolean;
  hasVideo: boolean;
  container?: string;
  codec?: string;
  sampleRate?: number;
  numberOfChannels?: number;
  bitrate?: number;
  duration?: number;
  codecProfile?: string;
}

/**
 * The MPEG stream's format from `start` (after the ID3v2 tag), walking the first four frames as
 * music-metadata does when it is not asked for an exact duration.
 */
function readStream(bytes: ReadBytes, start: number, size: number): StreamFormat {
  const format: StreamFormat = { lossless: false, hasAudio: true, hasVideo: false };
  let position = start;
  let frameCount = 0;
  let syncFrameCount = -1;
  let frameSize = 0;
  let spf: number | null = null;
  let mpegOffset: number | null = null;
  let header: FrameHeader | null = null;
  const bitrates: number[] = [];
  const take = (length: number): Uint8Array => {
    if (position + length > size) notPlain('stream ends early');
    const b = bytes(position, length);
    if (b.length < length) notPlain('stream ends early');
    position += length;
    return b;
  };
  const skip = (length: number) => {
    if (position + length > size) notPlain('stream ends early');
    position += length;
  };

  for (;;) {
    // Sync: the first FF followed by a byte with its top three bits set, in a 1,024-byte look-ahead.
    const peek = bytes(position, 1024);
    if (peek.length < 1024) notPlain('stream ends early');
    let at = -1;
    for (let i = peek.indexOf(0xff); i >= 0 && i < 1023; i = peek.indexOf(0xff, i + 1)) {
      if ((peek[i + 1]! & 0xe0) === 0xe0) {
        at = i;
        break;
      }
    }
    if (at < 0) notPlain('no frame sync in the look-ahead');
    position += at + 1;
    if (syncFrameCount === frameCount) {
      frameCount = 0;
      frameSize = 0;
    }
    syncFrameCount = frameCount;
    if (frameCount === 0) mpegOffset = position - 1;
    const hb = bytes(position, 3);
    if (hb.length < 3) notPlain('stream ends early');
    const h = frameHeader(hb[0]!, hb[1]!, hb[2]!);
    if (!h) {
      position += 1;
      continue;
    }
    position += 3;
    format.container = 'MPEG';
    format.codec = `MPEG ${h.version} Layer ${h.layer}`;
    format.sampleRate = h.sampleRate;
    frameCount++;
    format.numberOfChannels = h.mono ? 1 : 2;
    format.bitrate = h.bitrate;
    const slot = h.layer === 1 ? 4 : 1;
    const samples = samplesPerFrame(h);
    frameSize = Math.floor((samples / 8) * h.bitrate / h.sampleRate + (h.padding ? slot : 0));
    header = h;
    bitrates.push(h.bitrate);
    if (frameCount === 4) {
      if (bitrates.every((b) => b === bitrates[0])) {
        spf = samples;
        format.codecProfile = 'CBR';
      }
      break; // size known / duration known / not asked for: music-metadata stops at the fourth frame
    }
    let offset = 4;
    if (frameCount !== 1 && h.crc) {
      skip(2);
      offset += 2;
    }
    // Side information, then the four bytes where a Xing/Info header would be (every frame).
    const side = sideInfoLength(h);
    skip(side);
    offset += side;
    const tag = ascii(take(4), 4);
    offset += 4;
    if (tag === 'Info' || tag === 'Xing') {
      if (tag === 'Info') format.codecProfile = 'CBR';
      const from = position;
      const flags = take(4)[3]!;
      const u32 = () => {
        const b = take(4);
        return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
      };
      const numFrames = flags & 1 ? u32() : null;
      const streamSize = flags & 2 ? u32() : null;
      if (flags & 4) take(100);
      const vbrScale = flags & 8 ? u32() : null;
      const lame = bytes(position, 4);
      if (lame.length < 4) notPlain('stream ends early');
      if (ascii(lame, 4) === 'LAME') {
        skip(4);
        const version = ascii(take(5), 5);
        const match = version.match(/\d+.\d+/g);
        if (match !== null) {
          const [major, minor] = match[0]!.split('.').map((n) => Number.parseInt(n, 10));
          if (major! >= 3 && minor! >= 90) {
            const ext = take(27);
            format.duration = (((ext[20]! << 24) | (ext[21]! << 16) | (ext[22]! << 8) | ext[23]!) >>> 0) / 1000;
          }
        }
      }
      offset += position - from;
      if (streamSize && numFrames !== null) {
        format.duration = (numFrames * samples) / h.sampleRate;
      } else {
        if (frameSize - offset < 0) notPlain('Xing header longer than its frame');
        skip(frameSize - offset);
      }
      if (tag === 'Xing' && vbrScale !== null) format.codecProfile = `V${Math.floor((100 - vbrScale) / 10)}`;
      continue;
    }
    if (tag === 'LAME') notPlain('LAME tag without a Xing header');
    if (frameSize - offset >= 0) skip(frameSize - offset);
  }

  // music-metadata's finalize (no ID3v1 tag here).
  if (mpegOffset !== null && header) {
    const mpegSize = size - mpegOffset;
    if (format.duration && format.codecProfile?.[0] === 'V') format.bitrate = (mpegSize * 8) / format.duration;
    if (format.codecProfile === 'CBR' && spf !== null) {
      const numberOfSamples = Math.round(mpegSize / frameSize) * spf;
      if (format.sampleRate && !format.duration) format.duration = numberOfSamples / format.sampleRate;
    }
  }
  return format;
}

// ---------------------------------------------------------------------------------------------

/** The first `length` bytes as music-metadata's 7-bit ASCII decoding reads them. */
function ascii(b: Uint8Array, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(b[i]! & 0x7f);
  return s;
}

/** Whether `b` spells `text`, with or without the top bit of each byte (music-metadata reads some ids as 7-bit ASCII). */
function spells(b: Uint8Array, text: string): boolean {
  if (b.length < text.length) return false;
  for (let i = 0; i < text.length; i++) if ((b[i]! & 0x7f) !== text.charCodeAt(i)) return false;
  return true;
}

/** An ID3v1 or APE tag at the end (read by music-metadata after the stream; not reproduced here). */
function tailHasTags(bytes: ReadBytes, size: number): boolean {
  return spells(bytes(size - 128, 3), 'TAG') || spells(bytes(size - 32, 8), 'APETAGEX');
}

/**
 * music-metadata's result for a plain MP3 (see above) in the fields the scanner reads, or null when
 * the file is not one: then parse it with music-metadata.
 */
export function readPlainMp3(bytes: ReadBytes, size: number): IAudioMetadata | null {
  try {
    return read(bytes, size);
  } catch (err) {
    if (err instanceof NotPlain) return null;
    throw err;
  }
}

/** Why readPlainMp3 steps aside for a file, or null when it reads it (tests). */
export function plainMp3Refusal(bytes: ReadBytes, size: number): string | null {
  try {
    read(bytes, size);
    return null;
  } catch (err) {
    if (err instanceof NotPlain) return err.message;
    throw err;
  }
}

function read(bytes: ReadBytes, size: number): IAudioMetadata {
  if (size < 2048) notPlain('too small');
  if (tailHasTags(bytes, size)) notPlain('tag at the end');
  const head = bytes(0, 10);
  let tag: Tag = { common: { track: { no: null, of: null }, disk: { no: null, of: null } }, native: [] };
  let audioStart = 0;
  if (spells(head, 'ID3')) {
    if (head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) notPlain('7-bit ID3 identifier');
    const major = head[3]!;
    if (major !== 3 && major !== 4) notPlain(`ID3v2.${major}`);
    if (head[5] !== 0) notPlain('tag header flags');
    if ((head[6]! | head[7]! | head[8]! | head[9]!) & 0x80) notPlain('tag size not synchsafe');
    const tagSize = (head[6]! << 21) | (head[7]! << 14) | (head[8]! << 7) | head[9]!;
    if (10 + tagSize > size) notPlain('tag larger than the file');
    const data = bytes(10, tagSize);
    if (data.length < tagSize) notPlain('tag larger than the file');
    tag = readFrames(data, major);
    audioStart = 10 + tagSize;
    if (spells(bytes(audioStart, 3), 'ID3')) notPlain('second ID3v2 tag');
  }
  const format = readStream(bytes, audioStart, size);
  if (!(format.duration! > 0)) notPlain('no duration');
  const native: Record<string, ITag[]> = {};
  if (audioStart > 0 && tag.native.length > 0) native[`ID3v2.${head[3]}`] = tag.native;
  return { format: format as unknown as IFormat, native, common: tag.common as unknown as IAudioMetadata['common'], quality: { warnings: [] } };
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
