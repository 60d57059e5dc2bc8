import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, redactUrl, type HttpAnswer } from '../http.js';

export const SERVICE = 'gotify';

export interface GotifyClientOptions {
  /** Gotify's address including any sub-path it is served under. */
  baseUrl: string;
  /** An application token (Gotify: Apps → token); client tokens cannot send messages. */
  token: string;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
}

/** Gotify's `extras` namespaces the clients read (markdown display, a URL opened on click). */
export interface GotifyExtras {
  'client::display'?: { contentType: 'text/plain' | 'text/markdown' };
  'client::notification'?: { click?: { url: string } };
  [namespace: string]: unknown;
}

export interface GotifyMessageInput {
  title?: string;
  message: string;
  /** 0–10; Gotify uses the application's default when absent. */
  priority?: number;
  extras?: GotifyExtras;
}

export const messageSchema = z.looseObject({
  id: z.number(),
  appid: z.number(),
  message: z.string(),
  title: z.string().optional(),
  priority: z.number().optional(),
  date: z.string(),
  extras: z.record(z.string(), z.unknown()).optional(),
});
export type GotifyMessage = z.infer<typeof messageSchema>;

export const versionSchema = z.looseObject({ version: z.string(), commit: z.string().optional(), buildDate: z.string().optional() });
export type GotifyVersion = z.infer<typeof versionSchema>;

/**
 * Gotify's REST API (external-services.md (j)): `GET /version` needs no token, `POST /message`
 * needs an application token, sent in the `X-Gotify-Key` header so it never appears in a URL.
 * Errors come as `{error, errorCode, errorDescription}`; messages here are our own words.
 */
export class GotifyClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: GotifyClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async version(signal?: AbortSignal): Promise<GotifyVersion> {
    return this.call('GET', '/version', undefined, versionSchema, signal);
  }

  async sendMessage(input: GotifyMessageInput, signal?: AbortSignal): Promise<GotifyMessage> {
    return this.call('POST', '/message', input, messageSchema, signal);
  }

  private async call<T>(method: string, path: string, body: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const url = joinUrl(this.options.baseUrl, path);
    const answer = await exchange({
      service: SERVICE,
      label: 'Gotify',
      url,
      method,
      headers: path === '/version' ? {} : { 'X-Gotify-Key': this.options.token },
      ...(body !== undefined && { body }),
      timeoutMs: this.timeoutMs,
      maxBytes: 1024 * 1024,
      ...(signal && { signal }),
    });
    const failure = statusError(answer, method, url);
    if (failure) throw failure;
    const parsed = schema.safeParse(parseJson(SERVICE, answer));
    if (!parsed.success) {
      throw new IntegrationError(SERVICE, 'wrong_url', `not Gotify at this URL: ${method} ${redactUrl(url)} answered with an unexpected shape`, answer.status);
    }
    return parsed.data;
  }
}

function statusError(answer: HttpAnswer, method: string, url: string): IntegrationError | null {
  const { status } = answer;
  const where = `${method} ${redactUrl(url)}`;
  if (status === 401 || status === 403) {
    return new IntegrationError(SERVICE, 'unauthorized', `Gotify rejected the token (${status}); use the token of a Gotify application (Apps), not a client token`, status);
  }
  if (looksLikeHtml(answer)) return new IntegrationError(SERVICE, 'wrong_url', `not Gotify at this URL: ${where} answered with a web page`, status);
  if (status === 404) return new IntegrationError(SERVICE, 'wrong_url', `not Gotify at this URL: ${where} answered HTTP 404 (check the URL and any sub-path)`, status);
  if (status === 429) return new IntegrationError(SERVICE, 'rate_limited', `Gotify is rate limiting (${where})`, status);
  if (status === 400 || status === 422) return new IntegrationError(SERVICE, 'bad_request', `Gotify refused the message (${status}): ${errorDescription(answer)}`, status);
  if (status >= 500) return new IntegrationError(SERVICE, 'server_error', `Gotify failed on ${where} (HTTP ${status})`, status);
  if (status < 200 || status >= 300) return new IntegrationError(SERVICE, 'bad_response', `Gotify answered ${where} with HTTP ${status}`, status);
  return null;
}

/** Gotify's own validation text for a 400 (it names the field), shortened; never other bodies. */
function errorDescription(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.text) as { errorDescription?: unknown };
    if (typeof body.errorDescription === 'string') return body.errorDescription.slice(0, 200);
  } catch {
    // not Gotify's error JSON
  }
  return 'invalid message';
}
