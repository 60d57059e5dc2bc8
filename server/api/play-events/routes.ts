import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { playEvents } from '../../db/libraryUserData.js';
import { isUserAccount } from '../../domain/auth/principal.js';
import { ValidationError } from '../../domain/errors.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { isoTime, isPlayTime, LATEST_TIME_MS } from '../../domain/timestamps.js';

const eventSchema = z.object({
  id: z.number(),
  trackId: z.number().nullable(),
  title: z.string(),
  artist: z.string().nullable(),
  album: z.string().nullable(),
  artistMbid: z.string().nullable(),
  albumMbid: z.string().nullable(),
  trackMbid: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** Null only for a stored time no date can show. */
  playedAt: z.string().nullable(),
  source: z.string(),
});

const body = z.object({
  trackId: z.coerce.number().int().positive().optional(),
  title: z.string().min(1).max(500).optional(),
  artist: z.string().max(500).optional(),
  album: z.string().max(500).optional(),
  artistMbid: z.string().max(100).optional(),
  albumMbid: z.string().max(100).optional(),
  trackMbid: z.string().max(100).optional(),
  durationMs: z.number().int().min(0).optional(),
  /** Milliseconds since the epoch or an ISO date; defaults to now. */
  playedAt: z
    .union([z.number().int().min(0).max(LATEST_TIME_MS), z.iso.datetime({ offset: true })])
    .refine((v) => isPlayTime(typeof v === 'number' ? v : Date.parse(v)), 'must be a time from 1970 to 9999')
    .optional(),
  source: z.string().max(50).default('web'),
  /**
   * false: the track has just started ("now playing", as /rest scrobble with submission=false): it is
   * sent to the linked scrobbling services, best effort, and not recorded (202). Default true.
   */
  submission: z.boolean().default(true),
});

/** api.md §4.14: local play history (= Subsonic scrobbles). */
export function playEventRoutes(ctx: AppContext): RouteDefinition[] {
  const library = ctx.library;
  const listening = ctx.listening;
  return [
    defineRoute({
      method: 'get',
      path: '/api/play-events',
      summary: "Local play history: the user's own, or everyone's for the instance API key",
      tag: 'play-events',
      access: 'authenticated',
      query: z.object({
        limit: z.coerce.number().int().min(1).max(500).default(50),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      response: z.object({ items: z.array(eventSchema), total: z.number(), limit: z.number(), offset: z.number() }),
      handler: ({ query, principal }) => {
        const userId = principal && isUserAccount(principal) ? principal.userId : null;
        const { rows, total } = playEvents.list(ctx.db, userId, query.limit, query.offset);
        return {
          items: rows.map(({ createdAt: _c, ...r }) => ({ ...r, playedAt: isoTime(r.playedAt) ?? null })),
          total,
          limit: query.limit,
          offset: query.offset,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/play-events',
      summary: 'Record a local play event (user session only)',
      tag: 'play-events',
      access: 'user',
      body,
      status: 201,
      response: z.object({ success: z.boolean(), id: z.number() }),
      handler: ({ body: b, principal, res }) => {
        const track = b.trackId !== undefined ? library.track(b.trackId) : undefined;
        const title = b.title ?? track?.title;
        if (!title) throw new ValidationError('trackId or title is required', 'VALIDATION_ERROR');
        const play = {
          trackId: track?.id ?? null,
          title,
          artist: b.artist ?? track?.artist_name ?? null,
          album: b.album ?? track?.album_title ?? null,
          artistMbid: b.artistMbid ?? null,
          albumMbid: b.albumMbid ?? track?.album_mbid ?? null,
          trackMbid: b.trackMbid ?? track?.mbid ?? null,
          durationMs: b.durationMs ?? track?.duration_ms ?? null,
          playedAt: b.playedAt === undefined ? ctx.clock.now() : typeof b.playedAt === 'number' ? b.playedAt : Date.parse(b.playedAt),
          source: b.source,
        };
        if (!b.submission) {
          listening.nowPlaying(principal!.userId, play);
          res.status(202).json({ success: true, nowPlaying: true });
          return undefined;
        }
        const outcome = listening.recordPlay(principal!.userId, play);
        if (!outcome.recorded) {
          // A track of a flow that keeps out of the history (recordHistory off): played, not recorded.
          res.status(202).json({ success: true, recorded: false });
          return undefined;
        }
        return { success: true, id: outcome.id };
      },
    }),
  ];
}
