import fs from 'node:fs';
import type { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { READ_NO_LINK } from '../../library/libraryRoots.js';
import { MEDIA_CHUNK_BYTES } from '../../library/stream.js';

/**
 * A zip archive of existing files streamed without compression (audio does not shrink) and without
 * temporary files. Each entry's CRC is read in a first pass so the local headers carry exact sizes
 * and CRCs: no data descriptors, which some unzippers (Java's ZipInputStream, used on Android)
 * refuse for stored entries. The whole length is known before the first byte (Content-Length).
 */
export interface ZipEntry {
  /** Path inside the archive, `/`-separated. */
  name: string;
  file: string;
  size: number;
  mtimeMs: number;
}

export class ZipTooLargeError extends Error {}

/** Thrown when a file changed between planning and writing; the archive written so far is broken. */
export class ZipSourceChangedError extends Error {}

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
const MAX_32 = 0xffffffff;
const MAX_ENTRIES = 0xffff;
const FLAG_UTF8 = 0x0800;
const VERSION = 20; // 2.0: what a stored entry with a UTF-8 name needs
const MADE_BY_UNIX = (3 << 8) | VERSION;
const FILE_MODE = 0o100644;

/** The archive's exact byte length; throws ZipTooLargeError past what ZIP (without ZIP64) can hold. */
export function zipLength(entries: ZipEntry[]): number {
  if (entries.length > MAX_ENTRIES) throw new ZipTooLargeError(`A download holds at most ${MAX_ENTRIES} files; this one has ${entries.length}`);
  let total = END_RECORD;
  for (const e of entries) {
    const name = Buffer.byteLength(e.name, 'utf8');
    total += LOCAL_HEADER + name + e.size + CENTRAL_HEADER + name;
  }
  if (total > MAX_32) {
    const gb = (total / 1024 ** 3).toFixed(1);
    throw new ZipTooLargeError(`The download would be ${gb} GB; zip downloads are limited to 4 GB. Download fewer albums or single songs`);
  }
  return total;
}

/** MS-DOS date and time (local time, 2-second steps, from 1980). */
function dosDateTime(ms: number): { date: number; time: number } {
  const d = new Date(Math.max(ms, new Date(1980, 0, 1).getTime()));
  return {
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
  };
}

/** Entry files are real paths (see libraryRoots): one swapped for a link since is not followed. */
async function* chunksOf(file: string, size: number, opened?: fs.promises.FileHandle): AsyncGenerator<Buffer> {
  if (size === 0) {
    await opened?.close();
    return;
  }
  const handle = opened ?? (await fs.promises.open(file, READ_NO_LINK));
  for await (const chunk of handle.createReadStream({ start: 0, end: size - 1, highWaterMark: MEDIA_CHUNK_BYTES })) yield chunk as Buffer;
}

/**
 * CRCs of files already archived, by identity and version (device, inode, size, change and
 * modification times in nanoseconds): a second download of an album reads each file once instead
 * of twice. A file rewritten in place gets a new ctime, so a stale CRC is never used; the second
 * pass still checks what it streams (writeZip). Bounded: the oldest entries go first.
 */
const CRC_CACHE_MAX = 20_000;
const crcCache = new Map<string, number>();

function versionKey(st: fs.BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * A file last changed longer ago than this is settled: a write from now on gives it a later change
 * time (the kernel's file clock is coarse, a few milliseconds), so finding the same version after it
 * was streamed proves the bytes sent are those the CRC was taken of.
 */
const SETTLED_MS = 1000;

interface KnownCrc {
  crc: number;
  key: string;
  /** Changed more than SETTLED_MS before the CRC's version was read (see SETTLED_MS). */
  settled: boolean;
}

async function crcOf(file: string, size: number): Promise<KnownCrc> {
  const handle = await fs.promises.open(file, READ_NO_LINK);
  let key: string;
  let settled: boolean;
  try {
    const st = await handle.stat({ bigint: true });
    key = versionKey(st);
    settled = Number(st.ctimeMs) < Date.now() - SETTLED_MS;
  } catch (err) {
    await handle.close();
    throw err;
  }
  const known = crcCache.get(key);
  if (known !== undefined) {
    await handle.close();
    return { crc: known, key, settled };
  }
  let crc = 0;
  let read = 0;
  for await (const chunk of chunksOf(file, size, handle)) {
    crc = zlib.crc32(chunk, crc);
    read += chunk.length;
  }
  if (read !== size) throw new ZipSourceChangedError(`${file} changed while it was being archived`);
  return { crc, key, settled };
}

/** The file's version now, or null when it can no longer be read. */
async function versionNow(file: string): Promise<string | null> {
  try {
    return versionKey(await fs.promises.stat(file, { bigint: true }));
  } catch {
    return null;
  }
}

function remember(key: string, crc: number): void {
  crcCache.delete(key);
  crcCache.set(key, crc);
  if (crcCache.size > CRC_CACHE_MAX) crcCache.delete(crcCache.keys().next().value!);
}

/** How many CRCs are cached (tests). */
export function cachedCrcCount(): number {
  return crcCache.size;
}

/** Writes respecting backpressure; rejects when the destination closes (the client went away). */
function write(out: Writable, data: Buffer): Promise<void> {
  if (out.destroyed) return Promise.reject(new Error('destination closed'));
  if (out.write(data)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('destination closed'));
    out.on('drain', onDrain);
    out.on('close', onClose);
    out.on('error', done);
  });
}

interface Written {
  entry: ZipEntry;
  name: Buffer;
  crc: number;
  offset: number;
  date: number;
  time: number;
}

function localHeader(w: Written): Buffer {
  const h = Buffer.alloc(LOCAL_HEADER);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(VERSION, 4);
  h.writeUInt16LE(FLAG_UTF8, 6);
  h.writeUInt16LE(0, 8); // stored
  h.writeUInt16LE(w.time, 10);
  h.writeUInt16LE(w.date, 12);
  h.writeUInt32LE(w.crc, 14);
  h.writeUInt32LE(w.entry.size, 18);
  h.writeUInt32LE(w.entry.size, 22);
  h.writeUInt16LE(w.name.length, 26);
  h.writeUInt16LE(0, 28);
  return Buffer.concat([h, w.name]);
}

function centralHeader(w: Written): Buffer {
  const h = Buffer.alloc(CENTRAL_HEADER);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(MADE_BY_UNIX, 4);
  h.writeUInt16LE(VERSION, 6);
  h.writeUInt16LE(FLAG_UTF8, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(w.time, 12);
  h.writeUInt16LE(w.date, 14);
  h.writeUInt32LE(w.crc, 16);
  h.writeUInt32LE(w.entry.size, 20);
  h.writeUInt32LE(w.entry.size, 24);
  h.writeUInt16LE(w.name.length, 28);
  // extra, comment, disk number, internal attributes: 0
  h.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
  h.writeUInt32LE(w.offset, 42);
  return Buffer.concat([h, w.name]);
}

function endRecord(count: number, centralSize: number, centralOffset: number): Buffer {
  const h = Buffer.alloc(END_RECORD);
  h.writeUInt32LE(0x06054b50, 0);
  h.writeUInt16LE(count, 8);
  h.writeUInt16LE(count, 10);
  h.writeUInt32LE(centralSize, 12);
  h.writeUInt32LE(centralOffset, 16);
  return h;
}

/** Streams the archive into `out` (which it does not end). Sizes must be those zipLength was given. */
export async function writeZip(entries: ZipEntry[], out: Writable): Promise<void> {
  zipLength(entries);
  const written: Written[] = [];
  let offset = 0;
  for (const entry of entries) {
    const { crc, key, settled } = await crcOf(entry.file, entry.size);
    const w: Written = { entry, name: Buffer.from(entry.name, 'utf8'), crc, offset, ...dosDateTime(entry.mtimeMs) };
    const header = localHeader(w);
    await write(out, header);
    // The bytes sent must be those of the CRC in the header. A settled file proves it by its version
    // after streaming; a file changed in the last second is checked by the CRC of what is streamed
    // (about a quarter of the time of a fast read: npm run bench:streaming).
    let check = 0;
    let sent = 0;
    for await (const chunk of chunksOf(entry.file, entry.size)) {
      if (!settled) check = zlib.crc32(chunk, check);
      sent += chunk.length;
      await write(out, chunk);
    }
    const unchanged = settled ? (await versionNow(entry.file)) === key : check === crc;
    if (sent !== entry.size || !unchanged) {
      crcCache.delete(key);
      throw new ZipSourceChangedError(`${entry.file} changed while it was being archived`);
    }
    remember(key, crc);
    offset += header.length + entry.size;
    written.push(w);
  }
  const central = Buffer.concat(written.map(centralHeader));
  await write(out, central);
  await write(out, endRecord(written.length, central.length, offset));
}

/** A file or folder name safe on every common file system. */
export function safeName(raw: string, fallback = '_'): string {
  const cleaned = raw
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .trim();
  const chars = [...cleaned];
  const short = chars.length > 120 ? chars.slice(0, 120).join('').trimEnd() : cleaned;
  return short === '' ? fallback : short;
}

/** Makes names unique (case-insensitively, as on Windows and macOS) by numbering repeats. */
export function uniqueNames<T extends { name: string }>(entries: T[]): T[] {
  const seen = new Set<string>();
  return entries.map((e) => {
    let name = e.name;
    const dot = name.lastIndexOf('.');
    const slash = name.lastIndexOf('/');
    const [stem, ext] = dot > slash + 1 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 2; seen.has(name.toLowerCase()); n++) name = `${stem} (${n})${ext}`;
    seen.add(name.toLowerCase());
    return { ...e, name };
  });
}
