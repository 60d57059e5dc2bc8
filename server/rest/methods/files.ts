import type { Response } from 'express';
import type { SongRow } from '../../db/subsonicLibrary.js';
import { libraryServiceOf } from '../../domain/library/service.js';
import { SENT, type RestCall } from '../context.js';
import { ErrorCode, SubsonicError, notFound } from '../errors.js';
import { resolveTrack } from '../views.js';

/** Sends a file with ranges, validators and HEAD support; a vanished file is error 70 with 404. */
export function sendFile(call: RestCall, file: string, mime: string, extraHeaders: Record<string, string> = {}): Promise<typeof SENT> {
  const res: Response = call.res;
  res.setHeader('Content-Type', mime);
  for (const [k, v] of Object.entries(extraHeaders)) res.setHeader(k, v);
  return new Promise((resolve, reject) => {
    res.sendFile(file, { dotfiles: 'allow', acceptRanges: true, cacheControl: false, lastModified: true }, (err?: Error & { status?: number; headers?: Record<string, string>; code?: string }) => {
      if (!err) return resolve(SENT);
      if (res.headersSent) {
        res.destroy();
        return resolve(SENT);
      }
      if (err.status === 416) {
        res.removeHeader('Content-Type');
        res.status(416).set(err.headers ?? {}).end();
        return resolve(SENT);
      }
      if (err.code === 'ECONNABORTED' || err.code === 'ECONNRESET') return resolve(SENT);
      res.removeHeader('Content-Type');
      reject(new SubsonicError(ErrorCode.notFound, 'The media file is not available', 404));
    });
  });
}

/** A song's file, `path` being the real path to open (refused when it leads outside the library's folders). */
export function playableSong(call: RestCall, raw: string): SongRow & { path: string; storedPath: string } {
  const trackId = resolveTrack(call, raw);
  const row = call.rc.library.song(trackId);
  if (!row || row.available !== 1 || !row.path) throw notFound('Song not found');
  const real = libraryServiceOf(call.rc.app).servablePath(row.path);
  if (!real) throw new SubsonicError(ErrorCode.notFound, 'The media file is not available', 404);
  return { ...row, path: real, storedPath: row.path };
}
