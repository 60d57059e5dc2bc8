import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.js';
import { SubsonicIds } from '../db/subsonicIds.js';
import { SubsonicLibrary } from '../db/subsonicLibrary.js';
import { NotFoundError } from '../domain/errors.js';
import { sendMedia } from '../library/stream.js';
import { entityId, parseId } from '../rest/ids.js';
import { expiredPage, missingPage, sharePage } from './page.js';

function html(res: Response, status: number, body: string): void {
  res.status(status).type('text/html; charset=utf-8').setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Robots-Tag', 'noindex');
  res.send(body);
}

/**
 * Public share links, no login: `/share/<id>` lists the tracks with an audio player and
 * `/share/<id>/<trackId>` streams one of them — only tracks the share contains, through the same
 * file lookup and sender as the library's own streams. Expired shares answer 410; unknown ids,
 * and every share while sharing is off, 404.
 */
export function shareRouter(ctx: AppContext): express.Router {
  const shares = ctx.shares;
  const library = new SubsonicLibrary(ctx.db);
  const ids = new SubsonicIds(ctx.db);
  const router = express.Router({ caseSensitive: true });

  router.get('/:shareId', (req: Request<{ shareId: string }>, res: Response) => {
    const opened = shares.open(req.params.shareId);
    if (!opened) return html(res, 404, missingPage());
    if (opened.state === 'expired') return html(res, 410, expiredPage());
    if (req.method === 'GET') shares.visit(opened.share);
    const tracks = library
      .songs(shares.trackIds(opened.share))
      .filter((s) => s.available === 1)
      .map((s) => ({ id: entityId('track', s.identity_key), title: s.title, artist: s.artist_name, album: s.album_title, durationMs: s.duration_ms || s.file_duration_ms || 0 }));
    html(res, 200, sharePage(opened.share, tracks, ctx.config.basePath));
  });

  router.get('/:shareId/:trackId', async (req: Request<{ shareId: string; trackId: string }>, res: Response) => {
    const opened = shares.open(req.params.shareId);
    if (!opened) return html(res, 404, missingPage());
    if (opened.state === 'expired') return html(res, 410, expiredPage());
    const parsed = parseId(req.params.trackId);
    const trackId = parsed?.kind === 'track' ? ids.resolve('track', parsed.key) : undefined;
    if (trackId === undefined || !shares.trackIds(opened.share).includes(trackId)) return html(res, 404, missingPage());
    let file;
    try {
      file = ctx.library.playableFile(trackId);
    } catch (err) {
      if (err instanceof NotFoundError) return html(res, 404, missingPage());
      throw err;
    }
    if (!(await sendMedia(req, res, { path: file.path, mime: file.mime ?? 'application/octet-stream' }))) html(res, 404, missingPage());
  });

  // Nothing else lives under /share: never the web UI's fallback page.
  router.use((_req: Request, res: Response) => html(res, 404, missingPage()));
  return router;
}
