import type { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl, type HttpAnswer } from '../http.js';
import { CircuitBreaker, type CircuitBreakerOptions } from '../lidarr/circuit-breaker.js';
import { ConcurrencyLimit } from '../lidarr/concurrency-limit.js';
import { normaliseKeys } from './schemas.js';

export const SERVICE = 'slskd';

export interface SlskdTransportOptions {
  /** slskd's address including any URL base, e.g. `http://nas:5030`; `/api/v0` is appended. */
  baseUrl: string;
  /** Empty when slskd runs without authentication: no `X-API-KEY` header is sent then. */
  apiKey: string;
  /** Per-request timeout; default 15 s. */
  timeoutMs?: number;
  /** Requests in flight at once; default 4. */
  maxConcurrent?: number;
  /** Wait before the single retry after a 5xx or a lost connection; default 500 ms. */
  retryDelayMs?: number;
  /** First wait after a 429 on a call that may be retried (doubles each time, or Retry-After); default 30 s. */
  rateLimitDelayMs?: number;
  /** How many times a 429 is retried; default 2. */
  rateLimitRetries?: number;
  breaker?: CircuitBreakerOptions;
}

export interface SlskdRequest<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under `/api/v0`, e.g. `/searches`. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  schema?: z.ZodType<T>;
  /** Retry 429s with back-off (search creation and enqueue, which slskd throttles). */
  retryRateLimit?: boolean;
  /** Statuses that are an answer rather than a failure (e.g. 404 on DELETE of a search already gone). */
  accept?: number[];
  bypassBreaker?: boolean;
}

/** Outcomes that say "slskd is not answering properly", as opposed to "slskd refused this request". */
const transientKinds = new Set(['unreachable', 'timeout', 'server_error', 'wrong_url']);

export class SlskdTransport {
  readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  private readonly rateLimitDelayMs: number;
  private readonly rateLimitRetries: number;
  private readonly breaker: CircuitBreaker;
  private readonly limit: ConcurrencyLimit;

  constructor(private readonly options: SlskdTransportOptions) {
    this.apiUrl = joinUrl(options.baseUrl, '/api/v0');
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.rateLimitDelayMs = options.rateLimitDelayMs ?? 30_000;
    this.rateLimitRetries = options.rateLimitRetries ?? 2;
    this.breaker = new CircuitBreaker(options.breaker);
    this.limit = new ConcurrencyLimit(options.maxConcurrent ?? 4);
  }

  get circuitOpen(): boolean {
    return this.breaker.isOpen;
  }

  async request<T>(req: SlskdRequest<T>): Promise<T> {
    if (!req.bypassBreaker && this.breaker.isOpen) {
      const seconds = Math.ceil(this.breaker.retryInMs / 1000);
      throw new IntegrationError(SERVICE, 'circuit_open', `slskd failed repeatedly; not calling it again for ${seconds} s`);
    }
    try {
      const result = await this.withRetry(req);
      this.breaker.recordSuccess();
      return result;
    } catch (err) {
      // 409 (not connected to Soulseek) is slskd answering properly about the network behind it.
      if (err instanceof IntegrationError && transientKinds.has(err.kind) && err.status !== 409) this.breaker.recordFailure();
      else this.breaker.recordSuccess();
      throw err;
    }
  }

  private async withRetry<T>(req: SlskdRequest<T>): Promise<T> {
    let rateLimited = 0;
    let retriedFailure = false;
    for (;;) {
      try {
        return await this.attempt(req);
      } catch (err) {
        if (!(err instanceof IntegrationError)) throw err;
        if (err.kind === 'rate_limited' && req.retryRateLimit && rateLimited < this.rateLimitRetries) {
          await sleep(this.rateLimitWait(err, rateLimited++));
          continue;
        }
        if (!retriedFailure && this.retryable(req, err)) {
          retriedFailure = true;
          await sleep(this.retryDelayMs);
          continue;
        }
        throw err;
      }
    }
  }

  private rateLimitWait(err: IntegrationError, attempt: number): number {
    const retryAfter = Number((err.details as { retryAfter?: string } | undefined)?.retryAfter);
    if (Number.isFinite(retryAfter) && retryAfter >= 0) return Math.min(retryAfter * 1000, 120_000);
    return this.rateLimitDelayMs * 2 ** attempt;
  }

  /** One retry on a 5xx or a lost connection; a POST only when the connection was refused (slskd never saw it). */
  private retryable(req: SlskdRequest<unknown>, err: IntegrationError): boolean {
    const refused = (err.details as { code?: string } | undefined)?.code === 'ECONNREFUSED';
    if ((req.method ?? 'GET') === 'POST') return refused;
    return (err.kind === 'server_error' && err.status !== 409) || err.kind === 'unreachable';
  }

  private async attempt<T>(req: SlskdRequest<T>): Promise<T> {
    const url = this.apiUrl + req.path + queryString(req.query);
    const headers: Record<string, string> = this.options.apiKey ? { 'X-API-KEY': this.options.apiKey } : {};
    const answer = await this.limit.run(() =>
      exchange({ service: SERVICE, label: 'slskd', url, method: req.method ?? 'GET', headers, body: req.body, timeoutMs: this.timeoutMs }),
    );
    return this.interpret(req, url, answer);
  }

  private interpret<T>(req: SlskdRequest<T>, url: string, answer: HttpAnswer): T {
    const call = `${req.method ?? 'GET'} ${req.path}`;
    const ok = (answer.status >= 200 && answer.status < 300) || req.accept?.includes(answer.status);
    if (ok) {
      if (looksLikeHtml(answer)) throw wrongUrl(redactUrl(url), answer.status);
      const body = answer.status >= 300 ? undefined : normaliseKeys(parseJson(SERVICE, answer));
      if (!req.schema) return undefined as T;
      const parsed = req.schema.safeParse(body);
      if (!parsed.success) {
        throw new IntegrationError(SERVICE, 'bad_response', `slskd's answer to ${call} has an unexpected shape`, answer.status, parsed.error.issues.slice(0, 5));
      }
      return parsed.data;
    }
    // Errors name the status and the call, never what slskd answered.
    const { status } = answer;
    if (status === 401 || status === 403) return fail('unauthorized', `slskd rejected the API key (${status})`, status);
    if (status === 429) return fail('rate_limited', `slskd is rate limiting ${call} (429)`, status, { retryAfter: answer.retryAfter ?? undefined });
    if (status === 409) return fail('server_error', `slskd refused ${call}: it is not connected to the Soulseek network (409)`, status);
    if (looksLikeHtml(answer)) throw wrongUrl(redactUrl(url), status);
    if (status === 404) return fail('not_found', `slskd has no such resource: ${call}`, status);
    if (status === 400 || status === 422) return fail('bad_request', `slskd refused ${call} (HTTP ${status})`, status);
    if (status >= 500) return fail('server_error', `slskd failed on ${call} (HTTP ${status})`, status);
    return fail('bad_response', `slskd answered ${call} with HTTP ${status}`, status);
  }
}

function fail(kind: IntegrationError['kind'], message: string, status: number, details?: unknown): never {
  throw new IntegrationError(SERVICE, kind, message, status, details);
}

function wrongUrl(where: string, status: number): IntegrationError {
  return new IntegrationError(SERVICE, 'wrong_url', `not slskd at this URL: ${where} answered with a web page, not slskd's API (check the URL)`, status);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
