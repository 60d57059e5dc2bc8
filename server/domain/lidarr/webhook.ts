import { z } from 'zod';
import type { LidarrServices } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { lidarr: LidarrServices };

/**
 * Lidarr's webhook payload, as Lidarr sends it: PascalCase `eventType`, top-level `artist` with
 * `name`/`mbId` (never artistName/foreignArtistId), `album` with `mbId`. Older senders use
 * PascalCase keys; those are read too.
 */
const id = z.number().int();
const pascalToCamel = (value: unknown): unknown => {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k.charAt(0).toLowerCase() + k.slice(1)] ??= v;
  return out;
};
const entity = <T extends z.ZodRawShape>(shape: T) => z.preprocess(pascalToCamel, z.looseObject(shape));

export const webhookBody = z.preprocess(
  pascalToCamel,
  z.looseObject({
    eventType: z.string().trim().min(1),
    artist: entity({ id: id.optional(), name: z.string().nullish(), mbId: z.string().nullish() }).optional(),
    album: entity({ id: id.optional(), mbId: z.string().nullish(), title: z.string().nullish() }).optional(),
    albums: z.array(entity({ id: id.optional(), mbId: z.string().nullish() })).optional(),
  }),
);
export type WebhookBody = z.infer<typeof webhookBody>;

const ARTIST_SCOPED = new Set(['download', 'rename', 'retag', 'trackretag', 'albumdelete']);

/** What an event changes in the library; null when there is nothing to do (Test, Grab, Health, ...). */
export function handleLidarrWebhook(ctx: Deps, body: WebhookBody): { handled: true; scanJobId: string; requestsCompleted?: number } | null {
  const lidarr = ctx.lidarr;
  const event = body.eventType.toLowerCase();
  if (!lidarr.connection.configured || event === 'test') return null;
  const artistId = body.artist?.id;
  let jobId: number;
  if (ARTIST_SCOPED.has(event) && artistId !== undefined && artistId > 0) {
    jobId = lidarr.index.requestArtists([artistId], `webhook ${body.eventType}`);
  } else if (ARTIST_SCOPED.has(event) || event === 'artistdelete') {
    jobId = lidarr.index.requestFull(`webhook ${body.eventType}`);
  } else {
    return null;
  }
  lidarr.statuses.nudge();
  if (event !== 'download') {
    lidarr.requests.invalidate();
    return { handled: true, scanJobId: String(jobId) };
  }
  const completed = lidarr.requests.markDownloaded({ mbid: body.album?.mbId ?? null, lidarrAlbumId: body.album?.id ?? null });
  return { handled: true, scanJobId: String(jobId), requestsCompleted: completed };
}
