import type { Response } from 'express';
import type { AppContext } from '../../context.js';
import { releaseGroupEntry } from '../../domain/metadata/present.js';
import { artistBio, artistCover, previewTracks, similarEntries } from '../../domain/metadata/presentEnrichment.js';
import { toHttpError } from '../../http/errors.js';
import { defineRoute } from '../../http/route.js';
import { artistPage, mbidParams, ownedGroupsOf } from './routes.js';

/** The enrichment events of the stream, in the order each chain sends them. */
export const STREAM_EVENTS = ['appears-on', 'similar', 'bio', 'cover', 'preview'] as const;
const HEARTBEAT_MS = 15_000;

/**
 * GET /api/artists/:mbid/stream: server-sent events. `artist` (the mode=core page) at once, then
 * each enrichment as it arrives (`appears-on`, `similar`, `bio`, `cover`, `preview`; a part that
 * failed or is not configured carries the contract's error body), then `done`. Three chains run
 * side by side, one per upstream (MusicBrainz, Last.fm, Deezer); when the client goes away no
 * further step starts.
 */
export function artistStreamRoute(ctx: AppContext) {
  const metadata = ctx.metadata;
  const enrichment = ctx.enrichment;

  const send = (res: Response, event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const errorBody = (err: unknown) => {
    const mapped = toHttpError(err);
    if (mapped) return { ...mapped.body, status: mapped.status };
    ctx.log.warn('artist stream step failed', { err: err instanceof Error ? err.message : String(err) });
    return { error: 'Internal server error', status: 500 };
  };

  return defineRoute({
    method: 'get',
    path: '/api/artists/:mbid/stream',
    summary: 'Progressive artist page over server-sent events: artist, then appears-on, similar, bio, cover, preview as each arrives, then done',
    tag: 'artists',
    // EventSource cannot send an Authorization header: `?token=<session>` is accepted as for media.
    access: 'media',
    params: mbidParams,
    response: 'binary',
    handler: async ({ params, req, res }) => {
      const mbid = params.mbid;
      // An unknown artist or a cold outage fails as a plain JSON error before the stream starts.
      const core = await artistPage(ctx, mbid, 'core');
      let closed = false;
      res.on('close', () => {
        closed = true;
      });
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      send(res, 'artist', core);
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();

      const sent: string[] = [];
      const step = async (event: string, work: () => Promise<unknown>) => {
        if (closed) return;
        let data: unknown;
        try {
          data = await work();
        } catch (err) {
          data = errorBody(err);
        }
        if (closed) return;
        send(res, event, data);
        sent.push(event);
      };
      const chains = [
        async () => {
          await step('appears-on', async () => {
            const groups = await metadata.appearsOn(mbid);
            const owned = ownedGroupsOf(ctx, groups.map((g) => g.id));
            return { mbid, 'appears-on-release-groups': groups.map((g) => releaseGroupEntry(g, owned)) };
          });
        },
        async () => {
          await step('similar', async () => ({ mbid, source: 'lastfm', artists: similarEntries(ctx, await enrichment.similar(mbid), 20) }));
          await step('bio', async () => artistBio(mbid, await enrichment.info(mbid)));
        },
        async () => {
          let found: Awaited<ReturnType<typeof enrichment.deezerArtist>> | null = null;
          await step('cover', async () => {
            found = await enrichment.deezerArtist(mbid);
            return artistCover(ctx, mbid, found.artist, found.overridden);
          });
          await step('preview', async () => {
            const { artist, tracks } = await enrichment.deezerTop(mbid);
            return previewTracks(ctx, mbid, artist, tracks, 10);
          });
        },
      ];
      try {
        await Promise.all(chains.map((chain) => chain()));
      } finally {
        clearInterval(heartbeat);
      }
      if (closed || req.destroyed) return;
      send(res, 'done', { mbid, events: sent });
      res.end();
    },
  });
}
