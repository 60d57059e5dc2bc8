import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { READ_NO_LINK } from './libraryRoots.js';

export interface MediaToSend {
  /** A real path (see libraryRoots.realPathWithin); a link found here now is not followed. */
  path: string;
  mime: string;
}

/**
 * Bytes read per chunk when a file is sent: 1 MiB keeps a large FLAC at the disk's and the socket's
 * speed (64 KiB reads, the default of express's sendFile, reach about a fifth of it), and each read
 * runs on libuv's thread pool, so many streams at once do not hold the event loop.
 */
export const MEDIA_CHUNK_BYTES = 1024 * 1024;

/** How a caller's answer differs from the /api default. */
export interface SendMediaOptions {
  /** Extra headers (Content-Disposition, X-Content-Duration, …). */
  headers?: Record<string, string>;
  /** Cache-Control to send; false sends none but the one in `headers`. Default: revalidate each time. */
  cacheControl?: string | false;
  /** A 416 answer's body: the API's JSON error (default), or none (Subsonic players expect none). */
  emptyUnsatisfiable?: boolean;
}

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/**
 * Parses a single `Range: bytes=` header against a size. Null means "send everything" (absent or
 * malformed header, as RFC 9110 allows); suffix ranges (`bytes=-500`) count from the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)(?:\s*,.*)?$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * Sends a media file for GET or HEAD with ranges, validators and the right type. Returns false
 * when the file is gone (the caller answers 404 without naming the path).
 */
export async function sendMedia(req: Request, res: Response, media: MediaToSend, options: SendMediaOptions = {}): Promise<boolean> {
  let handle: fs.promises.FileHandle;
  let stat: fs.Stats;
  try {
    handle = await fs.promises.open(media.path, READ_NO_LINK);
  } catch {
    return false;
  }
  try {
    stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a file');
  } catch {
    await handle.close();
    return false;
  }
  let streaming = false;
  try {
    streaming = await sendOpened(req, res, media, handle, stat, options);
  } finally {
    if (!streaming) await handle.close();
  }
  return true;
}

/** Answers from an open file; true when a read stream took the handle over (it closes it). */
async function sendOpened(
  req: Request,
  res: Response,
  media: MediaToSend,
  handle: fs.promises.FileHandle,
  stat: fs.Stats,
  options: SendMediaOptions,
): Promise<boolean> {
  const size = stat.size;
  const etag = `"${size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', stat.mtime.toUTCString());
  const cacheControl = options.cacheControl ?? 'private, max-age=0, must-revalidate';
  if (cacheControl) res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Content-Type', media.mime);
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    res.status(304).end();
    return false;
  }
  const ims = req.headers['if-modified-since'];
  if (!inm && ims && Date.parse(ims) >= Math.floor(stat.mtimeMs / 1000) * 1000) {
    res.status(304).end();
    return false;
  }
  const ifRange = req.headers['if-range'] as string | undefined;
  const rangeAllowed = !ifRange || ifRange === etag || (!ifRange.startsWith('"') && Date.parse(ifRange) >= Math.floor(stat.mtimeMs / 1000) * 1000);
  const range = rangeAllowed ? parseRange(req.headers.range, size) : null;
  if (range === 'unsatisfiable') {
    res.status(416).setHeader('Content-Range', `bytes */${size}`);
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Disposition');
    if (options.emptyUnsatisfiable) {
      res.end();
      return false;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ error: 'Range not satisfiable' }));
    return false;
  }
  const start = range ? range.start : 0;
  const end = range ? range.end : size - 1;
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', String(size === 0 ? 0 : end - start + 1));
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return false;
  }
  const stream = handle.createReadStream({ start, end, highWaterMark: MEDIA_CHUNK_BYTES });
  try {
    await pipeline(stream, res);
  } catch {
    // Client went away or the file vanished mid-stream; nothing more can be sent.
    stream.destroy();
    res.destroy();
  }
  return true;
}
