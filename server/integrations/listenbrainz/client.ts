import { z } from 'zod';
import type { HttpAnswer } from '../http.js';
import { IntegrationError } from '../errors.js';
import { JsonApi } from '../jsonApi.js';

/** ListenBrainz statistics ranges. */
export const LISTENBRAINZ_RANGES = ['this_week', 'this_month', 'this_year', 'week', 'month', 'quarter', 'year', 'half_yearly', 'all_time'] as const;
export type ListenBrainzRange = (typeof LISTENBRAINZ_RANGES)[number];
/** ListenBrainz answers at most 100 entries per request. */
export const LISTENBRAINZ_MAX_COUNT = 100;

const mbidList = z.preprocess((v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]), z.array(z.string()).catch([]));
const statArtist = z
  .object({
    artist_name: z.string(),
    artist_mbid: z.string().nullish(),
    artist_mbids: mbidList.optional(),
    listen_count: z.coerce.number().catch(0),
  })
  .loose()
  .transform((a) => {
    const mbids = [...new Set([...(a.artist_mbid ? [a.artist_mbid] : []), ...(a.artist_mbids ?? [])].filter(Boolean))];
    return { name: a.artist_name, mbid: mbids[0] ?? null, mbids, listenCount: a.listen_count };
  });
export type ListenBrainzStatArtist = z.output<typeof statArtist>;

const statsSchema = z.object({
  payload: z
    .object({
      user_id: z.string().optional(),
      artists: z.array(statArtist).default([]),
      count: z.coerce.number().optional(),
      offset: z.coerce.number().default(0),
      range: z.string().optional(),
      total_artist_count: z.coerce.number().optional(),
      from_ts: z.number().nullish(),
      to_ts: z.number().nullish(),
      last_updated: z.number().nullish(),
    })
    .loose(),
});

/**
 * Artist statistics, or `ready: false` when ListenBrainz answered 204: the statistics of this user
 * (or range) have not been computed yet. That is not an error: a new account has none for a day.
 */
export type ListenBrainzArtistStats =
  | {
      ready: true;
      artists: ListenBrainzStatArtist[];
      offset: number;
      /** All artists in the range, for paging. */
      total: number;
      range: string;
      /** Seconds since the epoch (as ListenBrainz sends them), null when absent. */
      fromTs: number | null;
      toTs: number | null;
      lastUpdated: number | null;
    }
  | { ready: false; artists: []; offset: number; total: 0; range: string };

export interface ListenBrainzStatsQuery {
  range?: ListenBrainzRange;
  /** 1–100 (ListenBrainz's maximum); default 25, ListenBrainz's own default. */
  count?: number;
  offset?: number;
  signal?: AbortSignal;
}

export interface ListenBrainzOptions {
  /** API root, e.g. `https://api.listenbrainz.org`. */
  baseUrl: string;
  userAgent: string;
  /** A user token (`Authorization: Token …`); statistics are public and need none. */
  token?: string;
  /** ListenBrainz: 250 ms spacing, 6 s timeout, 2 retries (reference §0). */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
  /** Longest wait for a quota reset (X-RateLimit-Reset-In) before failing as rate_limited; default 30 s. */
  maxHoldMs?: number;
}

const header = (answer: HttpAnswer, name: string): string | undefined => {
  const v = answer.headers?.[name];
  return Array.isArray(v) ? v[0] : v;
};

/** X-RateLimit-Remaining and X-RateLimit-Reset-In (seconds), when both are sent. */
export function listenBrainzQuota(answer: HttpAnswer): { remaining: number; resetInMs: number } | null {
  const remaining = Number(header(answer, 'x-ratelimit-remaining'));
  const resetIn = Number(header(answer, 'x-ratelimit-reset-in'));
  if (header(answer, 'x-ratelimit-remaining') === undefined || !Number.isFinite(remaining) || !Number.isFinite(resetIn)) return null;
  return { remaining, resetInMs: Math.max(0, resetIn * 1000) };
}

/** One listen as ListenBrainz (and Koito's compatible API) takes it; `listened_at` is absent for playing_now. */
export interface ListenBrainzListen {
  listened_at?: number;
  track_metadata: {
    artist_name: string;
    track_name: string;
    release_name?: string;
    additional_info: {
      submission_client: string;
      duration_ms?: number;
      recording_mbid?: string;
      release_mbid?: string;
      artist_mbids?: string[];
    };
  };
}
export type ListenType = 'single' | 'playing_now';

export const listenBrainzValidateSchema = z
  .object({ valid: z.boolean().default(false), user_name: z.string().nullish(), message: z.string().optional() })
  .loose();
export const listenBrainzSubmitSchema = z.object({ status: z.string() }).loose();

/**
 * ListenBrainz's read API for discovery: a user's top artists and the sitewide ones. It honours the
 * rate-limit headers: with no request left in the window, every caller waits for the reset.
 */
export class ListenBrainzClient {
  private readonly api: JsonApi;

  constructor(options: ListenBrainzOptions) {
    this.api = new JsonApi({
      service: 'listenbrainz',
      label: 'ListenBrainz',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 250,
      timeoutMs: options.timeoutMs ?? 6_000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 300,
      ...(options.token && { headers: { Authorization: `Token ${options.token}` } }),
      quota: listenBrainzQuota,
      ...(options.maxHoldMs !== undefined && { maxHoldMs: options.maxHoldMs }),
    });
  }

  /**
   * `GET /1/validate-token` with the client's token: the ListenBrainz user name, or null when the
   * token is refused (`valid: false`, or 401 on older servers).
   */
  async validateToken(signal?: AbortSignal): Promise<string | null> {
    try {
      const answer = await this.api.get({ path: '/1/validate-token', schema: listenBrainzValidateSchema, ...(signal && { signal }) });
      return answer.valid ? (answer.user_name ?? '') : null;
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'unauthorized') return null;
      throw err;
    }
  }

  /** `POST /1/submit-listens`: one listen (`single`) or what is playing now (`playing_now`). */
  async submitListen(listenType: ListenType, listen: ListenBrainzListen, signal?: AbortSignal): Promise<void> {
    const item = listenType === 'playing_now' ? { track_metadata: listen.track_metadata } : listen;
    await this.api.send({ path: '/1/submit-listens', body: { listen_type: listenType, payload: [item] }, schema: listenBrainzSubmitSchema, ...(signal && { signal }) });
  }

  /** `GET /1/stats/user/<user>/artists`; an unknown user is not_found, uncomputed stats `ready: false`. */
  userArtists(user: string, query: ListenBrainzStatsQuery = {}): Promise<ListenBrainzArtistStats> {
    return this.stats(`/1/stats/user/${encodeURIComponent(user)}/artists`, query);
  }

  /** `GET /1/stats/sitewide/artists`: the most listened artists of everyone on ListenBrainz. */
  sitewideArtists(query: ListenBrainzStatsQuery = {}): Promise<ListenBrainzArtistStats> {
    return this.stats('/1/stats/sitewide/artists', query);
  }

  private async stats(path: string, q: ListenBrainzStatsQuery): Promise<ListenBrainzArtistStats> {
    const range = q.range ?? 'all_time';
    const count = Math.min(LISTENBRAINZ_MAX_COUNT, Math.max(1, Math.floor(q.count ?? 25)));
    const offset = Math.max(0, Math.floor(q.offset ?? 0));
    const answer = await this.api.getOrEmpty({ path, query: { range, count, offset }, schema: statsSchema, ...(q.signal && { signal: q.signal }) });
    if (!answer) return { ready: false, artists: [], offset, total: 0, range };
    const p = answer.payload;
    return {
      ready: true,
      artists: p.artists,
      offset: p.offset,
      total: p.total_artist_count ?? p.offset + p.artists.length,
      range: p.range ?? range,
      fromTs: p.from_ts ?? null,
      toTs: p.to_ts ?? null,
      lastUpdated: p.last_updated ?? null,
    };
  }
}
