import { ascii, NotPlain, notPlain, uint32, type ReadBytes } from './plainMp3Bytes.js';

/**
 * The direct MP3 reader's MPEG stream (see plainMp3.ts): the format music-metadata's MPEG parser
 * gives when it is not asked for an exact duration, from the first four frame headers and a
 * Xing/Info/LAME header, with its sync rule and its CBR and VBR length arithmetic.
 */

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

/** A frame's length in bytes, header included. */
const frameSizeOf = (h: FrameHeader) => Math.floor((samplesPerFrame(h) / 8) * h.bitrate / h.sampleRate + (h.padding ? (h.layer === 1 ? 4 : 1) : 0));

/** The MPEG audio frame header at `at` in `b`, or null (ADTS AAC included). */
function headerAt(b: Uint8Array, at: number): FrameHeader | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null;
  try {
    return frameHeader(b[at + 1]!, b[at + 2]!, b[at + 3]!);
  } catch (err) {
    if (err instanceof NotPlain) return null;
    throw err;
  }
}

/** Whether `b` holds two MPEG audio frames in a row from `at`: what a file's content says it is, whatever its name. */
export function mpegFramesAt(b: Uint8Array, at: number): boolean {
  const first = headerAt(b, at);
  return first !== null && headerAt(b, at + frameSizeOf(first)) !== null;
}

function sideInfoLength(h: FrameHeader): number {
  if (h.layer !== 3) return 2;
  if (h.mono) return h.version === 1 ? 17 : 9;
  return h.version === 1 ? 32 : 17;
}

/** The format fields music-metadata's MPEG parser sets (mutable while the stream is walked). */
export interface StreamFormat {
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
export function readStream(bytes: ReadBytes, start: number, size: number): StreamFormat {
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
    const samples = samplesPerFrame(h);
    frameSize = frameSizeOf(h);
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
      const u32 = () => uint32(take(4), 0);
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
            format.duration = uint32(ext, 20) / 1000;
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
