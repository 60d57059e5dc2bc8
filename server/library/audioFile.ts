import { createHash } from 'node:crypto';
import fs, { type FileHandle } from 'node:fs/promises';
import { parseFromTokenizer, type IAudioMetadata, type IOptions } from 'music-metadata';
import { AbstractTokenizer, EndOfStreamError, type IRandomAccessFileInfo, type IReadChunkOptions } from 'strtok3';
import { FINGERPRINT_BLOCK, fingerprintOffsets } from './fingerprint.js';

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

  constructor(
    private readonly handle: FileHandle,
    private readonly windows: Window[],
    fileInfo: IRandomAccessFileInfo,
  ) {
    super();
    this.fileInfo = fileInfo;
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

  private async readAt(buffer: Uint8Array, position: number, length: number, mayBeLess: boolean): Promise<number> {
    let n = -1;
    for (const w of this.windows) {
      const end = w.offset + w.bytes.length;
      // Inside a window, or starting in the window that ends the file (a read past EOF gets less).
      if (position >= w.offset && (position + length <= end || (end >= this.fileInfo.size && position <= end))) {
        n = Math.min(length, end - position);
        buffer.set(w.bytes.subarray(position - w.offset, position - w.offset + n), 0);
        break;
      }
    }
    if (n < 0) {
      n = 0;
      while (n < length) {
        const { bytesRead } = await this.handle.read(buffer, n, length - n, position + n);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
    }
    if (!mayBeLess && n < length) throw new EndOfStreamError();
    return n;
  }

  protected override async closeOnce(): Promise<void> {
    await this.handle.close();
    await super.closeOnce();
  }
}

async function readFully(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const bytes = Buffer.allocUnsafe(length);
  let n = 0;
  while (n < length) {
    const { bytesRead } = await handle.read(bytes, n, length - n, offset + n);
    if (bytesRead === 0) break;
    n += bytesRead;
  }
  return bytes.subarray(0, n);
}

export interface ParsedAudioFile {
  metadata: IAudioMetadata | null;
  /** Why the tags could not be parsed (the fingerprint may still be there). */
  error: unknown;
  /** Same value as contentFingerprint(file, size). */
  fingerprint: string;
}

/**
 * Parses one audio file's tags and computes its content fingerprint from one open of the file:
 * the head and tail are read once, serve both, and only the fingerprint's middle block and reads
 * music-metadata makes outside them (a large embedded cover, say) go to the file again.
 */
export async function parseAudioFile(file: string, size: number, options: IOptions): Promise<ParsedAudioFile> {
  const handle = await fs.open(file, 'r');
  let tokenizer: WindowedFileTokenizer | null = null;
  try {
    const head = await readFully(handle, 0, Math.min(size, HEAD_BYTES));
    const actualSize = head.length < Math.min(size, HEAD_BYTES) ? head.length : size;
    const tailOffset = Math.max(head.length, actualSize - FINGERPRINT_BLOCK);
    const tail = tailOffset < actualSize ? await readFully(handle, tailOffset, actualSize - tailOffset) : new Uint8Array(0);
    const windows: Window[] = [{ offset: 0, bytes: head }];
    if (tail.length > 0) windows.push({ offset: tailOffset, bytes: tail });

    const hash = createHash('sha1');
    hash.update(String(size));
    for (const { offset, length } of fingerprintOffsets(size)) {
      const w = windows.find((x) => offset >= x.offset && offset + length <= x.offset + x.bytes.length);
      hash.update(w ? w.bytes.subarray(offset - w.offset, offset - w.offset + length) : await readFully(handle, offset, length));
    }
    const fingerprint = hash.digest('hex').slice(0, 32);

    tokenizer = new WindowedFileTokenizer(handle, windows, { path: file, size: actualSize });
    try {
      return { metadata: await parseFromTokenizer(tokenizer, options), error: null, fingerprint };
    } catch (err) {
      return { metadata: null, error: err, fingerprint };
    }
  } finally {
    if (tokenizer) await tokenizer.close();
    else await handle.close();
  }
}
