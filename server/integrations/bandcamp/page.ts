import { IntegrationError } from '../errors.js';
import { FetchFailedError, FetchRefusedError, guardedGetText } from '../guardedFetch.js';

/**
 * Bandcamp has no public API; its pages carry OpenGraph metadata (`og:title` "Title, by Artist",
 * `og:site_name` the artist or label, `og:type` album/song/band). Each artist has its own host
 * (`<name>.bandcamp.com`) and a page may redirect, so the page is fetched through the private-address
 * guard like any user-supplied URL, even though the link was checked to be on bandcamp.com.
 */
export interface BandcampPage {
  /** og:title without its ", by Artist" tail. */
  title: string;
  /** The artist named in og:title, else og:site_name. */
  artist: string;
  type: string | null;
  /** "from the album …" in the description of a track page, when given. */
  album: string | null;
}

export interface BandcampOptions {
  allowPrivateTargets: string[];
  userAgent: string;
  /** Tests and mirrors: fetch `<rewriteBase>/<subdomain><path>` instead of the bandcamp.com page. */
  rewriteBase?: string | null;
  timeoutMs?: number;
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return entities[e.toLowerCase()] ?? m;
  });

function meta(html: string, name: string): string | null {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const key = /\b(?:property|name)\s*=\s*["']([^"']+)["']/i.exec(tag)?.[1];
    if (key?.toLowerCase() !== name) continue;
    const content = /\bcontent\s*=\s*"([^"]*)"|\bcontent\s*=\s*'([^']*)'/i.exec(tag);
    if (content) return decode(content[1] ?? content[2] ?? '').trim();
  }
  return null;
}

/** Reads the OpenGraph fields of a Bandcamp page. */
export function parseBandcampPage(html: string): BandcampPage | null {
  const ogTitle = meta(html, 'og:title');
  const site = meta(html, 'og:site_name');
  if (!ogTitle && !site) return null;
  const by = ogTitle ? /^(.*), by (.+)$/s.exec(ogTitle) : null;
  const description = meta(html, 'og:description') ?? meta(html, 'description') ?? '';
  const album = /from the album (.+?)(?:\.|\n|$)/i.exec(description)?.[1]?.trim() ?? null;
  return { title: by ? by[1]!.trim() : (ogTitle ?? site ?? ''), artist: by ? by[2]!.trim() : (site ?? ogTitle ?? ''), type: meta(html, 'og:type'), album };
}

export async function fetchBandcampPage(link: URL, options: BandcampOptions, signal?: AbortSignal): Promise<BandcampPage> {
  const subdomain = link.hostname.replace(/\.bandcamp\.com$/i, '');
  const url = options.rewriteBase ? `${options.rewriteBase.replace(/\/+$/, '')}/${subdomain}${link.pathname}` : link.href;
  let text: string;
  try {
    ({ text } = await guardedGetText({
      url,
      allowPrivateTargets: options.allowPrivateTargets,
      timeoutMs: options.timeoutMs ?? 8000,
      maxBytes: 4 * 1024 * 1024,
      headers: { 'User-Agent': options.userAgent, Accept: 'text/html' },
      ...(signal && { signal }),
    }));
  } catch (err) {
    if (err instanceof FetchFailedError && /HTTP 404\b/.test(err.message)) throw new IntegrationError('bandcamp', 'not_found', `Bandcamp has no page ${link.href}`, 404);
    if (err instanceof FetchRefusedError) throw new IntegrationError('bandcamp', 'bad_request', err.message, 400);
    throw new IntegrationError('bandcamp', 'unreachable', err instanceof Error ? err.message : String(err));
  }
  const page = parseBandcampPage(text);
  if (!page) throw new IntegrationError('bandcamp', 'bad_response', `${link.href} carries no OpenGraph title`);
  return page;
}
