import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { JsonApi } from '../jsonApi.js';
import type { PrivateTargets } from '../guardedFetch.js';
import { listenBrainzSubmitSchema, type ListenBrainzListen, type ListenType } from '../listenbrainz/client.js';

/** Koito's top-list periods. */
export const KOITO_PERIODS = ['week', 'month', 'year', 'all_time'] as const;
export type KoitoPeriod = (typeof KOITO_PERIODS)[number];
/** Koito answers at most 100 entries per page. */
export const KOITO_MAX_LIMIT = 100;

/** Last.fm's periods (the user's listening-history setting speaks them) as Koito's. */
export function koitoPeriod(lastFmPeriod: string): KoitoPeriod {
  if (lastFmPeriod === '7day') return 'week';
  if (lastFmPeriod === '1month') return 'month';
  if (/^(3|6|12)month$/.test(lastFmPeriod)) return 'year';
  return 'all_time';
}

/**
 * Koito is self-hosted, so its address is what the user typed; people often paste the
 * ListenBrainz-compatible address they gave their scrobbler (`…/apis/listenbrainz/1`). Returns the
 * server root, or null when the text is no http(s) URL.
 */
export function koitoBaseUrl(input: string): string | null {
  const raw = input.trim();
  if (!URL.canParse(raw)) return null;
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/apis\/listenbrainz(\/1)?$/i, '') || '/';
  return url.href.replace(/\/+$/, '');
}

const entity = z
  .object({
    id: z.union([z.number(), z.string()]).optional(),
    name: z.string(),
    musicbrainz_id: z.string().nullish(),
    listen_count: z.coerce.number().catch(0),
    image: z.string().nullish(),
  })
  .loose();
/** Items arrive as `{item: {...}}` (current Koito) or flat; both are read. */
const topItem = z.preprocess((v) => (v && typeof v === 'object' && 'item' in v ? (v as { item: unknown }).item : v), entity).transform((a) => ({
  name: a.name,
  mbid: a.musicbrainz_id || null,
  listenCount: a.listen_count,
  koitoId: a.id === undefined ? null : String(a.id),
}));
export type KoitoTopArtist = z.output<typeof topItem>;

const topSchema = z
  .object({ items: z.array(topItem).nullish().transform((v) => v ?? []), has_next_page: z.boolean().default(false), current_page: z.coerce.number().optional() })
  .loose();

const validateSchema = z.object({ valid: z.boolean().default(false), user_name: z.string().nullish(), message: z.string().optional() }).loose();

export interface KoitoOptions {
  /** The Koito server's address (any `/apis/listenbrainz[/1]` suffix is removed). */
  baseUrl: string;
  userAgent: string;
  /** The user's Koito API key, for the ListenBrainz-compatible API (token validation, scrobbles). */
  token?: string;
  /** Koito runs on the user's own machines: 'lan' by default (link-local and metadata still refused). */
  allowPrivateTargets?: PrivateTargets;
  /** 250 ms spacing, 10 s timeout, 2 retries (408/425/429/5xx). */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

/** A user's Koito server: top artists for discovery, and the API key check of its ListenBrainz-compatible API. */
export class KoitoClient {
  private readonly api: JsonApi;
  readonly baseUrl: string;

  constructor(private readonly options: KoitoOptions) {
    const base = koitoBaseUrl(options.baseUrl);
    if (!base) throw new IntegrationError('koito', 'wrong_url', 'The Koito address must be an http(s) URL');
    this.baseUrl = base;
    this.api = new JsonApi({
      service: 'koito',
      label: 'Koito',
      baseUrl: base,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 250,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 300,
      allowPrivateTargets: options.allowPrivateTargets ?? 'lan',
      ...(options.token && { headers: { Authorization: `Token ${options.token}` } }),
    });
  }

  /** One page of top artists (`GET /apis/web/v1/top/artists`). */
  async topArtists(query: { period?: KoitoPeriod; page?: number; limit?: number; signal?: AbortSignal } = {}): Promise<{ items: KoitoTopArtist[]; page: number; hasNextPage: boolean }> {
    const page = Math.max(1, Math.floor(query.page ?? 1));
    const limit = Math.min(KOITO_MAX_LIMIT, Math.max(1, Math.floor(query.limit ?? KOITO_MAX_LIMIT)));
    const answer = await this.api.get({
      path: '/apis/web/v1/top/artists',
      query: { period: query.period ?? 'all_time', page, limit },
      schema: topSchema,
      ...(query.signal && { signal: query.signal }),
    });
    return { items: answer.items, page: answer.current_page ?? page, hasNextPage: answer.has_next_page };
  }

  /**
   * Top artists across pages while Koito says there are more, up to `max` artists (default 200)
   * or `maxPages` pages (default 10), whichever comes first.
   */
  async allTopArtists(query: { period?: KoitoPeriod; max?: number; maxPages?: number; signal?: AbortSignal } = {}): Promise<KoitoTopArtist[]> {
    const max = query.max ?? 200;
    const out: KoitoTopArtist[] = [];
    for (let page = 1; page <= (query.maxPages ?? 10) && out.length < max; page++) {
      const answer = await this.topArtists({ page, limit: KOITO_MAX_LIMIT, ...(query.period && { period: query.period }), ...(query.signal && { signal: query.signal }) });
      out.push(...answer.items);
      if (!answer.hasNextPage || answer.items.length === 0) break;
    }
    return out.slice(0, max);
  }

  /** `POST /apis/listenbrainz/1/submit-listens`: Koito takes ListenBrainz's bodies as they are. */
  async submitListen(listenType: ListenType, listen: ListenBrainzListen, signal?: AbortSignal): Promise<void> {
    const item = listenType === 'playing_now' ? { track_metadata: listen.track_metadata } : listen;
    await this.api.send({
      path: '/apis/listenbrainz/1/submit-listens',
      body: { listen_type: listenType, payload: [item] },
      schema: listenBrainzSubmitSchema,
      ...(signal && { signal }),
    });
  }

  /** Checks the API key on `/apis/listenbrainz/1/validate-token`: the Koito user name, or null when refused. */
  async validateToken(signal?: AbortSignal): Promise<string | null> {
    if (!this.options.token) return null;
    try {
      const answer = await this.api.get({ path: '/apis/listenbrainz/1/validate-token', schema: validateSchema, ...(signal && { signal }) });
      return answer.valid ? (answer.user_name ?? '') : null;
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'unauthorized') return null;
      throw err;
    }
  }
}
