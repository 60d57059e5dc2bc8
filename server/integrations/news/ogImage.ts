import { IntegrationError } from '../errors.js';
import { FetchFailedError, FetchRefusedError, guardedRequest, type PrivateTargets } from '../guardedFetch.js';
import { redactUrl } from '../targets.js';

/** The `og:image` (else `twitter:image`) an HTML page names, as an absolute http(s) URL, or null. */
export function pageImage(html: string, pageUrl: string): string | null {
  const head = html.slice(0, 256 * 1024);
  for (const key of ['og:image:secure_url', 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src']) {
    for (const tag of head.matchAll(/<meta\b[^>]*>/gi)) {
      const t = tag[0];
      const name = /\b(?:property|name)\s*=\s*["']([^"']+)["']/i.exec(t)?.[1]?.toLowerCase();
      if (name !== key) continue;
      const content = /\bcontent\s*=\s*["']([^"']+)["']/i.exec(t)?.[1];
      if (!content) continue;
      try {
        const url = new URL(content.replace(/&amp;/g, '&').trim(), pageUrl);
        if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
      } catch {
        // not a URL: try the next tag
      }
    }
  }
  return null;
}

/**
 * The picture of an article whose feed item named none: its page's `og:image`. Only the first
 * 512 KiB of the page are read; the private-address guard applies to the page and its redirects.
 * Null when the page names no picture; failures are IntegrationErrors of service `news`.
 */
export async function fetchArticleImage(
  url: string,
  options: { allowPrivateTargets: PrivateTargets; userAgent: string; timeoutMs?: number; maxBytes?: number; signal?: AbortSignal },
): Promise<string | null> {
  const timeoutMs = options.timeoutMs ?? 8_000;
  const maxBytes = options.maxBytes ?? 512 * 1024;
  const timeout = AbortSignal.timeout(timeoutMs);
  const shown = redactUrl(url);
  try {
    const res = await guardedRequest({
      url,
      headers: { Accept: 'text/html,application/xhtml+xml', 'User-Agent': options.userAgent },
      allowPrivateTargets: options.allowPrivateTargets,
      redirects: 'any',
      timeoutMs,
      // The page may be larger; only its head matters, so reading stops at the cap instead of failing.
      maxBytes: Number.MAX_SAFE_INTEGER,
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    });
    if (res.status < 200 || res.status >= 300) {
      res.abort();
      throw new IntegrationError('news', res.status === 404 || res.status === 410 ? 'not_found' : res.status >= 500 ? 'server_error' : 'bad_response', `${shown} answered HTTP ${res.status}`, res.status);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of res.body) {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= maxBytes || /<\/head>/i.test(chunk.toString('latin1'))) break;
    }
    res.abort();
    return pageImage(Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), res.url);
  } catch (err) {
    if (err instanceof IntegrationError) throw err;
    if (err instanceof FetchRefusedError) throw new IntegrationError('news', 'refused', err.message);
    if (timeout.aborted || (err instanceof FetchFailedError && err.reason === 'timeout')) throw new IntegrationError('news', 'timeout', `${shown} did not answer within ${timeoutMs} ms`);
    throw new IntegrationError('news', 'unreachable', `${shown} could not be fetched (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
