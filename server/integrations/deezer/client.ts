import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

const picture = z.string().nullish().transform((v) => v || null);
const artistSchema = z
  .object({
    id: z.coerce.number(),
    name: z.string(),
    link: z.string().optional(),
    picture,
    picture_small: picture,
    picture_medium: picture,
    picture_big: picture,
    picture_xl: picture,
    nb_album: z.coerce.number().optional(),
    nb_fan: z.coerce.number().optional(),
  })
  .loose();
export type DeezerArtist = z.infer<typeof artistSchema>;

const trackSchema = z
  .object({
    id: z.coerce.number(),
    title: z.string(),
    title_short: z.string().optional(),
    link: z.string().optional(),
    duration: z.coerce.number().optional(),
    rank: z.coerce.number().optional(),
    /** A 30 s MP3; Deezer sends "" when it has none. */
    preview: z.string().nullish().transform((v) => v || null),
    artist: z.object({ id: z.coerce.number(), name: z.string() }).loose().optional(),
    album: z.object({ id: z.coerce.number(), title: z.string(), cover_medium: picture, cover_big: picture }).loose().optional(),
  })
  .loose();
export type DeezerTrack = z.infer<typeof trackSchema>;

const named = z.object({ id: z.coerce.number(), name: z.string() }).loose();
const albumSchema = z
  .object({ id: z.coerce.number(), title: z.string(), artist: named, upc: z.string().optional(), record_type: z.string().optional(), cover_big: picture.optional() })
  .loose();
export type DeezerAlbum = z.infer<typeof albumSchema>;
const trackDetailSchema = trackSchema.extend({ artist: named, isrc: z.string().optional() });
export type DeezerTrackDetail = z.infer<typeof trackDetailSchema>;

const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), total: z.coerce.number().optional(), next: z.string().optional() }).loose();

export interface DeezerOptions {
  /** API root, e.g. `https://api.deezer.com`. */
  baseUrl: string;
  userAgent: string;
  /** Deezer allows about 50 requests per 5 s; 110 ms keeps well under it. */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

/**
 * Deezer reports errors inside the body, usually with HTTP 200: `{error:{type, message, code}}`.
 * Code 800 is "no data" (an unknown id), 4 and 700 are the quota, 100 and 200 are refusals.
 */
export function deezerBodyError(body: unknown): { status: number; message: string } | null {
  const error = (body as { error?: { code?: unknown; type?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object') return null;
  const code = Number(error.code);
  if (code === 800) return { status: 404, message: 'no data (error 800)' };
  if (code === 4 || code === 700) return { status: 429, message: `quota limit exceeded (error ${code})` };
  if (code === 200 || code === 300) return { status: 403, message: `permission refused (error ${code})` };
  if (code === 600 || code === 501) return { status: 400, message: `invalid query (error ${code})` };
  return { status: 502, message: `error ${Number.isFinite(code) ? code : 'without a code'}` };
}

/** The public Deezer API: artist search, artist, top tracks with 30 s previews. No key needed. */
export class DeezerClient {
  private readonly api: JsonApi;

  constructor(options: DeezerOptions) {
    this.api = new JsonApi({
      service: 'deezer',
      label: 'Deezer',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 110,
      timeoutMs: options.timeoutMs ?? 5000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 300,
      bodyError: deezerBodyError,
    });
  }

  /** One page of artists matching a name (`index` is the offset). */
  searchArtists(name: string, limit = 10, index = 0, signal?: AbortSignal) {
    return this.api.get({ path: '/search/artist', query: { q: name, limit, index }, schema: listOf(artistSchema), signal });
  }

  artist(id: number | string, signal?: AbortSignal): Promise<DeezerArtist> {
    return this.api.get({ path: `/artist/${encodeURIComponent(String(id))}`, schema: artistSchema, signal });
  }

  album(id: number | string, signal?: AbortSignal): Promise<DeezerAlbum> {
    return this.api.get({ path: `/album/${encodeURIComponent(String(id))}`, schema: albumSchema, signal });
  }

  /** One track with its ISRC (what a pasted track link is matched by). */
  track(id: number | string, signal?: AbortSignal): Promise<DeezerTrackDetail> {
    return this.api.get({ path: `/track/${encodeURIComponent(String(id))}`, schema: trackDetailSchema, signal });
  }

  /** The artist's most played tracks (Deezer accepts limit 1..100). */
  topTracks(id: number | string, limit = 10, index = 0, signal?: AbortSignal) {
    return this.api.get({ path: `/artist/${encodeURIComponent(String(id))}/top`, query: { limit, index }, schema: listOf(trackSchema), signal });
  }
}

/** The largest picture Deezer has of an artist (null for its placeholder-only artists). */
export function artistPicture(artist: DeezerArtist): string | null {
  return artist.picture_xl ?? artist.picture_big ?? artist.picture_medium ?? artist.picture ?? null;
}
