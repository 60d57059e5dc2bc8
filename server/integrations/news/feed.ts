import { createHash } from 'node:crypto';
import { XMLValidator } from 'fast-xml-parser';
import { IntegrationError } from '../errors.js';
import { FetchFailedError, FetchRefusedError, guardedRequest, type PrivateTargets } from '../guardedFetch.js';
import { redactUrl } from '../targets.js';
import { absoluteHttpUrl, feedDate, feedXmlParser, xmlAttr, xmlText, type FeedNode } from '../feedXml.js';

/**
 * News feeds (RSS 0.9x/2.0, RSS 1.0 (RDF) and Atom) fetched through the private-address guard and
 * reduced to articles: plain-text titles and descriptions (HTML stripped, entities decoded, long
 * text cut), absolute links, dates, categories and a picture when the feed names one.
 */
export interface NewsFeedItem {
  /** The feed's own id for the item (guid / Atom id), else its link, else a hash of title and date. */
  id: string;
  title: string;
  description: string | null;
  /** Absolute http(s) URL of the article. */
  url: string | null;
  /** Milliseconds since the epoch, or null without a usable date. */
  publishedAt: number | null;
  categories: string[];
  imageUrl: string | null;
  author: string | null;
}

export interface NewsFeed {
  format: 'rss' | 'rdf' | 'atom';
  title: string | null;
  siteUrl: string | null;
  items: NewsFeedItem[];
  /** Items were left out (more than maxItems) or cut (longer than the limits). */
  truncated: boolean;
}

export interface NewsFeedLimits {
  /** Items kept per feed, in document order (feeds list newest first); default 100. */
  maxItems?: number;
  /** Characters of a title; default 300. */
  maxTitleChars?: number;
  /** Characters of a description; default 1000. */
  maxDescriptionChars?: number;
  /** Categories per item; default 20. */
  maxCategories?: number;
}

/** A feed's id, as the settings name it in `disabledFeeds`: the first 12 hex digits of sha1(url). */
export function feedId(url: string): string {
  return createHash('sha1').update(url.trim()).digest('hex').slice(0, 12);
}

const parser = feedXmlParser(['item', 'entry', 'link', 'category', 'dc:subject', 'enclosure', 'media:content', 'media:thumbnail', 'media:group']);

type Node = FeedNode;

const arr = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);


const named: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’',
  ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', copy: '©', reg: '®', trade: '™', eacute: 'é', egrave: 'è', aacute: 'á', oacute: 'ó', uuml: 'ü', ouml: 'ö', auml: 'ä',
};
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[e.toLowerCase()] ?? whole;
  });
}

/** HTML (or text) to one line of plain text: scripts, styles and tags removed, entities decoded, spaces collapsed. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .slice(0, 200_000)
      .replace(/<(script|style)[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<br\s*\/?>|<\/(p|div|li|h\d)>/gi, ' ')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/\s+/g, ' ')
    .trim();
}

function cut(s: string | null, max: number, flag: { cut: boolean }): string | null {
  if (s === null || s.length <= max) return s;
  flag.cut = true;
  const slice = s.slice(0, max - 1);
  const space = slice.lastIndexOf(' ');
  return `${(space > max * 0.6 ? slice.slice(0, space) : slice).trimEnd()}…`;
}

/** The first picture an item names: media:content / media:thumbnail, an image enclosure, else an <img> in its HTML. */
function imageOf(item: Node, html: string | null, base: string): string | null {
  const media = [...arr(item['media:content']), ...arr(item['media:group']).flatMap((g) => arr((g as Node)?.['media:content']))];
  for (const m of media) {
    const type = xmlAttr(m, 'type') ?? '';
    const medium = xmlAttr(m, 'medium') ?? '';
    const url = xmlAttr(m, 'url');
    if (url && (medium === 'image' || type.startsWith('image/') || (!medium && !type && /\.(jpe?g|png|webp|gif)(\?|$)/i.test(url)))) return absoluteHttpUrl(url, base);
  }
  for (const t of [...arr(item['media:thumbnail']), ...arr(item['media:group']).flatMap((g) => arr((g as Node)?.['media:thumbnail']))]) {
    const url = absoluteHttpUrl(xmlAttr(t, 'url'), base);
    if (url) return url;
  }
  for (const e of arr(item.enclosure)) if ((xmlAttr(e, 'type') ?? '').startsWith('image/')) return absoluteHttpUrl(xmlAttr(e, 'url'), base);
  for (const l of arr(item.link)) if (xmlAttr(l, 'rel') === 'enclosure' && (xmlAttr(l, 'type') ?? '').startsWith('image/')) return absoluteHttpUrl(xmlAttr(l, 'href'), base);
  const img = html ? /<img\b[^>]*?\bsrc\s*=\s*["']([^"']+)["']/i.exec(html.slice(0, 100_000)) : null;
  return img ? absoluteHttpUrl(decodeEntities(img[1]!), base) : null;
}

function categoriesOf(item: Node, max: number, flag: { cut: boolean }): string[] {
  const raw = [...arr(item.category), ...arr(item['dc:subject'])]
    .map((c) => xmlAttr(c, 'label') ?? xmlAttr(c, 'term') ?? xmlText(c))
    .filter((c): c is string => !!c)
    .map((c) => htmlToText(c).slice(0, 100))
    .filter(Boolean);
  const unique = [...new Set(raw)];
  if (unique.length > max) flag.cut = true;
  return unique.slice(0, max);
}

function finish(partial: Omit<NewsFeedItem, 'id'> & { id: string | null }): NewsFeedItem {
  const id = partial.id ?? partial.url ?? createHash('sha1').update(`${partial.title}\u0000${partial.publishedAt ?? ''}`).digest('hex');
  return { ...partial, id: id.slice(0, 2048) };
}

/**
 * Parses a feed document fetched from `baseUrl` (relative links resolve against it). Broken XML,
 * entity declarations and documents that are no feed are IntegrationErrors (`bad_response`) that
 * never quote the document.
 */
export function parseNewsFeed(xml: string, baseUrl: string, limits: NewsFeedLimits = {}): NewsFeed {
  const maxItems = limits.maxItems ?? 100;
  const maxTitle = limits.maxTitleChars ?? 300;
  const maxDescription = limits.maxDescriptionChars ?? 1000;
  const maxCategories = limits.maxCategories ?? 20;
  const shown = redactUrl(baseUrl);
  const body = xml.replace(/^\uFEFF/, '');
  // Feeds never need their own entities; refusing them rules out entity-expansion bombs.
  if (/<!ENTITY/i.test(body.slice(0, 65_536))) throw new IntegrationError('news', 'bad_response', `The feed at ${shown} declares XML entities, which are not accepted`);
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new IntegrationError('news', 'bad_response', `The feed at ${shown} is not valid XML (line ${valid.err.line}: ${valid.err.code})`);
  let doc: Node;
  try {
    doc = parser.parse(body) as Node;
  } catch {
    throw new IntegrationError('news', 'bad_response', `The feed at ${shown} is not valid XML`);
  }
  const flag = { cut: false };
  const take = <T>(list: T[]): T[] => {
    if (list.length > maxItems) flag.cut = true;
    return list.slice(0, maxItems);
  };

  const rss = doc.rss as Node | undefined;
  const rdf = doc['rdf:RDF'] as Node | undefined;
  if ((rss && typeof rss === 'object') || (rdf && typeof rdf === 'object')) {
    const channel = ((rss ?? rdf)!.channel ?? {}) as Node;
    const site = absoluteHttpUrl(xmlText(arr(channel.link).find((l) => typeof l === 'string' || !xmlAttr(l, 'href')) ?? null), baseUrl);
    const rawItems = arr(rss ? channel.item : rdf!.item) as Node[];
    const items = take(rawItems.filter((i) => i && typeof i === 'object')).map((item) => {
      const html = xmlText(item['content:encoded']) ?? xmlText(item.description);
      const description = xmlText(item.description) ?? xmlText(item['content:encoded']);
      const guid = xmlText(item.guid) ?? xmlAttr(item, 'rdf:about');
      const url = absoluteHttpUrl(xmlText(arr(item.link).find((l) => typeof l === 'string' || !xmlAttr(l, 'rel')) ?? null) ?? (xmlAttr(item.guid, 'isPermaLink') !== 'false' ? guid : null), baseUrl);
      const permalink = guid && xmlAttr(item.guid, 'isPermaLink') !== 'false' ? absoluteHttpUrl(guid, baseUrl) : null;
      return finish({
        id: permalink ?? guid,
        title: cut(htmlToText(xmlText(item.title) ?? ''), maxTitle, flag) || 'Untitled',
        description: cut(description ? htmlToText(description) || null : null, maxDescription, flag),
        url,
        publishedAt: feedDate(xmlText(item.pubDate) ?? xmlText(item['dc:date']) ?? xmlText(item.published) ?? xmlText(item.updated)),
        categories: categoriesOf(item, maxCategories, flag),
        imageUrl: imageOf(item, html, url ?? baseUrl),
        author: cut(htmlToText(xmlText(item['dc:creator']) ?? xmlText(item.author) ?? '') || null, 200, flag),
      });
    });
    return { format: rss ? 'rss' : 'rdf', title: htmlToText(xmlText(channel.title) ?? '') || null, siteUrl: site, items, truncated: flag.cut };
  }

  const feed = doc.feed as Node | undefined;
  if (feed && typeof feed === 'object') {
    const feedBase = absoluteHttpUrl(xmlAttr(feed, 'xml:base'), baseUrl) ?? baseUrl;
    const alternate = (links: unknown[]) => links.find((l) => !xmlAttr(l, 'rel') || xmlAttr(l, 'rel') === 'alternate');
    const entries = take(arr(feed.entry).filter((e): e is Node => !!e && typeof e === 'object'));
    const items = entries.map((entry) => {
      const base = absoluteHttpUrl(xmlAttr(entry, 'xml:base'), feedBase) ?? feedBase;
      const url = absoluteHttpUrl(xmlAttr(alternate(arr(entry.link)), 'href'), base);
      const content = xmlText(entry.content);
      const summary = xmlText(entry.summary);
      return finish({
        id: xmlText(entry.id),
        title: cut(htmlToText(xmlText(entry.title) ?? ''), maxTitle, flag) || 'Untitled',
        description: cut(htmlToText(summary ?? content ?? '') || null, maxDescription, flag),
        url,
        publishedAt: feedDate(xmlText(entry.published) ?? xmlText(entry.updated)),
        categories: categoriesOf(entry, maxCategories, flag),
        imageUrl: imageOf(entry, content ?? summary, url ?? base),
        author: cut(htmlToText(xmlText((arr(entry.author)[0] as Node | undefined)?.name) ?? '') || null, 200, flag),
      });
    });
    return { format: 'atom', title: htmlToText(xmlText(feed.title) ?? '') || null, siteUrl: absoluteHttpUrl(xmlAttr(alternate(arr(feed.link)), 'href'), feedBase), items, truncated: flag.cut };
  }
  throw new IntegrationError('news', 'bad_response', `${shown} is neither an RSS nor an Atom feed`);
}

export interface FetchNewsFeedOptions {
  /** ALLOW_PRIVATE_TARGETS: feeds are public content, so private addresses are refused unless listed. */
  allowPrivateTargets: PrivateTargets;
  userAgent: string;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 5 MiB. */
  maxBytes?: number;
  /** Further attempts after a 5xx/429, a timeout or a lost connection; default 1. */
  retries?: number;
  retryBaseMs?: number;
  limits?: NewsFeedLimits;
  signal?: AbortSignal;
}

/** The charset of a feed: the Content-Type's, else the XML declaration's, else UTF-8. */
function decode(buf: Buffer, contentType: string): string {
  const declared = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1] ?? /^<\?xml[^>]*encoding\s*=\s*["']([\w-]+)["']/i.exec(buf.subarray(0, 200).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(buf);
  } catch {
    return buf.toString('utf8');
  }
}

async function once(url: string, o: FetchNewsFeedOptions): Promise<{ url: string; text: string }> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
  const shown = redactUrl(url);
  try {
    const res = await guardedRequest({
      url,
      method: 'GET',
      headers: { Accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5', 'User-Agent': o.userAgent },
      allowPrivateTargets: o.allowPrivateTargets,
      // Feeds move between hosts (CDNs, feed services); every hop is checked by the guard again.
      redirects: 'any',
      timeoutMs,
      maxBytes: o.maxBytes ?? 5 * 1024 * 1024,
      signal,
    });
    if (res.status < 200 || res.status >= 300) {
      res.abort();
      const kind = res.status === 404 || res.status === 410 ? 'not_found' : res.status === 401 || res.status === 403 ? 'unauthorized' : res.status === 429 ? 'rate_limited' : res.status >= 500 ? 'server_error' : 'bad_response';
      throw new IntegrationError('news', kind, `The feed at ${shown} answered HTTP ${res.status}`, res.status);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk);
    return { url: res.url, text: decode(Buffer.concat(chunks), String(res.headers['content-type'] ?? '')) };
  } catch (err) {
    if (err instanceof IntegrationError) throw err;
    if (timeout.aborted || (err instanceof FetchFailedError && (err.reason === 'timeout' || err.reason === 'aborted'))) throw new IntegrationError('news', 'timeout', `The feed at ${shown} did not answer within ${timeoutMs} ms`);
    if (err instanceof FetchRefusedError) throw new IntegrationError('news', 'refused', err.message);
    if (err instanceof FetchFailedError && err.reason === 'too_large') throw new IntegrationError('news', 'bad_response', `The feed at ${shown} is larger than the ${o.maxBytes ?? 5 * 1024 * 1024} bytes allowed`);
    throw new IntegrationError('news', 'unreachable', `The feed at ${shown} could not be fetched (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

const transient = new Set(['timeout', 'unreachable', 'server_error', 'rate_limited']);

/** Fetches and parses one feed; the result's `url` is where it was finally found (after redirects). */
export async function fetchNewsFeed(url: string, options: FetchNewsFeedOptions): Promise<NewsFeed & { url: string }> {
  const retries = options.retries ?? 1;
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await once(url, options);
      return { ...parseNewsFeed(answer.text, answer.url, options.limits), url: answer.url };
    } catch (err) {
      if (!(err instanceof IntegrationError) || !transient.has(err.kind) || attempt >= retries || options.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, (options.retryBaseMs ?? 500) * 2 ** attempt));
    }
  }
}
