import type { SongRow } from '../../db/subsonicLibrary.js';
import { sendMedia } from '../../library/stream.js';
import { SENT, type RestCall } from '../context.js';
import { ErrorCode, SubsonicError, notFound } from '../errors.js';
import { resolveTrack } from '../views.js';

/** Sends a file with ranges, validators and HEAD support; a vanished file is error 70 with 404. */
export async function sendFile(call: RestCall, file: string, mime: string, extraHeaders: Record<string, string> = {}): Promise<typeof SENT> {
  // The same sender as the /api streams (1 MiB reads off the event loop, ranges, validators).
  const sent = await sendMedia(call.req, call.res, { path: file, mime }, { headers: extraHeaders, cacheControl: false, emptyUnsatisfiable: true });
  if (!sent) throw new SubsonicError(ErrorCode.notFound, 'The media file is not available', 404);
  return SENT;
}

/** A song's file, `path` being the real path to open (refused when it leads outside the library's folders). */
export function playableSong(call: RestCall, raw: string): SongRow & { path: string; storedPath: string } {
  const trackId = resolveTrack(call, raw);
  const row = call.rc.library.song(trackId);
  if (!row || row.available !== 1 || !row.path) throw notFound('Song not found');
  const real = call.rc.app.library.servablePath(row.path);
  if (!real) throw new SubsonicError(ErrorCode.notFound, 'The media file is not available', 404);
  return { ...row, path: real, storedPath: row.path };
}
