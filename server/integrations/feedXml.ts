import { XMLParser } from 'fast-xml-parser';

/**
 * What reading RSS and Atom needs whatever the feed is for (podcasts, news): one parser setup
 * (attributes as `@name`, namespaces kept, nothing coerced to numbers) and small readers for the
 * shapes fast-xml-parser produces (text with attributes as `#text`, CDATA, single-or-many).
 */

export type FeedNode = Record<string, unknown>;

/** A parser for feed XML; `arrays` are the element names that are always lists, even with one entry. */
export function feedXmlParser(arrays: readonly string[]): XMLParser {
  const always = new Set(arrays);
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    htmlEntities: true,
    isArray: (name) => always.has(name),
  });
}

/** The text of an element that may carry attributes (`#text`) or CDATA; the first of a list. */
export function xmlText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim() || null;
  if (Array.isArray(v)) return xmlText(v[0]);
  if (typeof v === 'object') return xmlText((v as FeedNode)['#text'] ?? (v as FeedNode)['__cdata']);
  return null;
}

/** A non-empty attribute of an element. */
export function xmlAttr(v: unknown, name: string): string | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const a = (v as FeedNode)[`@${name}`];
  return typeof a === 'string' && a.trim() !== '' ? a.trim() : null;
}

/** An absolute http(s) URL from a feed's (possibly relative) link, or null. */
export function absoluteHttpUrl(url: string | null, base: string): string | null {
  if (!url) return null;
  try {
    const u = new URL(url.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** A feed date (RFC 822 or ISO 8601) in milliseconds, or null. */
export function feedDate(v: string | null): number | null {
  if (!v) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}
