import { XMLParser } from 'fast-xml-parser';

/** A podcast feed (RSS 2.0 with the iTunes tags, or Atom) reduced to what a channel needs. */
export interface Feed {
  title: string;
  description: string | null;
  imageUrl: string | null;
  episodes: FeedEpisode[];
}

export interface FeedEpisode {
  guid: string;
  title: string;
  description: string | null;
  /** Milliseconds since the epoch, or null when the feed gives no usable date. */
  publishedAt: number | null;
  enclosureUrl: string;
  enclosureType: string | null;
  enclosureLength: number | null;
  durationSeconds: number | null;
}

export class FeedError extends Error {}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => name === 'item' || name === 'entry' || name === 'link' || name === 'enclosure',
});

type Node = Record<string, unknown>;

/** The text of an element that may carry attributes (`#text`) or CDATA. */
function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim() || null;
  if (Array.isArray(v)) return text(v[0]);
  if (typeof v === 'object') return text((v as Node)['#text'] ?? (v as Node)['__cdata']);
  return null;
}

function attr(v: unknown, name: string): string | null {
  if (!v || typeof v !== 'object') return null;
  const a = (v as Node)[`@${name}`];
  return typeof a === 'string' && a.trim() !== '' ? a.trim() : null;
}

function absolute(url: string | null, base: string): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function date(v: string | null): number | null {
  if (!v) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

/** `itunes:duration`: seconds, `MM:SS` or `HH:MM:SS`. */
export function durationSeconds(v: string | null): number | null {
  if (!v) return null;
  const parts = v.trim().split(':');
  if (parts.length > 3 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) return null;
  const seconds = parts.reduce((acc, p) => acc * 60 + Number(p), 0);
  return Math.round(seconds);
}

function positiveInt(v: string | null): number | null {
  if (!v || !/^\d+$/.test(v)) return null;
  const n = Number(v);
  return n > 0 && Number.isSafeInteger(n) ? n : null;
}

function rssEpisode(item: Node, base: string): FeedEpisode | null {
  const enclosure = (item.enclosure as unknown[] | undefined)?.find((e) => attr(e, 'url'));
  const url = absolute(attr(enclosure, 'url'), base);
  if (!url) return null;
  const title = text(item.title) ?? text(item['itunes:title']) ?? 'Untitled episode';
  return {
    guid: text(item.guid) ?? url,
    title,
    description: text(item.description) ?? text(item['itunes:summary']) ?? text(item['content:encoded']),
    publishedAt: date(text(item.pubDate) ?? text(item['dc:date'])),
    enclosureUrl: url,
    enclosureType: attr(enclosure, 'type'),
    enclosureLength: positiveInt(attr(enclosure, 'length')),
    durationSeconds: durationSeconds(text(item['itunes:duration'])),
  };
}

function atomEpisode(entry: Node, base: string): FeedEpisode | null {
  const links = (entry.link as unknown[] | undefined) ?? [];
  const enclosure = links.find((l) => attr(l, 'rel') === 'enclosure' && attr(l, 'href'));
  const url = absolute(attr(enclosure, 'href'), base);
  if (!url) return null;
  return {
    guid: text(entry.id) ?? url,
    title: text(entry.title) ?? 'Untitled episode',
    description: text(entry.summary) ?? text(entry.content),
    publishedAt: date(text(entry.published) ?? text(entry.updated)),
    enclosureUrl: url,
    enclosureType: attr(enclosure, 'type'),
    enclosureLength: positiveInt(attr(enclosure, 'length')),
    durationSeconds: durationSeconds(text(entry['itunes:duration'])),
  };
}

/** Parses a feed fetched from `base` (relative links resolve against it); throws FeedError. */
export function parseFeed(xml: string, base: string): Feed {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch {
    // The parser's message quotes the document; the fetched body is never repeated.
    throw new FeedError('The feed is not valid XML');
  }
  const channel = (doc.rss as Node | undefined)?.channel as Node | undefined;
  if (channel && typeof channel === 'object') {
    const items = (channel.item as Node[] | undefined) ?? [];
    return {
      title: text(channel.title) ?? 'Untitled podcast',
      description: text(channel.description) ?? text(channel['itunes:summary']),
      imageUrl: absolute(attr(channel['itunes:image'], 'href') ?? text((channel.image as Node | undefined)?.url), base),
      episodes: dedupe(items.map((i) => rssEpisode(i, base))),
    };
  }
  const feed = doc.feed as Node | undefined;
  if (feed && typeof feed === 'object') {
    const entries = (feed.entry as Node[] | undefined) ?? [];
    return {
      title: text(feed.title) ?? 'Untitled podcast',
      description: text(feed.subtitle),
      imageUrl: absolute(text(feed.logo) ?? text(feed.icon), base),
      episodes: dedupe(entries.map((e) => atomEpisode(e, base))),
    };
  }
  throw new FeedError('The document is neither an RSS nor an Atom feed');
}

/** Episodes without an enclosure are dropped; a repeated guid keeps its first occurrence. */
function dedupe(list: (FeedEpisode | null)[]): FeedEpisode[] {
  const seen = new Set<string>();
  return list.filter((e): e is FeedEpisode => e !== null && !seen.has(e.guid) && seen.add(e.guid) !== undefined);
}
