import fs from 'node:fs';
import { id3v2End } from './plainMp3Bytes.js';

/**
 * Writes Vorbis comments into a copy of a FLAC file without ffmpeg: the metadata blocks are copied as
 * they are (STREAMINFO, SEEKTABLE, PICTURE, CUESHEET, padding...), the VORBIS_COMMENT block is
 * rewritten with the given values replacing the same keys, and the audio frames are copied byte for
 * byte. Starting ffmpeg costs over 100 ms of CPU per file, and a desktop without ffmpeg could not tag
 * FLACs at all.
 */

/** Keys in the names the callers share with ffmpeg's `-metadata`, as FLAC readers expect them. */
const VORBIS_KEYS: Record<string, string> = {
  title: 'TITLE',
  artist: 'ARTIST',
  album: 'ALBUM',
  album_artist: 'ALBUMARTIST',
  track: 'TRACKNUMBER',
  disc: 'DISCNUMBER',
  date: 'DATE',
};

export const vorbisKey = (name: string) => VORBIS_KEYS[name] ?? name.toUpperCase();

const STREAMINFO = 0;
const VORBIS_COMMENT = 4;
const MAX_BLOCK = 0xffffff;
const COPY_CHUNK = 1 << 20;

interface Block {
  type: number;
  /** Where the block's body starts in the file. */
  offset: number;
  length: number;
}

/**
 * Copies the FLAC `input` to `output` with `values` ([key, value], keys as in vorbisKey) set in its
 * Vorbis comments; other comments stay. Rejects, writing nothing useful, on a file that is not FLAC
 * or whose metadata runs past its end.
 */
export async function copyFlacWithComments(input: string, output: string, values: [string, string][], signal?: AbortSignal): Promise<void> {
  const from = await fs.promises.open(input, 'r');
  try {
    const size = (await from.stat()).size;
    const read = async (offset: number, length: number): Promise<Buffer> => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await from.read(buffer, 0, length, offset);
      if (bytesRead < length) throw new Error('the FLAC metadata runs past the end of the file');
      return buffer;
    };
    // Some taggers put an ID3v2 tag in front of a FLAC; readers skip it, and the copy leaves it out.
    const start = id3v2End(await read(0, Math.min(10, size))) ?? 0;
    if ((await read(start, 4)).toString('latin1') !== 'fLaC') throw new Error('not a FLAC file (no fLaC marker)');
    const blocks: Block[] = [];
    let position = start + 4;
    for (let last = false; !last; ) {
      const header = await read(position, 4);
      last = (header[0]! & 0x80) !== 0;
      const type = header[0]! & 0x7f;
      if (type === 127) throw new Error('an invalid FLAC metadata block');
      blocks.push({ type, offset: position + 4, length: header.readUIntBE(1, 3) });
      position += 4 + header.readUIntBE(1, 3);
      if (position > size) throw new Error('the FLAC metadata runs past the end of the file');
    }
    if (blocks[0]?.type !== STREAMINFO) throw new Error('a FLAC file without STREAMINFO first');

    const old = blocks.find((b) => b.type === VORBIS_COMMENT);
    // A comment block that cannot be read is replaced by one holding only the given values.
    const fresh: Comments = { vendor: 'Tonearm', entries: [] };
    const existing = old ? await read(old.offset, old.length).then(parseComments).catch(() => fresh) : fresh;
    const comments = commentsWith(existing, values);
    const body = encodeComments(comments);
    if (body.length > MAX_BLOCK) throw new Error('the tags are too large for a FLAC metadata block');
    // The new comment block takes the old one's place, or follows STREAMINFO.
    const order: (Block | 'comments')[] = old ? blocks.map((b) => (b === old ? 'comments' : b)) : [blocks[0]!, 'comments', ...blocks.slice(1)];

    const to = await fs.promises.open(output, 'w');
    try {
      await to.write(Buffer.from('fLaC', 'latin1'));
      for (let i = 0; i < order.length; i++) {
        const block = order[i]!;
        const isLast = i === order.length - 1;
        const type = block === 'comments' ? VORBIS_COMMENT : block.type;
        const bytes = block === 'comments' ? body : await read(block.offset, block.length);
        const header = Buffer.alloc(4);
        header[0] = (isLast ? 0x80 : 0) | type;
        header.writeUIntBE(bytes.length, 1, 3);
        await to.write(header);
        await to.write(bytes);
      }
      const chunk = Buffer.allocUnsafe(COPY_CHUNK);
      for (let at = position; at < size; ) {
        signal?.throwIfAborted();
        const { bytesRead } = await from.read(chunk, 0, Math.min(COPY_CHUNK, size - at), at);
        if (bytesRead === 0) throw new Error('the FLAC file got shorter while it was copied');
        await to.write(chunk, 0, bytesRead);
        at += bytesRead;
      }
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

interface Comments {
  vendor: string;
  entries: string[];
}

/** A VORBIS_COMMENT block's body: little-endian lengths, UTF-8 text. */
function parseComments(b: Buffer): Comments {
  let at = 0;
  const take = (): string => {
    if (at + 4 > b.length) throw new Error('a broken FLAC comment block');
    const length = b.readUInt32LE(at);
    if (at + 4 + length > b.length) throw new Error('a broken FLAC comment block');
    const text = b.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
    return text;
  };
  const vendor = take();
  if (at + 4 > b.length) throw new Error('a broken FLAC comment block');
  const count = b.readUInt32LE(at);
  at += 4;
  const entries: string[] = [];
  for (let i = 0; i < count; i++) entries.push(take());
  return { vendor, entries };
}

/** The comments with each given key's old values replaced by the new one (keys compare without case). */
function commentsWith(comments: Comments, values: [string, string][]): Comments {
  const set = values.map(([k, v]) => [vorbisKey(k), v] as const);
  const replaced = new Set(set.map(([k]) => k.toUpperCase()));
  const kept = comments.entries.filter((e) => !replaced.has(e.slice(0, Math.max(0, e.indexOf('='))).toUpperCase()));
  return { vendor: comments.vendor, entries: [...kept, ...set.map(([k, v]) => `${k}=${v}`)] };
}

function encodeComments(c: Comments): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    parts.push(length, bytes);
  };
  text(c.vendor);
  const count = Buffer.alloc(4);
  count.writeUInt32LE(c.entries.length);
  parts.push(count);
  for (const e of c.entries) text(e);
  return Buffer.concat(parts);
}
