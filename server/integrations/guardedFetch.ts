import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { allowListOf, guardedLookup, hostOf, redactUrl, refusalFor, TargetRefusedError, type PrivateTargets } from './targets.js';

export { isNeverAllowedAddress, isPrivateAddress, type PrivateTargets } from './targets.js';

/**
 * Every outgoing HTTP request of the product (integration clients, podcast feeds and enclosures)
 * goes through `guardedRequest`: the address guard runs in the socket's own lookup and again on
 * every redirect hop, redirects stay on the first URL's origin unless the caller asks otherwise,
 * and failures say what happened without quoting the remote body.
 */
export interface GuardedRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** `'lan'` for services the user runs, or the hosts that may be private (ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: PrivateTargets;
  /**
   * `'same-origin'` (default): a redirect to another scheme, host or port is refused, so credentials
   * meant for a service never reach another host. `'any'` for public content whose hosts move
   * (feeds, enclosures); headers other than Accept and User-Agent are dropped on a change of origin.
   */
  redirects?: 'same-origin' | 'any';
  maxRedirects?: number;
  /** Idle time allowed between bytes (and for the connection and headers). */
  timeoutMs: number;
  /** Bodies larger than this are refused (by Content-Length, or when reading passes it). */
  maxBytes: number;
  signal?: AbortSignal;
}

export type RefusalReason = 'url' | 'address' | 'redirect' | 'too_many_redirects';
export type FailureReason = 'network' | 'timeout' | 'status' | 'too_large' | 'transfer' | 'aborted';

/** The URL may not be fetched (scheme, refused address, redirect elsewhere or in a loop); the message says why. */
export class FetchRefusedError extends Error {
  override readonly name = 'FetchRefusedError';
  constructor(
    message: string,
    readonly reason: RefusalReason = 'url',
  ) {
    super(message);
  }
}

/** The fetch was allowed but failed (network, timeout, HTTP status, size). */
export class FetchFailedError extends Error {
  override readonly name = 'FetchFailedError';
  constructor(
    message: string,
    readonly reason: FailureReason = 'network',
    /** Node's error code for network failures (ECONNREFUSED, …). */
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface GuardedResponse {
  /** The final URL after redirects. */
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Limited to maxBytes; errors with FetchFailedError past it or after an idle timeout. */
  body: AsyncIterable<Buffer>;
  /** Stops reading and frees the connection. */
  abort(): void;
}

/**
 * Keep-alive agents for LAN services only. Requests under an allow-list get a fresh connection, so a
 * socket opened under the LAN policy is never reused for a URL the allow-list would refuse.
 */
// An idle socket is dropped after 4 s, before a peer with Node's default 5 s keep-alive closes it:
// reusing a connection the other side has just closed fails the request with "connection reset".
const lanAgents = { http: new http.Agent({ keepAlive: true, timeout: 4000 }), https: new https.Agent({ keepAlive: true, timeout: 4000 }) };

function checkUrl(raw: string, allowed: Set<string> | 'lan'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefusedError(`Not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new FetchRefusedError('URLs with credentials are not fetched');
  const host = hostOf(url);
  if (net.isIP(host) !== 0) {
    const refused = refusalFor(url, host, allowed);
    if (refused) throw new FetchRefusedError(refused.message, 'address');
  }
  return url;
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function requestOnce(hop: Hop, req: GuardedRequest, allowed: Set<string> | 'lan'): Promise<http.IncomingMessage> {
  const { url } = hop;
  const https_ = url.protocol === 'https:';
  const client = https_ ? https : http;
  const agent = allowed === 'lan' ? (https_ ? lanAgents.https : lanAgents.http) : false;
  const headers: Record<string, string> = { 'User-Agent': 'Tonearm', Accept: '*/*', ...hop.headers };
  if (hop.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(hop.body));
  const shown = redactUrl(url.href);
  return new Promise((resolve, reject) => {
    const r = client.request(
      url,
      {
        method: hop.method,
        headers,
        agent,
        lookup: guardedLookup(url, allowed),
        timeout: req.timeoutMs,
        ...(req.signal && { signal: req.signal }),
      },
      resolve,
    );
    r.on('timeout', () => r.destroy(new FetchFailedError(`${shown} did not answer within ${req.timeoutMs} ms`, 'timeout')));
    r.on('error', (err) => {
      if (err instanceof FetchRefusedError || err instanceof FetchFailedError) return reject(err);
      if (err instanceof TargetRefusedError) return reject(new FetchRefusedError(err.message, 'address'));
      if (err.name === 'AbortError') return reject(new FetchFailedError(`${shown}: request cancelled`, 'aborted'));
      const code = (err as NodeJS.ErrnoException).code;
      reject(new FetchFailedError(`Could not fetch ${shown}: ${code ?? err.message}`, 'network', code));
    });
    r.end(hop.body);
  });
}

async function* limited(res: http.IncomingMessage, url: string, maxBytes: number, timeoutMs: number): AsyncGenerator<Buffer> {
  let total = 0;
  res.setTimeout(timeoutMs, () => res.destroy(new FetchFailedError(`${url} stopped sending data for ${timeoutMs} ms`, 'timeout')));
  try {
    for await (const chunk of res) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) throw new FetchFailedError(`${url} is larger than the ${maxBytes} bytes allowed`, 'too_large');
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof FetchFailedError) throw err;
    const aborted = (err as Error).name === 'AbortError';
    throw new FetchFailedError(`${url}: the transfer ${aborted ? 'was cancelled' : 'failed'}`, aborted ? 'aborted' : 'transfer', (err as NodeJS.ErrnoException).code);
  } finally {
    res.destroy();
  }
  if (!res.complete) throw new FetchFailedError(`${url}: the transfer ended early`, 'transfer');
}

/** The next hop of a redirect: 303 (and 301/302 after a POST) become a GET without body, as browsers do. */
function redirected(hop: Hop, status: number, target: URL, keepHeaders: boolean): Hop {
  const toGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
  const headers = keepHeaders
    ? hop.headers
    : Object.fromEntries(Object.entries(hop.headers).filter(([k]) => /^(accept|user-agent)$/i.test(k)));
  if (toGet) {
    const { 'Content-Type': _type, 'content-type': _lower, ...rest } = headers;
    return { url: target, method: 'GET', headers: rest, body: undefined };
  }
  return { url: target, method: hop.method, headers, body: hop.body };
}

/**
 * One request with the guard applied to the URL and every redirect. Answers of any status other
 * than a followed redirect are returned; what a status means is the caller's business.
 */
export async function guardedRequest(req: GuardedRequest): Promise<GuardedResponse> {
  const allowed = allowListOf(req.allowPrivateTargets);
  const first = checkUrl(req.url, allowed);
  const maxRedirects = req.maxRedirects ?? 5;
  let hop: Hop = { url: first, method: req.method ?? 'GET', headers: req.headers ?? {}, body: req.body };
  for (let count = 0; ; count++) {
    const res = await requestOnce(hop, req, allowed);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && status !== 304 && location) {
      res.resume();
      if (count >= maxRedirects) {
        throw new FetchRefusedError(`${redactUrl(req.url)} redirects more than ${maxRedirects} times`, 'too_many_redirects');
      }
      let target: URL;
      try {
        target = new URL(location, hop.url);
      } catch {
        throw new FetchRefusedError(`${redactUrl(hop.url.href)} redirects to an invalid URL`, 'redirect');
      }
      if (target.origin !== first.origin && (req.redirects ?? 'same-origin') === 'same-origin') {
        throw new FetchRefusedError(
          `${redactUrl(hop.url.href)} redirects to another host (${target.origin}); only redirects within ${first.origin} are followed`,
          'redirect',
        );
      }
      hop = redirected(hop, status, checkUrl(target.href, allowed), target.origin === hop.url.origin);
      continue;
    }
    const shown = redactUrl(hop.url.href);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > req.maxBytes) {
      res.destroy();
      throw new FetchFailedError(`${shown} is ${declared} bytes, more than the ${req.maxBytes} allowed`, 'too_large');
    }
    return { url: hop.url.href, status, headers: res.headers, body: limited(res, shown, req.maxBytes, req.timeoutMs), abort: () => res.destroy() };
  }
}

/** GET with the guard; non-2xx answers are FetchFailedErrors naming the status. */
export async function guardedGet(req: GuardedRequest): Promise<GuardedResponse> {
  const res = await guardedRequest({ ...req, method: 'GET' });
  if (res.status < 200 || res.status >= 300) {
    res.abort();
    throw new FetchFailedError(`${redactUrl(res.url)} answered HTTP ${res.status}`, 'status');
  }
  return res;
}

/** A whole (small) body as text, e.g. a feed. */
export async function guardedGetText(req: GuardedRequest): Promise<{ url: string; contentType: string; text: string }> {
  const res = await guardedGet(req);
  return { url: res.url, contentType: String(res.headers['content-type'] ?? ''), text: await readText(res) };
}

/** Reads a response body to the end (within its maxBytes) as UTF-8. */
export async function readText(res: GuardedResponse): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
