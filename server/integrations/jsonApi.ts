import type { z } from 'zod';
import { sleep } from '../sleep.js';
import { IntegrationError } from './errors.js';
import type { PrivateTargets } from './guardedFetch.js';
import { exchange, joinUrl, parseJson, queryString, redactUrl, type HttpAnswer } from './http.js';

/**
 * Minimum spacing between the requests of one service, shared by every caller in the process: the
 * public metadata services ban clients that burst (MusicBrainz allows one request per second).
 */
export class Pacer {
  private queue: Promise<void> = Promise.resolve();
  private last = -Infinity;
  /** No turn before this time (epoch ms): the service said its quota is used up until then. */
  heldUntil = 0;

  constructor(readonly spacingMs: number) {}

  /** Holds every caller until `until` (a service's quota reset); an earlier hold never shortens a later one. */
  holdUntil(until: number): void {
    this.heldUntil = Math.max(this.heldUntil, until);
  }

  /**
   * Resolves when this caller may send: turns are handed out in call order, each at least
   * `spacingMs` after the previous one was actually handed out (not after it was asked for).
   */
  turn(signal?: AbortSignal): Promise<void> {
    const mine = this.queue.then(async () => {
      const wait = Math.max(this.last + this.spacingMs, this.heldUntil) - Date.now();
      if (wait > 0) await sleep(wait, signal);
      this.last = Date.now();
    });
    this.queue = mine.catch(() => undefined);
    return mine;
  }
}

const pacers = new Map<string, Pacer>();

/** One pacer per service and base URL, so two clients of the same upstream share its budget. */
export function pacerFor(service: string, baseUrl: string, spacingMs: number): Pacer {
  const key = `${service} ${new URL(baseUrl).host}`;
  let pacer = pacers.get(key);
  if (!pacer || pacer.spacingMs !== spacingMs) {
    pacer = new Pacer(spacingMs);
    pacers.set(key, pacer);
  }
  return pacer;
}

export interface JsonApiOptions {
  service: string;
  label: string;
  baseUrl: string;
  userAgent: string;
  spacingMs: number;
  timeoutMs: number;
  /** Further attempts after a 408/425/429/5xx or a lost connection. */
  retries: number;
  /** First retry wait; doubles each time. A Retry-After header (capped at 30 s) wins. */
  retryBaseMs: number;
  /** Extra headers (API keys). */
  headers?: Record<string, string>;
  /** Statuses that mean "slow down" for this service besides 429 (MusicBrainz: 503). */
  rateLimitStatuses?: number[];
  /**
   * Services that report errors inside a JSON body (Last.fm, Deezer; sometimes with HTTP 200): the
   * HTTP status that body error amounts to and our own words for it (never the remote text), or
   * null when the body is no error.
   */
  bodyError?: (body: unknown, status: number) => { status: number; message: string } | null;
  /**
   * Services that announce their quota in headers (ListenBrainz: X-RateLimit-Remaining and
   * X-RateLimit-Reset-In): what is left and when the window resets. With nothing left, every caller
   * of this service waits for the reset (up to `maxHoldMs`, else fails as rate_limited at once).
   */
  quota?: (answer: HttpAnswer) => { remaining: number; resetInMs: number } | null;
  /** The longest a request waits for a quota reset before failing; default 30 s. */
  maxHoldMs?: number;
  /** Default `'lan'` (fixed public services and services the user runs); public content passes the allow-list. */
  allowPrivateTargets?: PrivateTargets;
}

export interface JsonRequest<T> {
  path: string;
  query?: Record<string, unknown>;
  schema: z.ZodType<T>;
  signal?: AbortSignal;
  /** Default GET. Writes (Last.fm's signed POST, ListenBrainz submit-listens) send a body. */
  method?: 'GET' | 'POST';
  /** A string is sent as is (with `contentType`), anything else as JSON. */
  body?: unknown;
  contentType?: string;
}

const retryStatuses = new Set([408, 425, 429, 500, 502, 503, 504]);
const retryKinds = new Set(['unreachable', 'timeout']);

/**
 * A read-only JSON web API with the client rules every metadata service shares: a meaningful
 * User-Agent, client-side spacing, a timeout per attempt, retries with backoff on transient
 * answers, and one error type whose kind the HTTP layer maps to 502/503.
 */
export class JsonApi {
  private readonly pacer: Pacer;

  constructor(readonly options: JsonApiOptions) {
    this.pacer = pacerFor(options.service, options.baseUrl, options.spacingMs);
  }

  async get<T>(req: JsonRequest<T>): Promise<T> {
    return (await this.request(req, false)) as T;
  }

  /** A write (POST with a body); retried like a read only when the client was built with retries. */
  async send<T>(req: JsonRequest<T>): Promise<T> {
    return (await this.request({ method: 'POST', ...req }, false)) as T;
  }

  /** Like `get`, but a 204 No Content (ListenBrainz: "not computed yet") answers null instead of failing. */
  async getOrEmpty<T>(req: JsonRequest<T>): Promise<T | null> {
    return this.request(req, true);
  }

  private async request<T>(req: JsonRequest<T>, emptyOk: boolean): Promise<T | null> {
    const { retries, retryBaseMs } = this.options;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(req, emptyOk);
      } catch (err) {
        const retryable =
          err instanceof IntegrationError &&
          (retryKinds.has(err.kind) || (err.status !== undefined && retryStatuses.has(err.status)));
        if (!retryable || attempt >= retries || req.signal?.aborted) throw err;
        const hinted = (err.details as { retryAfterMs?: number } | undefined)?.retryAfterMs;
        await sleep(hinted ?? retryBaseMs * 2 ** attempt, req.signal);
      }
    }
  }

  private async once<T>(req: JsonRequest<T>, emptyOk: boolean): Promise<T | null> {
    const o = this.options;
    const url = joinUrl(o.baseUrl, req.path) + queryString(req.query);
    const held = this.pacer.heldUntil - Date.now();
    // Not retried (no status): waiting out the window here would hold the caller for too long.
    if (held > (o.maxHoldMs ?? 30_000)) {
      throw new IntegrationError(o.service, 'rate_limited', `${o.label}'s request quota is used up for ${Math.ceil(held / 1000)} s more (rate limited)`, undefined, { retryAfterMs: held });
    }
    await this.pacer.turn(req.signal);
    const answer = await exchange({
      service: o.service,
      label: o.label,
      url,
      headers: { 'User-Agent': o.userAgent, ...o.headers, ...(req.contentType && { 'Content-Type': req.contentType }) },
      timeoutMs: o.timeoutMs,
      ...(req.method && { method: req.method }),
      ...(req.body !== undefined && { body: req.body }),
      ...(o.allowPrivateTargets && { allowPrivateTargets: o.allowPrivateTargets }),
      ...(req.signal && { signal: req.signal }),
    });
    const quota = o.quota?.(answer) ?? null;
    if (quota && quota.remaining <= 0) this.pacer.holdUntil(Date.now() + quota.resetInMs);
    if (emptyOk && answer.status === 204) return null;
    const ok = answer.status >= 200 && answer.status < 300;
    let body: unknown;
    if (o.bodyError) {
      try {
        body = parseJson(o.service, answer);
      } catch (err) {
        // A non-JSON error page is judged by its status below.
        if (ok) throw err;
      }
      const failure = body === undefined ? null : o.bodyError(body, answer.status);
      if (failure) throw this.statusError(url, { ...answer, status: failure.status }, failure.message);
    }
    if (ok) {
      const parsed = req.schema.safeParse(o.bodyError ? body : parseJson(o.service, answer));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new IntegrationError(o.service, 'bad_response', `${o.label} answered ${redactUrl(url)} with an unexpected shape (${issue.path.join('.')}: ${issue.message})`, answer.status);
      }
      return parsed.data;
    }
    throw this.statusError(url, answer);
  }

  private statusError(url: string, answer: HttpAnswer, reported?: string): IntegrationError {
    const o = this.options;
    const where = reported
      ? `${o.label} reported ${reported} for ${redactUrl(url)}`
      : `${o.label} answered ${answer.status} for ${redactUrl(url)}`;
    const announced = answer.status === 429 ? o.quota?.(answer)?.resetInMs : undefined;
    const retryAfter = retryAfterMs(answer) ?? (announced === undefined ? undefined : Math.min(30_000, Math.max(0, announced)));
    if (answer.status === 429 || o.rateLimitStatuses?.includes(answer.status))
      return new IntegrationError(o.service, 'rate_limited', `${where} (rate limited)`, answer.status, { retryAfterMs: retryAfter });
    if (answer.status === 404) return new IntegrationError(o.service, 'not_found', where, 404);
    if (answer.status === 401 || answer.status === 403) return new IntegrationError(o.service, 'unauthorized', `${where} (refused)`, answer.status);
    if (answer.status === 400 || answer.status === 422) return new IntegrationError(o.service, 'bad_request', where, answer.status);
    if (answer.status >= 500 || answer.status === 408 || answer.status === 425)
      return new IntegrationError(o.service, 'server_error', where, answer.status, { retryAfterMs: retryAfter });
    return new IntegrationError(o.service, 'bad_response', where, answer.status);
  }
}

function retryAfterMs(answer: HttpAnswer): number | undefined {
  const header = answer.retryAfter;
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(30_000, Math.max(0, ms)) : undefined;
}
