import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * NewsAPI.org's `/v2/everything` on 127.0.0.1: the key in `X-Api-Key` (or `apiKey`), `q` with
 * quoted phrases and AND-ed words searched in `searchIn` (title, description, content), `from`/`to`,
 * `language`, `domains`, `sortBy=publishedAt`, `pageSize` ≤ 100 and `page` with the developer plan's
 * 100-result ceiling (426 maximumResultsReached), errors as `{status:"error", code, message}`.
 * `rateLimitNext(n)` answers 429 rateLimited; `quota` limits requests per key (default unlimited).
 */
export interface FakeNewsApiArticle {
  title: string;
  description?: string;
  content?: string;
  url: string;
  urlToImage?: string;
  publishedAt: Date;
  source: string;
  author?: string;
  language?: string;
}

export interface NewsApiFake extends JsonFake {
  apiKey: string;
  articles: FakeNewsApiArticle[];
  rateLimitNext(count: number): void;
  /** Requests left for the key today; null: unlimited. */
  quota: number | null;
}

const err = (status: number, code: string, message: string): FakeReply => ({ status, body: { status: 'error', code, message } });

function matches(q: string, text: string): boolean {
  const hay = text.toLowerCase();
  const phrases = [...q.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.toLowerCase());
  const words = q
    .replace(/"[^"]*"/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !/^(AND|OR|NOT)$/.test(w))
    .map((w) => w.replace(/^[+]/, '').toLowerCase());
  return phrases.every((p) => hay.includes(p)) && words.every((w) => hay.includes(w));
}

export async function startNewsApiFake(apiKey = 'newsapi-test-key'): Promise<NewsApiFake> {
  let limited = 0;
  const handler = (req: SeenRequest): FakeReply => {
    const key = (req.headers['x-api-key'] as string | undefined) ?? req.query.get('apiKey') ?? undefined;
    if (!key) return err(401, 'apiKeyMissing', 'Your API key is missing. Append this to the URL with the apiKey param, or use the x-api-key HTTP header.');
    if (key !== fake.apiKey) return err(401, 'apiKeyInvalid', 'Your API key is invalid or incorrect. Check your key, or go to https://newsapi.org to create a free API key.');
    if (limited > 0) {
      limited--;
      return err(429, 'rateLimited', 'You have made too many requests recently. Developer accounts are limited to 100 requests over a 24 hour period.');
    }
    if (fake.quota !== null) {
      if (fake.quota <= 0) return err(429, 'rateLimited', 'You have made too many requests recently. Developer accounts are limited to 100 requests over a 24 hour period.');
      fake.quota--;
    }
    if (req.path !== '/everything') return err(404, 'routeNotFound', 'Route not found');
    const q = req.query.get('q');
    if (!q) return err(400, 'parametersMissing', 'Required parameters are missing. Please set any of the following parameters and try again: q, qInTitle, sources, domains.');
    const pageSize = Number(req.query.get('pageSize') ?? 100);
    const page = Number(req.query.get('page') ?? 1);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) return err(400, 'parameterInvalid', 'You have requested too many results. The maximum page size is 100.');
    if (!Number.isInteger(page) || page < 1) return err(400, 'parameterInvalid', 'The page parameter must be a positive integer.');
    const parseDate = (v: string | null) => (v === null ? null : Date.parse(v));
    const from = parseDate(req.query.get('from'));
    const to = parseDate(req.query.get('to'));
    if (Number.isNaN(from) || Number.isNaN(to)) return err(400, 'parameterInvalid', 'The from/to parameter is in an invalid format.');
    const searchIn = (req.query.get('searchIn') ?? 'title,description,content').split(',');
    const language = req.query.get('language');
    const domains = (req.query.get('domains') ?? '').split(',').filter(Boolean);
    const hits = fake.articles
      .filter((a) => matches(q, searchIn.map((f) => (f === 'title' ? a.title : f === 'description' ? (a.description ?? '') : (a.content ?? ''))).join(' \n ')))
      .filter((a) => (from === null || a.publishedAt.getTime() >= from) && (to === null || a.publishedAt.getTime() <= to))
      .filter((a) => !language || (a.language ?? 'en') === language)
      .filter((a) => domains.length === 0 || domains.some((d) => new URL(a.url).hostname.endsWith(d)))
      .sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime());
    if (page * pageSize > 100 && (page - 1) * pageSize >= 100)
      return err(426, 'maximumResultsReached', 'You have requested too many results. Developer accounts are limited to a max of 100 results.');
    const slice = hits.slice((page - 1) * pageSize, page * pageSize);
    return {
      body: {
        status: 'ok',
        totalResults: hits.length,
        articles: slice.map((a) => ({
          source: { id: null, name: a.source },
          author: a.author ?? null,
          title: a.title,
          description: a.description ?? null,
          url: a.url,
          urlToImage: a.urlToImage ?? null,
          publishedAt: a.publishedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          content: a.content ? `${a.content.slice(0, 200)}… [+${Math.max(0, a.content.length - 200)} chars]` : null,
        })),
      },
    };
  };
  const fake = (await startJsonFake(handler, '/v2')) as NewsApiFake;
  fake.apiKey = apiKey;
  fake.articles = [];
  fake.quota = null;
  fake.rateLimitNext = (n) => void (limited += n);
  return fake;
}
