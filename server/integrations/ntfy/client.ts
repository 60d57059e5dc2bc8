import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, redactUrl, type HttpAnswer } from '../http.js';

export const SERVICE = 'ntfy';

export interface NtfyClientOptions {
  /** The ntfy server's address including any sub-path it is served under (e.g. `https://ntfy.sh`). */
  baseUrl: string;
  /** An access token (`tk_…`) for protected topics; empty for open ones. */
  token?: string;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
}

/** ntfy's priorities: 1 min, 2 low, 3 default, 4 high, 5 urgent. */
export type NtfyPriority = 1 | 2 | 3 | 4 | 5;

export interface NtfyMessageInput {
  topic: string;
  message: string;
  title?: string;
  priority?: number;
  /** Tags; emoji short codes (`warning`, `tada`) are shown as emojis. */
  tags?: string[];
  /** Opened when the notification is tapped. */
  click?: string;
  markdown?: boolean;
}

/** The message ntfy answers a publish with (`event` is always `message`). */
export const messageSchema = z.looseObject({
  id: z.string(),
  time: z.number(),
  event: z.literal('message'),
  topic: z.string(),
  message: z.string().optional(),
  title: z.string().optional(),
  priority: z.number().optional(),
  tags: z.array(z.string()).optional(),
  click: z.string().optional(),
});
export type NtfyMessage = z.infer<typeof messageSchema>;

/**
 * ntfy's publish API, as JSON (`POST <server>/` with `{topic, message, title, priority, tags, click}`),
 * which carries any characters in titles and tags, unlike headers. An access token goes in
 * `Authorization: Bearer`. Errors come as `{code, http, error, link?}`; `error` is ntfy's own short
 * text and is quoted, nothing else of a body is.
 */
export class NtfyClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: NtfyClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async publish(input: NtfyMessageInput, signal?: AbortSignal): Promise<NtfyMessage> {
    const url = joinUrl(this.options.baseUrl, '/');
    const body: Record<string, unknown> = { topic: input.topic, message: input.message };
    if (input.title) body.title = input.title;
    if (input.priority !== undefined) body.priority = input.priority;
    if (input.tags && input.tags.length > 0) body.tags = input.tags;
    if (input.click) body.click = input.click;
    if (input.markdown) body.markdown = true;
    const answer = await exchange({
      service: SERVICE,
      label: 'ntfy',
      url,
      method: 'POST',
      headers: this.options.token ? { Authorization: `Bearer ${this.options.token}` } : {},
      body,
      timeoutMs: this.timeoutMs,
      maxBytes: 1024 * 1024,
      ...(signal && { signal }),
    });
    const failure = statusError(answer, url, Boolean(this.options.token));
    if (failure) throw failure;
    const parsed = messageSchema.safeParse(parseJson(SERVICE, answer));
    if (!parsed.success) throw new IntegrationError(SERVICE, 'wrong_url', `not ntfy at this URL: POST ${redactUrl(url)} answered with an unexpected shape`, answer.status);
    return parsed.data;
  }
}

function statusError(answer: HttpAnswer, url: string, withToken: boolean): IntegrationError | null {
  const { status } = answer;
  const where = `POST ${redactUrl(url)}`;
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) {
    const why = withToken ? `ntfy rejected the access token (${status})` : `ntfy needs an access token for this topic (${status})`;
    return new IntegrationError(SERVICE, 'unauthorized', `${why}; the token's user must be allowed to write to the topic`, status);
  }
  if (status === 429) {
    return new IntegrationError(SERVICE, 'rate_limited', `ntfy is rate limiting (${where}): ${ntfyError(answer) ?? 'too many requests'}`, status, { retryAfterMs: retryAfterMs(answer.retryAfter) });
  }
  if (looksLikeHtml(answer)) return new IntegrationError(SERVICE, 'wrong_url', `not ntfy at this URL: ${where} answered with a web page`, status);
  if (status === 404 || status === 405) return new IntegrationError(SERVICE, 'wrong_url', `not ntfy at this URL: ${where} answered HTTP ${status} (check the URL and any sub-path)`, status);
  if (status === 400 || status === 413) return new IntegrationError(SERVICE, 'bad_request', `ntfy refused the message (${status}): ${ntfyError(answer) ?? 'invalid message'}`, status);
  if (status >= 500) return new IntegrationError(SERVICE, 'server_error', `ntfy failed on ${where} (HTTP ${status})`, status);
  return new IntegrationError(SERVICE, 'bad_response', `ntfy answered ${where} with HTTP ${status}`, status);
}

/** ntfy's own error text (`{"code":40009,"http":400,"error":"invalid request: topic invalid"}`), shortened. */
function ntfyError(answer: HttpAnswer): string | null {
  try {
    const body = JSON.parse(answer.text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error.slice(0, 200);
  } catch {
    // not ntfy's error JSON
  }
  return null;
}

/** A Retry-After header (seconds or a date) in milliseconds, at most an hour. */
export function retryAfterMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(3600_000, Math.max(0, ms)) : undefined;
}
