import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type IAudioMetadata, type IFormat, type IOptions } from 'music-metadata';
import { AbstractTokenizer, EndOfStreamError, type IRandomAccessFileInfo, type IReadChunkOptions } from 'strtok3';
import { FINGERPRINT_BLOCK, fingerprintOffsets } from './fingerprint.js';
import { parseTokenizer } from './metadataParser.js';
import { readPlainMp3 } from './plainMp3.js';

/** Bytes read at once from the start of a file: tag headers, first frames and Xing/VBRI headers. */
const HEAD_BYTES = 128 * 1024;

interface Window {
  offset: number;
  bytes: Uint8Array;
}

/**
 * A random-access tokenizer over one open file that answers reads inside a few pre-read windows
 * (head and tail) from memory and only goes to the file for the rest. music-metadata reads a file
 * in many small pieces (tag headers, frame headers, Xing header, the ID3v1/APE footers at the end);
 * each asynchronous read costs far more than its bytes, so the windows turn a dozen reads into two.
 */
class WindowedFileTokenizer extends AbstractTokenizer {
  fileInfo: IRandomAccessFileInfo;

  /** `base`: where the tokenizer's byte 0 is in the file (past a tag the parser could not read). */
  constructor(
    private readonly fd: number,
    private readonly windows: Window[],
    fileInfo: IRandomAccessFileInfo,
    private readonly base = 0,
  ) {
    super();
    this.fileInfo = { ...fileInfo, size: (fileInfo.size ?? 0) - base };
  }

  supportsRandomAccess(): boolean {
    return true;
  }

  setPosition(position: number): void {
    this.validateLength(position, 'position');
    this.position = position;
  }

  async readBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const o = this.normalizeOptions(buffer, options);
    this.position = o.position;
    const n = await this.readAt(buffer, o.position, o.length, o.mayBeLess ?? false);
    this.position += n;
    return n;
  }

  async peekBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const o = this.normalizeOptions(buffer, options);
    return this.readAt(buffer, o.position, o.length, o.mayBeLess ?? false);
  }

  private async readAt(buffer: Uint8Array, relative: number, length: number, mayBeLess: boolean): Promise<number> {
    const position = relative + this.base;
    const fileSize = (this.fileInfo.size ?? 0) + this.base;
    let n = -1;
    for (const w of this.windows) {
      const end = w.offset + w.bytes.length;
      // Inside a window, or starting in the window that ends the file (a read past EOF gets less).
      if (position >= w.offset && (position + length <= end || (end >= fileSize && position <= end))) {
        n = Math.min(length, end - position);
        buffer.set(w.bytes.subarray(position - w.offset, position - w.offset + n), 0);
        break;
      }
    }
    if (n < 0) {
      n = 0;
      while (n < length) {
        const bytesRead = fs.readSync(this.fd, buffer, n, length - n, position + n);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
    }
    if (!mayBeLess && n < length) throw new EndOfStreamError();
    return n;
  }

}

/**
 * Head buffers of finished parses, for the next ones: a fresh buffer per file is an allocation of
 * its own outside V8's heap (a scan of 10,000 small files spent a quarter of a second creating them,
 * and the garbage collector more). The windows never escape a parse: the tokenizer copies out of them.
 */
const spareHeads: Buffer[] = [];
const SPARE_HEADS = 4;

function readFully(fd: number, offset: number, length: number, into?: Buffer): Uint8Array {
  const bytes = into && into.length >= length ? into : Buffer.allocUnsafe(length);
  let n = 0;
  while (n < length) {
    const bytesRead = fs.readSync(fd, bytes, n, length - n, offset + n);
    if (bytesRead === 0) break;
    n += bytesRead;
  }
  return bytes.subarray(0, n);
}

export interface ParsedAudioFile {
  metadata: IAudioMetadata | null;
  /** Why the file could not be parsed (the fingerprint may still be there). */
  error: unknown;
  /**
   * With `error`: what was learned of the audio stream anyway, from before the failure (a broken
   * tag after the stream header) or from the stream after a broken ID3v2 tag at the start.
   */
  partialFormat: IFormat | null;
  /** Same value as contentFingerprint(file, size). */
  fingerprint: string;
  /** Whether plainMp3.ts read the file (music-metadata did not). */
  direct: boolean;
}

/**
 * Parses one audio file's tags and computes its content fingerprint from one open of the file. The
 * file is opened and read synchronously: this runs on the scan worker's own thread, and for the
 * small reads it makes (a head, a tail, a block) a synchronous call costs a fraction of an
 * asynchronous one's request, promise and thread-pool hand-off (issue 25's scan profile):
 * the head and tail are read once, serve both, and only the fingerprint's middle block and reads
 * music-metadata makes outside them (a large embedded cover, say) go to the file again.
 */
export async function parseAudioFile(file: string, size: number, options: IOptions, direct = true): Promise<ParsedAudioFile> {
  const fd = fs.openSync(file, 'r');
  const headBuffer = spareHeads.pop() ?? Buffer.allocUnsafe(HEAD_BYTES);
  try {
    const head = readFully(fd, 0, Math.min(size, HEAD_BYTES), headBuffer);
    const actualSize = head.length < Math.min(size, HEAD_BYTES) ? head.length : size;
    const tailOffset = Math.max(head.length, actualSize - FINGERPRINT_BLOCK);
    const tail = tailOffset < actualSize ? readFully(fd, tailOffset, actualSize - tailOffset) : new Uint8Array(0);
    const windows: Window[] = [{ offset: 0, bytes: head }];
    if (tail.length > 0) windows.push({ offset: tailOffset, bytes: tail });

    const hash = createHash('sha1');
    hash.update(String(size));
    for (const { offset, length } of fingerprintOffsets(size)) {
      const w = windows.find((x) => offset >= x.offset && offset + length <= x.offset + x.bytes.length);
      hash.update(w ? w.bytes.subarray(offset - w.offset, offset - w.offset + length) : readFully(fd, offset, length));
    }
    const fingerprint = hash.digest('hex').slice(0, 32);

    // A plain MP3 (most of a library) is read directly, with music-metadata's results; see plainMp3.ts.
    if (direct && !options.duration && path.extname(file).toLowerCase() === '.mp3') {
      const bytesAt = (offset: number, length: number): Uint8Array => {
        const w = windows.find((x) => offset >= x.offset && offset + length <= x.offset + x.bytes.length);
        if (w) return w.bytes.subarray(offset - w.offset, offset - w.offset + length);
        return offset >= actualSize ? new Uint8Array(0) : readFully(fd, offset, Math.min(length, actualSize - offset));
      };
      const metadata = readPlainMp3(bytesAt, actualSize);
      if (metadata) return { metadata, error: null, partialFormat: null, fingerprint, direct: true };
    }

    let partialFormat: IFormat | null = null;
    const observed: IOptions = { ...options, observer: (update) => void (partialFormat = update.metadata.format) };
    try {
      return { metadata: await parseTokenizer(new WindowedFileTokenizer(fd, windows, { path: file, size: actualSize }), observed), error: null, partialFormat: null, fingerprint, direct: false };
    } catch (err) {
      const afterTag = id3v2End(head);
      if (!hasAudio(partialFormat) && afterTag !== null && afterTag < actualSize) {
        try {
          const rest = await parseTokenizer(new WindowedFileTokenizer(fd, windows, { path: file, size: actualSize }, afterTag), options);
          partialFormat = rest.format;
        } catch {
          // Nothing readable after the tag either.
        }
      }
      return { metadata: null, error: err, partialFormat, fingerprint, direct: false };
    }
  } finally {
    fs.closeSync(fd);
    if (spareHeads.length < SPARE_HEADS) spareHeads.push(headBuffer);
  }
}

function hasAudio(format: IFormat | null): boolean {
  return !!format && (format.duration ?? 0) > 0;
}

/** Where the audio starts after an ID3v2 tag at the start of the file (header size is synchsafe). */
function id3v2End(head: Uint8Array): number | null {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return null;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
  const footer = head[5]! & 0x10 ? 10 : 0;
  return 10 + size + footer;
}
