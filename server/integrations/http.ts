import { IntegrationError } from './errors.js';

/**
 * One HTTP exchange with an external service: a timeout that covers the whole exchange (headers and
 * body), and network failures turned into IntegrationErrors. Status codes are left to the caller,
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
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The Retry-After header of a 429/503, when sent. */
  retryAfter?: string | null;
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
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

export async function exchange(req: HttpExchange): Promise<HttpAnswer> {
  const doFetch = req.fetch ?? fetch;
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  const headers: Record<string, string> = { Accept: 'application/json', ...req.headers };
  let body: string | undefined;
  if (req.body !== undefined) {
    body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    headers['Content-Type'] ??= 'application/json';
  }
  try {
    const res = await doFetch(req.url, { method: req.method ?? 'GET', headers, body, signal });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    throw networkError(req, err, timeout.aborted);
  }
}

function networkError(req: HttpExchange, err: unknown, timedOut: boolean): IntegrationError {
  const where = `${req.label ?? req.service} at ${redactUrl(req.url)}`;
  if (timedOut) {
    return new IntegrationError(req.service, 'timeout', `${where} timed out after ${req.timeoutMs} ms`);
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new IntegrationError(req.service, 'timeout', `${where}: request cancelled`);
  }
  const code = errorCode(err);
  const cause = (code && networkCauses[code]) ?? (err instanceof Error ? err.message : String(err));
  return new IntegrationError(req.service, 'unreachable', `${where}: ${cause}`, undefined, { code });
}

/** undici wraps the socket error as `cause`, sometimes inside an AggregateError (one per address). */
function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current; depth++) {
    const c = current as { code?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof c.code === 'string') return c.code;
    if (Array.isArray(c.errors) && c.errors.length > 0) current = c.errors[0];
    else current = c.cause;
  }
  return undefined;
}

/** Parses a JSON body; anything else is a bad_response. */
export function parseJson(service: string, answer: HttpAnswer): unknown {
  if (answer.text.trim() === '') return undefined;
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new IntegrationError(
      service,
      'bad_response',
      `${service} answered with a body that is not JSON: ${answer.text.slice(0, 80)}`,
      answer.status,
    );
  }
}

export function looksLikeHtml(answer: HttpAnswer): boolean {
  if (answer.contentType.includes('text/html')) return true;
  return /^\s*<(!doctype|html)/i.test(answer.text);
}

/** Query strings carry credentials for some services (apikey, Subsonic tokens); keep them out of messages. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
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
