import type { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl, type HttpAnswer } from '../http.js';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { validationFailureSchema } from './schemas.js';

export const SERVICE = 'lidarr';

export interface LidarrTransportOptions {
  /** Lidarr's address including any URL base, e.g. `http://nas:8686/lidarr`; `/api/v1` is appended. */
  baseUrl: string;
  apiKey: string;
  /** Per-request timeout; default 15 s. */
  timeoutMs?: number;
  /** Requests in flight at once, shared by every caller of this client; default 8. */
  maxConcurrent?: number;
  /** Wait before the single retry after a 5xx or a lost connection; default 500 ms. */
  retryDelayMs?: number;
  breaker?: CircuitBreakerOptions;
  /** Every request as `LidarrRequest.quoteNothing`: for clients built for a URL anyone may type (onboarding). */
  quoteNothing?: boolean;
}

export interface LidarrRequest<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under `/api/v1`, e.g. `/artist/3`. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Validates and types the answer; omitted for calls whose answer we ignore. */
  schema?: z.ZodType<T>;
  /** Connection tests must work while the breaker is open: the user may just have fixed the URL. */
  bypassBreaker?: boolean;
  /**
   * Connection tests run against any URL a user types (onboarding is open to the LAN): their errors
   * name the status and never quote what the server answered.
   */
  quoteNothing?: boolean;
}

/** Outcomes that say "Lidarr is not answering properly", as opposed to "Lidarr refused this request". */
const transientKinds = new Set(['unreachable', 'timeout', 'server_error', 'wrong_url']);

export class LidarrTransport {
  readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  private readonly breaker: CircuitBreaker;
  private readonly limit: ConcurrencyLimit;

  constructor(private readonly options: LidarrTransportOptions) {
    this.apiUrl = joinUrl(options.baseUrl, '/api/v1');
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.breaker = new CircuitBreaker(options.breaker);
    this.limit = new ConcurrencyLimit(options.maxConcurrent ?? 8);
  }

  get circuitOpen(): boolean {
    return this.breaker.isOpen;
  }

  async request<T>(req: LidarrRequest<T>): Promise<T> {
    if (!req.bypassBreaker && this.breaker.isOpen) {
      const seconds = Math.ceil(this.breaker.retryInMs / 1000);
      throw new IntegrationError(
        SERVICE,
        'circuit_open',
        `Lidarr failed repeatedly; not calling it again for ${seconds} s`,
      );
    }
    try {
      const result = await this.withRetry(req);
      this.breaker.recordSuccess();
      return result;
    } catch (err) {
      if (err instanceof IntegrationError && transientKinds.has(err.kind)) this.breaker.recordFailure();
      else this.breaker.recordSuccess();
      throw err;
    }
  }

  private async withRetry<T>(req: LidarrRequest<T>): Promise<T> {
    try {
      return await this.attempt(req);
    } catch (err) {
      if (!this.retryable(req, err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
      return await this.attempt(req);
    }
  }

  /**
   * One retry on a 5xx or a lost connection. A POST is retried only when the connection was refused,
   * because otherwise Lidarr may already have acted on it (an artist added twice answers 400).
   */
  private retryable(req: LidarrRequest<unknown>, err: unknown): boolean {
    if (!(err instanceof IntegrationError)) return false;
    const refused = (err.details as { code?: string } | undefined)?.code === 'ECONNREFUSED';
    if ((req.method ?? 'GET') === 'POST') return refused;
    return err.kind === 'server_error' || err.kind === 'unreachable';
  }

  private async attempt<T>(req: LidarrRequest<T>): Promise<T> {
    const url = this.apiUrl + req.path + queryString(req.query);
    const answer = await this.limit.run(() =>
      exchange({
        service: SERVICE,
        label: 'Lidarr',
        url,
        method: req.method ?? 'GET',
        headers: { 'X-Api-Key': this.options.apiKey },
        body: req.body,
        timeoutMs: this.timeoutMs,
      }),
    );
    return this.interpret(req, url, answer);
  }

  private interpret<T>(req: LidarrRequest<T>, url: string, answer: HttpAnswer): T {
    const where = redactUrl(url);
    if (answer.status >= 200 && answer.status < 300) {
      if (looksLikeHtml(answer)) throw wrongUrl(where, answer.status);
      const body = parseJson(SERVICE, answer);
      if (!req.schema) return undefined as T;
      const parsed = req.schema.safeParse(body);
      if (!parsed.success) {
        throw new IntegrationError(
          SERVICE,
          'bad_response',
          `Lidarr's answer to ${req.method ?? 'GET'} ${req.path} has an unexpected shape`,
          answer.status,
          parsed.error.issues.slice(0, 5),
        );
      }
      return parsed.data;
    }
    throw req.quoteNothing || this.options.quoteNothing ? quietStatusError(req, where, answer.status) : statusError(req, where, answer);
  }
}

function wrongUrl(where: string, status: number): IntegrationError {
  return new IntegrationError(
    SERVICE,
    'wrong_url',
    `not Lidarr at this URL: ${where} answered with a web page, not Lidarr's API (check the URL and its URL base)`,
    status,
  );
}

/** A failure described by the status alone, for tests and URLs anyone may type. */
function quietStatusError(req: LidarrRequest<unknown>, where: string, status: number): IntegrationError {
  if (status === 401 || status === 403) {
    return new IntegrationError(SERVICE, 'unauthorized', `Lidarr rejected the API key (${status})`, status);
  }
  if (status === 429) return new IntegrationError(SERVICE, 'rate_limited', `Lidarr is rate limiting ${req.path} (429)`, status);
  if (status >= 500) return new IntegrationError(SERVICE, 'server_error', `Lidarr failed on ${req.method ?? 'GET'} ${req.path} (HTTP ${status})`, status);
  return new IntegrationError(
    SERVICE,
    'wrong_url',
    `not Lidarr at this URL: ${where} answered HTTP ${status} (check the URL and its URL base)`,
    status,
  );
}

function statusError(req: LidarrRequest<unknown>, where: string, answer: HttpAnswer): IntegrationError {
  const { status } = answer;
  const call = `${req.method ?? 'GET'} ${req.path}`;
  if (status === 401 || status === 403) {
    return new IntegrationError(SERVICE, 'unauthorized', `Lidarr rejected the API key (${status})`, status);
  }
  if (looksLikeHtml(answer)) return wrongUrl(where, status);
  const body = safeJson(answer.text);
  const message = lidarrMessage(body);
  if (status === 404) {
    return new IntegrationError(SERVICE, 'not_found', `Lidarr has no such resource: ${call}`, status);
  }
  if (status === 400 || status === 422) {
    // Only Lidarr's own error shapes are passed on, never raw text: the details reach the client.
    const failures = validationFailureSchema.array().safeParse(body);
    const text = failures.success
      ? failures.data.map((f) => f.errorMessage).join('; ')
      : (message ?? `request rejected (HTTP ${status})`);
    return new IntegrationError(SERVICE, 'bad_request', `Lidarr refused ${call}: ${text}`, status, failures.success ? failures.data : undefined);
  }
  if (status === 429) {
    return new IntegrationError(SERVICE, 'rate_limited', `Lidarr is rate limiting ${call}`, status);
  }
  if (status >= 500) {
    // Lookups proxy to Lidarr's metadata server; its outage is a different fix from Lidarr's own.
    const metadataDown = answer.text.includes('api.lidarr.audio');
    const text = metadataDown
      ? "Lidarr cannot reach its metadata server (api.lidarr.audio)"
      : `Lidarr failed on ${call} (${status})${message ? `: ${message}` : ''}`;
    return new IntegrationError(SERVICE, 'server_error', text, status);
  }
  return new IntegrationError(SERVICE, 'bad_response', `Lidarr answered ${call} with ${status}`, status);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Lidarr's non-validation errors are JSON `{message, description}`; be lenient about the key. */
function lidarrMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    for (const key of ['message', 'error', 'title', 'detail']) {
      if (typeof b[key] === 'string') return (b[key] as string).slice(0, 300);
    }
  }
  return undefined;
}
