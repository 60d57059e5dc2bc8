import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl, type HttpAnswer } from '../http.js';

export const SERVICE = 'prowlarr';

export interface ProwlarrClientOptions {
  /** Prowlarr's address including any URL base; `/api/v1` is appended. */
  baseUrl: string;
  apiKey: string;
  /** Per-request timeout; default 45 s (searches fan out to every indexer). */
  timeoutMs?: number;
  /** Wait before the single retry after a 5xx or a lost connection; default 500 ms. */
  retryDelayMs?: number;
}

export const systemStatusSchema = z.looseObject({ appName: z.string().optional(), version: z.string() });
export type ProwlarrStatus = z.infer<typeof systemStatusSchema>;

const categorySchema = z.looseObject({ id: z.number(), name: z.string().optional() });

export const indexerSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  definitionName: z.string().optional(),
  enable: z.boolean(),
  protocol: z.string(),
  priority: z.number().optional(),
  supportsSearch: z.boolean().optional(),
  capabilities: z.looseObject({ categories: z.array(categorySchema).optional() }).optional(),
});
export type ProwlarrIndexer = z.infer<typeof indexerSchema>;

export const searchResultSchema = z.looseObject({
  guid: z.string(),
  indexerId: z.number(),
  indexer: z.string(),
  title: z.string(),
  size: z.number(),
  publishDate: z.string().optional(),
  downloadUrl: z.string().optional(),
  infoUrl: z.string().optional(),
  protocol: z.string(),
  categories: z.array(categorySchema).default([]),
});
export type ProwlarrResult = z.infer<typeof searchResultSchema>;

export interface SearchQuery {
  query: string;
  /** Newznab categories; default audio (3000). */
  categories?: number[];
  indexerIds?: number[];
  limit?: number;
  offset?: number;
}

/** A search result ready to hand to SABnzbd or NZBGet: usenet, with an absolute NZB URL. */
export interface UsenetRelease extends ProwlarrResult {
  downloadUrl: string;
}

const transient = new Set(['unreachable', 'server_error']);

/** Prowlarr's v1 API (external-services.md (k)): status, indexers, search. */
export class ProwlarrClient {
  readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: ProwlarrClientOptions) {
    this.apiUrl = joinUrl(options.baseUrl, '/api/v1');
    this.timeoutMs = options.timeoutMs ?? 45_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  async status(): Promise<ProwlarrStatus> {
    const status = await this.get('/system/status', undefined, systemStatusSchema);
    if (status.appName !== undefined && status.appName.toLowerCase() !== 'prowlarr') {
      throw new IntegrationError(SERVICE, 'wrong_url', `not Prowlarr at this URL: the service calls itself ${status.appName.slice(0, 40)}`);
    }
    return status;
  }

  indexers(): Promise<ProwlarrIndexer[]> {
    return this.get('/indexer', undefined, z.array(indexerSchema));
  }

  search(q: SearchQuery): Promise<ProwlarrResult[]> {
    return this.get(
      '/search',
      {
        query: q.query,
        type: 'search',
        indexerIds: q.indexerIds,
        categories: q.categories ?? [3000],
        limit: q.limit ?? 60,
        offset: q.offset,
      },
      z.array(searchResultSchema),
    );
  }

  /** Usenet results with a download URL, made absolute against Prowlarr's address. */
  async searchUsenet(q: SearchQuery): Promise<UsenetRelease[]> {
    const results = await this.search(q);
    return results
      .filter((r) => r.protocol === 'usenet' && r.downloadUrl && r.title)
      .map((r) => ({ ...r, downloadUrl: new URL(r.downloadUrl!, this.options.baseUrl.replace(/\/*$/, '/')).toString() }));
  }

  private async get<T>(path: string, query: Record<string, unknown> | undefined, schema: z.ZodType<T>): Promise<T> {
    try {
      return await this.attempt(path, query, schema);
    } catch (err) {
      if (!(err instanceof IntegrationError) || !transient.has(err.kind)) throw err;
      await new Promise((r) => setTimeout(r, this.retryDelayMs));
      return await this.attempt(path, query, schema);
    }
  }

  private async attempt<T>(path: string, query: Record<string, unknown> | undefined, schema: z.ZodType<T>): Promise<T> {
    const url = this.apiUrl + path + queryString(query);
    const answer = await exchange({ service: SERVICE, label: 'Prowlarr', url, headers: { 'X-Api-Key': this.options.apiKey }, timeoutMs: this.timeoutMs });
    return interpret(path, url, answer, schema);
  }
}

function interpret<T>(path: string, url: string, answer: HttpAnswer, schema: z.ZodType<T>): T {
  const { status } = answer;
  const where = redactUrl(url);
  if (status === 401 || status === 403) throw new IntegrationError(SERVICE, 'unauthorized', `Prowlarr rejected the API key (${status})`, status);
  if (looksLikeHtml(answer)) {
    throw new IntegrationError(SERVICE, 'wrong_url', `not Prowlarr at this URL: ${where} answered with a web page (check the URL and its URL base)`, status);
  }
  if (status === 429) throw new IntegrationError(SERVICE, 'rate_limited', `Prowlarr is rate limiting ${path} (429)`, status);
  if (status >= 500) throw new IntegrationError(SERVICE, 'server_error', `Prowlarr failed on ${path} (HTTP ${status})`, status);
  if (status === 400 || status === 422) throw new IntegrationError(SERVICE, 'bad_request', `Prowlarr refused ${path} (HTTP ${status})`, status);
  if (status === 404) throw new IntegrationError(SERVICE, 'wrong_url', `not Prowlarr at this URL: ${where} answered HTTP 404 (check the URL and its URL base)`, status);
  if (status < 200 || status >= 300) throw new IntegrationError(SERVICE, 'bad_response', `Prowlarr answered ${path} with HTTP ${status}`, status);
  const parsed = schema.safeParse(parseJson(SERVICE, answer));
  if (!parsed.success) {
    throw new IntegrationError(SERVICE, 'bad_response', `Prowlarr's answer to ${path} has an unexpected shape`, status, parsed.error.issues.slice(0, 5));
  }
  return parsed.data;
}
