import { XMLParser } from 'fast-xml-parser';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, queryString, redactUrl, type HttpAnswer } from '../http.js';
import type { PrivateTargets } from '../guardedFetch.js';

/**
 * What every Plex call shares (plex.tv and Plex Media Server alike): the `X-Plex-*` headers that
 * name this installation, the token in a header (never in the URL, so it cannot reach a log line),
 * answers in JSON or XML (Plex answers XML unless asked for JSON, and some of its routes always do)
 * read into the same shape, and failures as IntegrationErrors whose message never carries an HTML page.
 */
export interface PlexProduct {
  /** Stable per installation (a UUID kept in the database); plex.tv ties PINs and devices to it. */
  clientIdentifier: string;
  product: string;
  version: string;
  platform?: string;
  platformVersion?: string;
  device?: string;
  deviceName?: string;
}

export interface PlexTransportOptions {
  service: 'plex' | 'plextv';
  label: string;
  baseUrl: string;
  product: PlexProduct;
  token?: string | null;
  /** Per request; default 15 s. */
  timeoutMs?: number;
  /** Further attempts for reads after a 5xx or a lost connection; default 1. */
  retries?: number;
  allowPrivateTargets?: PrivateTargets;
}

export type PlexMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface PlexCall {
  method?: PlexMethod;
  path: string;
  query?: Record<string, unknown>;
  /** Sent with this call instead of the client's token (a home user's switch, a test of another token). */
  token?: string | null;
  signal?: AbortSignal;
}

export function plexHeaders(product: PlexProduct, token?: string | null): Record<string, string> {
  return {
    Accept: 'application/json',
    'X-Plex-Product': product.product,
    'X-Plex-Version': product.version,
    'X-Plex-Client-Identifier': product.clientIdentifier,
    'X-Plex-Platform': product.platform ?? 'Node.js',
    'X-Plex-Platform-Version': product.platformVersion ?? process.versions.node,
    'X-Plex-Device': product.device ?? 'Server',
    'X-Plex-Device-Name': product.deviceName ?? product.product,
    ...(token ? { 'X-Plex-Token': token } : {}),
  };
}

/** Element names that are lists in Plex's XML, even with a single entry (as they are in its JSON). */
const LIST_ELEMENTS = new Set(['Directory', 'Metadata', 'Track', 'Playlist', 'Location', 'Media', 'Part', 'User', 'Device', 'Connection', 'Server', 'resource', 'connection', 'Genre']);

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => LIST_ELEMENTS.has(name),
});

/** XML read into the shape of Plex's JSON: attributes as fields, child lists under their element name. */
export function parsePlexXml(text: string): Record<string, unknown> {
  const parsed = xmlParser.parse(text) as Record<string, unknown>;
  delete parsed['?xml'];
  return parsed;
}

/** A body in JSON or XML (whichever Plex sent), or undefined when empty. */
export function parsePlexBody(service: string, label: string, answer: HttpAnswer): unknown {
  const text = answer.text.trim();
  if (text === '') return undefined;
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new IntegrationError(service, 'bad_response', `${label} answered HTTP ${answer.status} with broken JSON`, answer.status);
    }
  }
  if (text.startsWith('<') && !looksLikeHtml(answer)) {
    try {
      return parsePlexXml(text);
    } catch {
      throw new IntegrationError(service, 'bad_response', `${label} answered HTTP ${answer.status} with broken XML`, answer.status);
    }
  }
  throw new IntegrationError(service, 'wrong_url', `${label} answered HTTP ${answer.status} with something that is neither JSON nor XML${answer.contentType ? ` (${answer.contentType.split(';')[0]})` : ''}: check the address`, answer.status);
}

/**
 * What an error body says, in at most 160 characters of plain text: an HTML page is reduced to its
 * title or first heading (Plex answers 401 with a small HTML page), JSON and XML to their error
 * message. Never the page itself.
 */
export function errorSummary(answer: HttpAnswer): string | null {
  const text = answer.text.trim();
  if (text === '') return null;
  const clip = (s: string) => {
    const flat = s.replace(/\s+/g, ' ').trim();
    return flat === '' ? null : flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
  };
  if (looksLikeHtml(answer) || /^<(head|body|h1|title)\b/i.test(text)) {
    const pick = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1] ?? text;
    return clip(decodeEntities(pick.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]*>/g, ' ')));
  }
  try {
    const body = text.startsWith('<') ? parsePlexXml(text) : (JSON.parse(text) as unknown);
    const found = findMessage(body);
    return found ? clip(found) : null;
  } catch {
    return clip(text.replace(/<[^>]*>/g, ' '));
  }
}

function findMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return typeof body === 'string' ? body : null;
  const o = body as Record<string, unknown>;
  // plex.tv: {errors:[{code, message, status}]}; XML <errors><error message="…"/></errors> or <Response status="…"/>.
  const errors = o.errors ?? (o.error as unknown);
  if (Array.isArray(errors) && errors.length > 0) return findMessage(errors[0]);
  if (errors && typeof errors === 'object') return findMessage((errors as Record<string, unknown>).error ?? errors);
  for (const key of ['message', 'error', 'status']) if (typeof o[key] === 'string' && o[key]) return o[key] as string;
  if (o.Response) return findMessage(o.Response);
  return null;
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[e] ?? ' ');
}

const retryStatuses = new Set([408, 425, 429, 500, 502, 503, 504]);

export class PlexTransport {
  readonly timeoutMs: number;

  constructor(readonly options: PlexTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** The parsed answer of a successful call (undefined for an empty body). */
  async call(req: PlexCall): Promise<unknown> {
    const method = req.method ?? 'GET';
    const retries = method === 'GET' ? (this.options.retries ?? 1) : 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(req, method);
      } catch (err) {
        const transient = err instanceof IntegrationError && (err.kind === 'unreachable' || (err.status !== undefined && retryStatuses.has(err.status)));
        if (!transient || attempt >= retries || req.signal?.aborted) throw err;
        await new Promise((r) => setTimeout(r, 300 * 2 ** attempt));
      }
    }
  }

  private async once(req: PlexCall, method: PlexMethod): Promise<unknown> {
    const o = this.options;
    const url = joinUrl(o.baseUrl, req.path) + queryString(req.query);
    const token = req.token === undefined ? o.token : req.token;
    const answer = await exchange({
      service: o.service,
      label: o.label,
      url,
      method,
      headers: plexHeaders(o.product, token),
      timeoutMs: this.timeoutMs,
      ...(o.allowPrivateTargets && { allowPrivateTargets: o.allowPrivateTargets }),
      ...(req.signal && { signal: req.signal }),
    });
    if (answer.status >= 200 && answer.status < 300) return parsePlexBody(o.service, o.label, answer);
    throw this.statusError(method, url, answer);
  }

  private statusError(method: PlexMethod, url: string, answer: HttpAnswer): IntegrationError {
    const o = this.options;
    const said = errorSummary(answer);
    const where = `${o.label} answered ${answer.status} to ${method} ${redactUrl(url)}${said ? ` (${said})` : ''}`;
    const s = answer.status;
    if (s === 401 || s === 403) return new IntegrationError(o.service, 'unauthorized', `${where}: the Plex token was refused`, s);
    if (s === 404) return new IntegrationError(o.service, 'not_found', where, s);
    if (s === 429) return new IntegrationError(o.service, 'rate_limited', where, s);
    if (s === 400 || s === 422) return new IntegrationError(o.service, 'bad_request', where, s);
    if (s >= 500 || s === 408 || s === 425) return new IntegrationError(o.service, 'server_error', where, s);
    return new IntegrationError(o.service, 'bad_response', where, s);
  }
}
