import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, looksLikeHtml, parseJson, type HttpAnswer } from '../http.js';

export const SERVICE = 'discord';

export interface DiscordEmbedField {
  name: string;
  value: string;
  inline?: boolean;
}

export interface DiscordEmbed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  fields?: DiscordEmbedField[];
  /** ISO 8601. */
  timestamp?: string;
  footer?: { text: string };
}

export interface DiscordMessageInput {
  content?: string;
  username?: string;
  embeds: DiscordEmbed[];
}

/** Discord's limits on an embed (characters); longer texts are cut with an ellipsis. */
export const EMBED_LIMITS = { title: 256, description: 4096, fieldName: 256, fieldValue: 1024, fields: 25, footer: 2048, total: 6000 } as const;

export const messageSchema = z.looseObject({ id: z.string(), channel_id: z.string().optional() });
export type DiscordMessage = z.infer<typeof messageSchema>;

const errorSchema = z.looseObject({ message: z.string().optional(), code: z.number().optional(), retry_after: z.number().optional() });

/**
 * Executes a Discord webhook (`POST <webhookUrl>?wait=true` with `{content?, username?, embeds}`),
 * which answers the created message. The webhook's address holds its token: no message, log line
 * or error of ours shows more of it than the webhook's id.
 */
export class DiscordWebhookClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: { webhookUrl: string; timeoutMs?: number }) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** The webhook's address without its token, for messages. */
  get shownUrl(): string {
    return hideWebhookToken(this.options.webhookUrl);
  }

  async execute(input: DiscordMessageInput, signal?: AbortSignal): Promise<DiscordMessage | null> {
    const url = new URL(this.options.webhookUrl);
    url.searchParams.set('wait', 'true');
    const body = {
      ...(input.content && { content: truncate(input.content, 2000) }),
      ...(input.username && { username: truncate(input.username, 80) }),
      embeds: input.embeds.slice(0, 10).map(fitEmbed),
      // Names and reasons are data, never pings: no @everyone, roles or users from an artist's name.
      allowed_mentions: { parse: [] },
    };
    let answer: HttpAnswer;
    try {
      answer = await exchange({ service: SERVICE, label: 'Discord', url: url.href, method: 'POST', body, timeoutMs: this.timeoutMs, maxBytes: 1024 * 1024, ...(signal && { signal }) });
    } catch (err) {
      if (err instanceof IntegrationError) throw new IntegrationError(err.service, err.kind, this.hide(err.message), err.status, err.details);
      throw err;
    }
    const failure = this.statusError(answer);
    if (failure) throw failure;
    if (answer.status === 204) return null;
    const parsed = messageSchema.safeParse(parseJson(SERVICE, answer));
    if (!parsed.success) throw new IntegrationError(SERVICE, 'wrong_url', `not a Discord webhook at ${this.shownUrl}: it answered with an unexpected shape`, answer.status);
    return parsed.data;
  }

  private hide(text: string): string {
    const { webhookUrl } = this.options;
    const token = tokenOf(webhookUrl);
    return token ? text.split(token).join('…') : text;
  }

  private statusError(answer: HttpAnswer): IntegrationError | null {
    const { status } = answer;
    if (status >= 200 && status < 300) return null;
    const where = this.shownUrl;
    const error = discordError(answer);
    const said = error?.message ? `: ${error.message.slice(0, 200)}` : '';
    if (status === 429) {
      // Discord says how long to wait in the body (seconds, fractional) and in Retry-After.
      const seconds = error?.retry_after ?? Number(answer.retryAfter);
      const retryAfterMs = Number.isFinite(seconds) ? Math.min(3600_000, Math.max(0, Math.ceil(seconds * 1000))) : undefined;
      return new IntegrationError(SERVICE, 'rate_limited', `Discord is rate limiting this webhook (${where})${retryAfterMs !== undefined ? `; retry after ${(retryAfterMs / 1000).toFixed(1)} s` : ''}`, status, { retryAfterMs });
    }
    if (looksLikeHtml(answer)) return new IntegrationError(SERVICE, 'wrong_url', `not a Discord webhook at ${where}: it answered HTTP ${status} with a web page`, status);
    if (status === 401 || status === 403 || status === 404) {
      return new IntegrationError(SERVICE, 'unauthorized', `Discord refused the webhook (${status}${said}); copy the webhook's address again from the channel's Integrations settings`, status);
    }
    if (status === 400 || status === 413) return new IntegrationError(SERVICE, 'bad_request', `Discord refused the message (${status}${said})`, status);
    if (status >= 500) return new IntegrationError(SERVICE, 'server_error', `Discord failed on the webhook ${where} (HTTP ${status})`, status);
    return new IntegrationError(SERVICE, 'bad_response', `Discord answered the webhook ${where} with HTTP ${status}`, status);
  }
}

function discordError(answer: HttpAnswer): z.infer<typeof errorSchema> | null {
  try {
    const parsed = errorSchema.safeParse(JSON.parse(answer.text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The token of `…/webhooks/<id>/<token>`: the last path segment after the id. */
function tokenOf(webhookUrl: string): string | null {
  try {
    const m = /\/webhooks\/[^/]+\/([^/?#]+)/.exec(new URL(webhookUrl).pathname);
    if (m) return m[1]!;
    // Not Discord's usual shape: the last path segment stands for the secret.
    const last = new URL(webhookUrl).pathname.split('/').filter(Boolean).at(-1);
    return last ?? null;
  } catch {
    return null;
  }
}

/** `https://discord.com/api/webhooks/123/…`: the address with its token and query left out. */
export function hideWebhookToken(webhookUrl: string): string {
  try {
    const url = new URL(webhookUrl);
    const token = tokenOf(webhookUrl);
    const path = token ? url.pathname.slice(0, url.pathname.lastIndexOf(token)) + '…' : url.pathname;
    return `${url.origin}${path}`;
  } catch {
    return 'the webhook';
  }
}

const truncate = (text: string, max: number) => ([...text].length <= max ? text : [...text].slice(0, max - 1).join('') + '…');

/** An embed within Discord's limits: long texts cut, empty fields left out (Discord refuses them). */
export function fitEmbed(embed: DiscordEmbed): DiscordEmbed {
  const out: DiscordEmbed = { ...embed };
  if (out.title !== undefined) out.title = truncate(out.title, EMBED_LIMITS.title);
  if (out.description !== undefined) out.description = truncate(out.description, EMBED_LIMITS.description);
  if (out.description === '') delete out.description;
  if (out.footer) out.footer = { text: truncate(out.footer.text, EMBED_LIMITS.footer) };
  if (out.fields) {
    out.fields = out.fields
      .filter((f) => f.name.trim() !== '' && f.value.trim() !== '')
      .slice(0, EMBED_LIMITS.fields)
      .map((f) => ({ ...f, name: truncate(f.name, EMBED_LIMITS.fieldName), value: truncate(f.value, EMBED_LIMITS.fieldValue) }));
    if (out.fields.length === 0) delete out.fields;
  }
  // The whole embed's text must stay within 6000 characters: the description gives way first.
  const size = (e: DiscordEmbed) => [e.title, e.description, e.footer?.text, ...(e.fields ?? []).flatMap((f) => [f.name, f.value])].reduce((n, t) => n + [...(t ?? '')].length, 0);
  const excess = size(out) - EMBED_LIMITS.total;
  if (excess > 0 && out.description) out.description = truncate(out.description, Math.max(1, [...out.description].length - excess));
  return out;
}
