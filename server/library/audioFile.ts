import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type IAudioMetadata, type IFormat, type IOptions } from 'music-metadata';
import { AbstractTokenizer, EndOfStreamError, type IRandomAccessFileInfo, type IReadChunkOptions } from 'strtok3';
import { FINGERPRINT_BLOCK, fingerprintOffsets } from './fingerprint.js';
import { parseTokenizer } from './metadataParser.js';
import { readPlainMp3 } from './plainMp3.js';
import { id3v2End, notSynchsafe, synchsafe, uint32 } from './plainMp3Bytes.js';

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

  /**
   * `windows` are in the file's coordinates; `base` is where the tokenizer's byte 0 is in the file
   * (past a tag the parser could not read, or past the end of a tag a window holds a corrected copy of).
   */
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

  /**
   * `length` bytes at `relative` (fewer at the end of the file), synchronously: a view into a window
   * when one holds them, else read from the file.
   */
  bytesAt(relative: number, length: number): Uint8Array {
    const position = relative + this.base;
    return this.fromWindow(position, length) ?? readFully(this.fd, position, Math.max(0, Math.min(length, this.fileEnd() - position)));
  }

  private fileEnd(): number {
    return (this.fileInfo.size ?? 0) + this.base;
  }

  /** The bytes at `position` (file coordinates) if a window holds them, or starts them in the window that ends the file. */
  private fromWindow(position: number, length: number): Uint8Array | null {
    for (const w of this.windows) {
      const end = w.offset + w.bytes.length;
      if (position >= w.offset && (position + length <= end || (end >= this.fileEnd() && position <= end))) {
        return w.bytes.subarray(position - w.offset, Math.min(end, position + length) - w.offset);
      }
    }
    return null;
  }

  private async readAt(buffer: Uint8Array, relative: number, length: number, mayBeLess: boolean): Promise<number> {
    const position = relative + this.base;
    const inWindow = this.fromWindow(position, length);
    if (inWindow) buffer.set(inWindow, 0);
    const n = inWindow ? inWindow.length : readFully(this.fd, position, length, buffer).length;
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

function readFully(fd: number, offset: number, length: number, into?: Uint8Array): Uint8Array {
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
    const info = { path: file, size: actualSize };
    const asIs = new WindowedFileTokenizer(fd, windows, info);

    const hash = createHash('sha1');
    hash.update(String(size));
    for (const { offset, length } of fingerprintOffsets(size)) hash.update(asIs.bytesAt(offset, length));
    const fingerprint = hash.digest('hex').slice(0, 32);

    // The parsers read the file as it is or, when its ID3v2 tag uses a layout music-metadata
    // misreads, with a corrected copy of the tag in front (correctedId3v2): a window holds the copy
    // ending where the original tag ended, and the tokenizer starts at the copy's first byte.
    const corrected = correctedId3v2(head, actualSize, fd);
    let tokenizer = asIs;
    if (corrected) {
      const base = corrected.end - corrected.tag.length;
      const front = Buffer.concat([corrected.tag, head.subarray(Math.min(corrected.end, head.length))]);
      tokenizer = new WindowedFileTokenizer(fd, [{ offset: base, bytes: front }, ...windows.slice(1)], info, base);
    }

    // A plain MP3 (most of a library) is read directly, with music-metadata's results; see plainMp3.ts.
    if (direct && !options.duration && path.extname(file).toLowerCase() === '.mp3') {
      const metadata = readPlainMp3((offset, length) => tokenizer.bytesAt(offset, length), tokenizer.fileInfo.size!);
      if (metadata) return { metadata, error: null, partialFormat: null, fingerprint, direct: true };
    }

    let partialFormat: IFormat | null = null;
    const observed: IOptions = { ...options, observer: (update) => void (partialFormat = update.metadata.format) };
    try {
      return { metadata: await parseTokenizer(tokenizer, observed), error: null, partialFormat: null, fingerprint, direct: false };
    } catch (err) {
      const afterTag = id3v2End(head);
      if (!hasAudio(partialFormat) && afterTag !== null && afterTag < actualSize) {
        try {
          const rest = await parseTokenizer(new WindowedFileTokenizer(fd, windows, info, afterTag), options);
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


/** The bytes without the unsynchronisation scheme's inserted zeros (FF 00 → FF). */
function resynchronised(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    out[n++] = bytes[i]!;
    if (bytes[i] === 0xff && bytes[i + 1] === 0x00) i++;
  }
  return out.subarray(0, n);
}

/**
 * A corrected copy of the file's ID3v2.3/2.4 tag (header and body), for the two layouts
 * music-metadata misreads, or null when the tag needs none:
 * - ID3v2.3 whole-tag unsynchronisation: music-metadata undoes it only for ID3v2.4's per-frame flag,
 *   so every text came out garbled. The copy is resynchronised.
 * - An extended header: music-metadata reads ID3v2.4's with ID3v2.3's layout and lost every frame
 *   after it. The copy leaves it out (it holds a CRC, padding size and restrictions, no tags).
 * `end` is where the original tag ends in the file; the audio after it is read from the file.
 */
function correctedId3v2(head: Uint8Array, fileSize: number, fd: number): { tag: Uint8Array; end: number } | null {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return null;
  const major = head[3]!;
  const flags = head[5]!;
  const unsynchronised = major === 3 && (flags & 0x80) !== 0;
  const extended = (major === 3 || major === 4) && (flags & 0x40) !== 0;
  if (!unsynchronised && !extended) return null;
  if (flags & 0x10 || notSynchsafe(head, 6)) return null; // a footer; a broken size
  const end = 10 + synchsafe(head, 6);
  if (end > fileSize) return null;
  let body = end <= head.length ? head.subarray(10, end) : readFully(fd, 10, end - 10);
  if (body.length < end - 10) return null;
  if (unsynchronised) body = resynchronised(body);
  if (extended) {
    if (body.length < 4) return null;
    // ID3v2.3: a plain size that leaves out its own 4 bytes; ID3v2.4: a synchsafe size that counts them.
    const skip = major === 3 ? 4 + uint32(body, 0) : synchsafe(body, 0);
    if (skip < 6 || skip > body.length) return null;
    body = body.subarray(skip);
  }
  const size = body.length;
  const header = [0x49, 0x44, 0x33, major, head[4]!, flags & ~0x40 & ~(unsynchronised ? 0x80 : 0), (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f];
  const tag = new Uint8Array(10 + size);
  tag.set(header, 0);
  tag.set(body, 10);
  return { tag, end };
}
