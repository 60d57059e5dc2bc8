import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { redactUrl } from './http.js';

/**
 * HTTP GETs of user-supplied URLs (podcast feeds and enclosures) that refuse private, loopback and
 * link-local addresses (decisions §2) unless the host is on the allow-list. The check runs in the
 * socket's own address lookup, so a name cannot resolve to a public address for the check and a
 * private one for the connection; every redirect hop is checked again.
 */
export interface GuardedRequest {
  url: string;
  /** Hosts or addresses that may be private (ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: string[];
  /** Idle time allowed between bytes (and for the connection and headers). */
  timeoutMs: number;
  /** Bodies larger than this are refused (by Content-Length, or when reading passes it). */
  maxBytes: number;
  maxRedirects?: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The URL may not be fetched (scheme, private address, redirect loop); the message says why. */
export class FetchRefusedError extends Error {
  override readonly name = 'FetchRefusedError';
}

/** The fetch was allowed but failed (network, timeout, HTTP status, size). */
export class FetchFailedError extends Error {
  override readonly name = 'FetchFailedError';
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

const privateRanges = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) privateRanges.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const)
  privateRanges.addSubnet(prefix, bits, 'ipv6');

/** Loopback, private, link-local, carrier-grade NAT, multicast or unspecified (IPv4-mapped too). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return privateRanges.check(mapped[1]!, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return privateRanges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function refusal(url: URL, address: string): FetchRefusedError {
  const host = hostOf(url);
  const what = host === address ? address : `${host} (${address})`;
  return new FetchRefusedError(
    `Refusing to fetch ${redactUrl(url.href)}: ${what} is a private or loopback address. ` +
      `Add "${host}" to ALLOW_PRIVATE_TARGETS to allow it.`,
  );
}

/** A dns.lookup that refuses private answers for hosts not on the allow-list. */
function guardedLookup(url: URL, allowed: Set<string>): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address) && !allowed.has(a.address));
      if (bad && !allowed.has(hostOf(url))) return callback(refusal(url, bad.address), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function checkUrl(raw: string, allowed: Set<string>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefusedError(`Not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new FetchRefusedError('URLs with credentials are not fetched');
  const host = hostOf(url);
  if (net.isIP(host) !== 0 && isPrivateAddress(host) && !allowed.has(host)) throw refusal(url, host);
  return url;
}

function requestOnce(url: URL, req: GuardedRequest, allowed: Set<string>): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = client.get(
      url,
      {
        headers: { 'User-Agent': 'Tonearm', Accept: '*/*', ...req.headers },
        lookup: guardedLookup(url, allowed),
        timeout: req.timeoutMs,
        ...(req.signal && { signal: req.signal }),
      },
      resolve,
    );
    r.on('timeout', () => r.destroy(new FetchFailedError(`${redactUrl(url.href)} did not answer within ${req.timeoutMs} ms`)));
    r.on('error', (err) => {
      if (err instanceof FetchRefusedError || err instanceof FetchFailedError) return reject(err);
      const code = (err as NodeJS.ErrnoException).code;
      reject(new FetchFailedError(`Could not fetch ${redactUrl(url.href)}: ${code ?? err.message}`));
    });
  });
}

async function* limited(res: http.IncomingMessage, url: string, maxBytes: number, timeoutMs: number): AsyncGenerator<Buffer> {
  let total = 0;
  res.setTimeout(timeoutMs, () => res.destroy(new FetchFailedError(`${url} stopped sending data for ${timeoutMs} ms`)));
  try {
    for await (const chunk of res) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) throw new FetchFailedError(`${url} is larger than the ${maxBytes} bytes allowed`);
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof FetchFailedError) throw err;
    throw new FetchFailedError(`${url}: the transfer failed (${(err as Error).message})`);
  } finally {
    res.destroy();
  }
  if (!res.complete) throw new FetchFailedError(`${url}: the transfer ended early`);
}

/** GET with the guard applied to the URL and every redirect. Non-2xx answers are FetchFailedErrors. */
export async function guardedGet(req: GuardedRequest): Promise<GuardedResponse> {
  const allowed = new Set(req.allowPrivateTargets.map((h) => h.trim().replace(/^\[|\]$/g, '').toLowerCase()).filter(Boolean));
  let url = checkUrl(req.url, allowed);
  const maxRedirects = req.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(url, req, allowed);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location) {
      res.resume();
      if (hop >= maxRedirects) throw new FetchRefusedError(`${redactUrl(req.url)} redirects more than ${maxRedirects} times`);
      url = checkUrl(new URL(location, url).href, allowed);
      continue;
    }
    const shown = redactUrl(url.href);
    if (status < 200 || status >= 300) {
      res.resume();
      throw new FetchFailedError(`${shown} answered HTTP ${status}`);
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > req.maxBytes) {
      res.destroy();
      throw new FetchFailedError(`${shown} is ${declared} bytes, more than the ${req.maxBytes} allowed`);
    }
    return { url: url.href, status, headers: res.headers, body: limited(res, shown, req.maxBytes, req.timeoutMs), abort: () => res.destroy() };
  }
}

/** A whole (small) body as text, e.g. a feed. */
export async function guardedGetText(req: GuardedRequest): Promise<{ url: string; contentType: string; text: string }> {
  const res = await guardedGet(req);
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk);
  return { url: res.url, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') };
}
