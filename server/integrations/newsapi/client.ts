import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

const article = z
  .object({
    source: z.object({ id: z.string().nullish(), name: z.string().nullish() }).loose().nullish(),
    author: z.string().nullish(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    url: z.string(),
    urlToImage: z.string().nullish(),
    publishedAt: z.string().nullish(),
    content: z.string().nullish(),
  })
  .loose()
  .transform((a) => {
    const at = a.publishedAt ? Date.parse(a.publishedAt) : NaN;
    return {
      title: a.title ?? '',
      description: a.description ?? null,
      url: a.url,
      imageUrl: a.urlToImage || null,
      /** Milliseconds since the epoch. */
      publishedAt: Number.isFinite(at) ? at : null,
      source: a.source?.name ?? null,
      sourceId: a.source?.id ?? null,
      author: a.author ?? null,
    };
  });
export type NewsApiArticle = z.output<typeof article>;

const everythingSchema = z.object({ status: z.literal('ok'), totalResults: z.coerce.number().default(0), articles: z.array(article).default([]) }).loose();

/** NewsAPI's error codes as the HTTP status they amount to (the body says `{status:"error", code, message}`). */
const errorStatus: Record<string, number> = {
  apiKeyDisabled: 401,
  apiKeyExhausted: 401,
  apiKeyInvalid: 401,
  apiKeyMissing: 401,
  parameterInvalid: 400,
  parametersMissing: 400,
  sourcesTooMany: 400,
  sourceDoesNotExist: 400,
  maximumResultsReached: 400,
  rateLimited: 429,
  unexpectedError: 500,
};

export function newsApiBodyError(body: unknown, status: number): { status: number; message: string } | null {
  if (!body || typeof body !== 'object' || (body as { status?: unknown }).status !== 'error') return null;
  const code = String((body as { code?: unknown }).code ?? 'unexpectedError');
  const known = errorStatus[code];
  return { status: known ?? (status >= 400 ? status : 502), message: `error ${known ? code : 'unknown'}` };
}

export interface NewsApiEverythingQuery {
  /** NewsAPI's query syntax; an artist is searched as a quoted phrase (`"Aurora Lane"`). */
  q: string;
  searchIn?: ('title' | 'description' | 'content')[];
  /** Epoch ms; sent as an ISO time to the hour, as NewsAPI's free plan caches by hour. */
  from?: number;
  to?: number;
  language?: string;
  sortBy?: 'publishedAt' | 'relevancy' | 'popularity';
  /** 1–100; default 20. */
  pageSize?: number;
  page?: number;
  domains?: string[];
  excludeDomains?: string[];
  signal?: AbortSignal;
}

export interface NewsApiOptions {
  /** API root, e.g. `https://newsapi.org/v2`. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  /** Default 1: a daily quota used up does not come back by retrying. */
  retries?: number;
  retryBaseMs?: number;
}

const hourIso = (ms: number) => new Date(Math.floor(ms / 3600_000) * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** NewsAPI.org's `/v2/everything` search, with the key in `X-Api-Key` (never in the URL). */
export class NewsApiClient {
  private readonly api: JsonApi;

  constructor(options: NewsApiOptions) {
    this.api = new JsonApi({
      service: 'newsapi',
      label: 'NewsAPI',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 250,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 1,
      retryBaseMs: options.retryBaseMs ?? 500,
      headers: { 'X-Api-Key': options.apiKey },
      bodyError: newsApiBodyError,
    });
  }

  async everything(q: NewsApiEverythingQuery): Promise<{ totalResults: number; articles: NewsApiArticle[] }> {
    const answer = await this.api.get({
      path: '/everything',
      query: {
        q: q.q,
        ...(q.searchIn?.length && { searchIn: q.searchIn.join(',') }),
        ...(q.from !== undefined && { from: hourIso(q.from) }),
        ...(q.to !== undefined && { to: new Date(q.to).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
        ...(q.language && { language: q.language }),
        sortBy: q.sortBy ?? 'publishedAt',
        pageSize: Math.min(100, Math.max(1, Math.floor(q.pageSize ?? 20))),
        ...(q.page && q.page > 1 && { page: Math.floor(q.page) }),
        ...(q.domains?.length && { domains: q.domains.join(',') }),
        ...(q.excludeDomains?.length && { excludeDomains: q.excludeDomains.join(',') }),
      },
      schema: everythingSchema,
      ...(q.signal && { signal: q.signal }),
    });
    // Removed articles come back as "[Removed]" placeholders.
    return { totalResults: answer.totalResults, articles: answer.articles.filter((a) => a.title !== '[Removed]' && a.url !== 'https://removed.com') };
  }
}
