import { IntegrationError } from './errors.js';
import { FetchFailedError, FetchRefusedError, guardedRequest, readText, type PrivateTargets } from './guardedFetch.js';
import { redactUrl } from './targets.js';

export { redactUrl } from './targets.js';

/**
 * One HTTP exchange with an external service, through the guarded request every outgoing call
 * uses: a timeout that covers the whole exchange (headers and body), redirects only within the
 * configured origin, link-local and metadata addresses refused, and failures turned into
 * IntegrationErrors that never quote the remote body. Status codes are left to the caller,
 * because what a 404 or a 200 HTML page means differs per service.
 */
export interface HttpExchange {
  service: string;
  /** How messages name the service, e.g. `Lidarr`; defaults to `service`. */
  label?: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Serialised as JSON when not a string. */
  body?: unknown;
  timeoutMs: number;
  /** Services the user runs live on the LAN (default `'lan'`); public-only callers pass the allow-list. */
  allowPrivateTargets?: PrivateTargets;
  /** Answers larger than this fail as bad_response; default 256 MiB. */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The Retry-After header of a 429/503, when sent. */
  retryAfter?: string | null;
  /** All response headers (lower-case names), for services that report quotas in them. */
  headers?: Record<string, string | string[] | undefined>;
}

/** Node's error codes for "the request never got an answer", in words a user can act on. */
const networkCauses: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed by the server',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
};

export async function exchange(req: HttpExchange): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  const headers: Record<string, string> = { Accept: 'application/json', ...req.headers };
  let body: string | undefined;
  if (req.body !== undefined) {
    body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    headers['Content-Type'] ??= 'application/json';
  }
  try {
    const res = await guardedRequest({
      url: req.url,
      method: req.method ?? 'GET',
      headers,
      body,
      allowPrivateTargets: req.allowPrivateTargets ?? 'lan',
      redirects: 'same-origin',
      timeoutMs: req.timeoutMs,
      maxBytes: req.maxBytes ?? 256 * 1024 * 1024,
      signal,
    });
    const text = await readText(res);
    const retryAfter = res.headers['retry-after'];
    return { status: res.status, contentType: String(res.headers['content-type'] ?? ''), text, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, headers: res.headers };
  } catch (err) {
    throw exchangeError(req, err, timeout.aborted);
  }
}

function exchangeError(req: HttpExchange, err: unknown, timedOut: boolean): IntegrationError {
  const label = req.label ?? req.service;
  const where = `${label} at ${redactUrl(req.url)}`;
  if (timedOut || (err instanceof FetchFailedError && err.reason === 'timeout')) {
    return new IntegrationError(req.service, 'timeout', `${where} timed out after ${req.timeoutMs} ms`);
  }
  if (err instanceof FetchRefusedError) {
    // A refused address is the configuration's fault; a redirect elsewhere means this is not the service's address.
    if (err.reason === 'address' || err.reason === 'url') return new IntegrationError(req.service, 'refused', err.message);
    return new IntegrationError(req.service, 'wrong_url', `${label}: ${err.message}`);
  }
  if (err instanceof FetchFailedError) {
    if (err.reason === 'aborted') return new IntegrationError(req.service, 'timeout', `${where}: request cancelled`);
    if (err.reason === 'too_large') return new IntegrationError(req.service, 'bad_response', `${label}: ${err.message}`);
    const cause = (err.code && networkCauses[err.code]) ?? (err.reason === 'transfer' ? 'the connection broke during the answer' : err.code ?? 'network error');
    return new IntegrationError(req.service, 'unreachable', `${where}: ${cause}`, undefined, { code: err.code });
  }
  return new IntegrationError(req.service, 'unreachable', `${where}: ${err instanceof Error ? err.message : String(err)}`);
}

/** Parses a JSON body; anything else is a bad_response (without quoting the body). */
export function parseJson(service: string, answer: HttpAnswer): unknown {
  if (answer.text.trim() === '') return undefined;
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new IntegrationError(
      service,
      'bad_response',
      `${service} answered HTTP ${answer.status} with a body that is not JSON${answer.contentType ? ` (${answer.contentType.split(';')[0]})` : ''}`,
      answer.status,
    );
  }
}

export function looksLikeHtml(answer: HttpAnswer): boolean {
  if (answer.contentType.includes('text/html')) return true;
  return /^\s*<(!doctype|html)/i.test(answer.text);
}

/** Joins a configured base URL (which may carry a URL base and a trailing slash) and a path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

/** Builds a query string; arrays become repeated keys, undefined values are skipped. */
export function queryString(params: Record<string, unknown> | undefined): string {
  if (!params) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, String(v));
    else search.append(key, String(value));
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}
