import { absoluteHttpUrl, feedDate, feedXmlParser, xmlAttr, xmlText, type FeedNode } from '../../integrations/feedXml.js';

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

const parser = feedXmlParser(['item', 'entry', 'link', 'enclosure']);

type Node = FeedNode;





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
  const enclosure = (item.enclosure as unknown[] | undefined)?.find((e) => xmlAttr(e, 'url'));
  const url = absoluteHttpUrl(xmlAttr(enclosure, 'url'), base);
  if (!url) return null;
  const title = xmlText(item.title) ?? xmlText(item['itunes:title']) ?? 'Untitled episode';
  return {
    guid: xmlText(item.guid) ?? url,
    title,
    description: xmlText(item.description) ?? xmlText(item['itunes:summary']) ?? xmlText(item['content:encoded']),
    publishedAt: feedDate(xmlText(item.pubDate) ?? xmlText(item['dc:date'])),
    enclosureUrl: url,
    enclosureType: xmlAttr(enclosure, 'type'),
    enclosureLength: positiveInt(xmlAttr(enclosure, 'length')),
    durationSeconds: durationSeconds(xmlText(item['itunes:duration'])),
  };
}

function atomEpisode(entry: Node, base: string): FeedEpisode | null {
  const links = (entry.link as unknown[] | undefined) ?? [];
  const enclosure = links.find((l) => xmlAttr(l, 'rel') === 'enclosure' && xmlAttr(l, 'href'));
  const url = absoluteHttpUrl(xmlAttr(enclosure, 'href'), base);
  if (!url) return null;
  return {
    guid: xmlText(entry.id) ?? url,
    title: xmlText(entry.title) ?? 'Untitled episode',
    description: xmlText(entry.summary) ?? xmlText(entry.content),
    publishedAt: feedDate(xmlText(entry.published) ?? xmlText(entry.updated)),
    enclosureUrl: url,
    enclosureType: xmlAttr(enclosure, 'type'),
    enclosureLength: positiveInt(xmlAttr(enclosure, 'length')),
    durationSeconds: durationSeconds(xmlText(entry['itunes:duration'])),
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
      title: xmlText(channel.title) ?? 'Untitled podcast',
      description: xmlText(channel.description) ?? xmlText(channel['itunes:summary']),
      imageUrl: absoluteHttpUrl(xmlAttr(channel['itunes:image'], 'href') ?? xmlText((channel.image as Node | undefined)?.url), base),
      episodes: dedupe(items.map((i) => rssEpisode(i, base))),
    };
  }
  const feed = doc.feed as Node | undefined;
  if (feed && typeof feed === 'object') {
    const entries = (feed.entry as Node[] | undefined) ?? [];
    return {
      title: xmlText(feed.title) ?? 'Untitled podcast',
      description: xmlText(feed.subtitle),
      imageUrl: absoluteHttpUrl(xmlText(feed.logo) ?? xmlText(feed.icon), base),
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
