import type { ServerResponse } from 'node:http';
import { readBody, startBodyServer, type BodyServer } from '../webhook/index.js';

/**
 * A fake Discord webhook endpoint: `POST /api/webhooks/<id>/<token>` executes a webhook. The body
 * is validated like Discord does (content or embeds required, embed and field limits, fields need
 * a name and a value) and answers 204 No Content, or 200 with the message with `?wait=true`.
 * An unknown id or a wrong token answers 404 `{message: "Unknown Webhook", code: 10015}` or 401
 * `{message: "Invalid Webhook Token", code: 50027}`; an invalid body 400 `{message: "Invalid Form
 * Body", code: 50035, errors}`. Rate limits: `rateLimitNext(n, seconds)` answers 429
 * `{message, retry_after, global: false}` with Retry-After and X-RateLimit headers.
 * Faults: the next N requests fail with a status, a delay per request, down (port closed).
 */
export interface DiscordEmbed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  timestamp?: string;
  fields?: { name: string; value: string; inline?: boolean }[];
  footer?: { text: string };
}

export interface DiscordStoredMessage {
  id: string;
  channel_id: string;
  webhook_id: string;
  content: string;
  embeds: DiscordEmbed[];
  username?: string;
  allowed_mentions?: unknown;
  timestamp: string;
}

export interface DiscordSeenRequest {
  method: string;
  path: string;
  wait: boolean;
  contentType: string;
  status: number;
  /** Set when the request was answered 429. */
  retryAfter?: number;
}

export interface FakeDiscord extends BodyServer {
  webhookId: string;
  webhookToken: string;
  /** The address to configure: `<url>/api/webhooks/<id>/<token>`. */
  webhookUrl: string;
  messages: DiscordStoredMessage[];
  requests: DiscordSeenRequest[];
  /** The next `count` executions answer 429 with `retry_after` seconds. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  faults: { delayMs: number; failNext(count: number, status?: number): void };
  waitForMessages(count: number, timeoutMs?: number): Promise<DiscordStoredMessage[]>;
}

const LIMITS = { content: 2000, embeds: 10, title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, footer: 2048, total: 6000, username: 80 };
const len = (s: unknown) => (typeof s === 'string' ? [...s].length : 0);

/** Discord's nested `errors` object for one field path, e.g. `embeds.0.fields.2.value`. */
function formError(path: string, code: string, message: string) {
  const errors: Record<string, unknown> = {};
  let at = errors;
  const parts = path.split('.');
  parts.forEach((p, i) => {
    if (i === parts.length - 1) at[p] = { _errors: [{ code, message }] };
    else at = (at[p] = {}) as Record<string, unknown>;
  });
  return { message: 'Invalid Form Body', code: 50035, errors };
}

/** The first thing Discord would refuse in a webhook body, or null. */
function invalid(body: Record<string, unknown>): ReturnType<typeof formError> | { message: string; code: number } | null {
  const embeds = body.embeds;
  if (embeds !== undefined && !Array.isArray(embeds)) return formError('embeds', 'MODEL_TYPE_CONVERT', 'Could not interpret "{}" as a list.');
  const list = (embeds ?? []) as unknown[];
  if ((typeof body.content !== 'string' || body.content === '') && list.length === 0) return { message: 'Cannot send an empty message', code: 50006 };
  if (len(body.content) > LIMITS.content) return formError('content', 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.content} or fewer in length.`);
  if (body.username !== undefined && (len(body.username) < 1 || len(body.username) > LIMITS.username)) return formError('username', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 80 in length.');
  if (list.length > LIMITS.embeds) return formError('embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  for (const [i, raw] of list.entries()) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return formError(`embeds.${i}`, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    const e = raw as Record<string, unknown>;
    if (len(e.title) > LIMITS.title) return formError(`embeds.${i}.title`, 'BASE_TYPE_MAX_LENGTH', 'Must be 256 or fewer in length.');
    if (len(e.description) > LIMITS.description) return formError(`embeds.${i}.description`, 'BASE_TYPE_MAX_LENGTH', 'Must be 4096 or fewer in length.');
    if (e.url !== undefined && (typeof e.url !== 'string' || !/^https?:\/\//.test(e.url))) return formError(`embeds.${i}.url`, 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    if (e.color !== undefined && (typeof e.color !== 'number' || !Number.isInteger(e.color) || e.color < 0 || e.color > 0xffffff)) return formError(`embeds.${i}.color`, 'NUMBER_TYPE_MAX', 'int value should be <= 16777215.');
    if (e.timestamp !== undefined && (typeof e.timestamp !== 'string' || Number.isNaN(Date.parse(e.timestamp)))) return formError(`embeds.${i}.timestamp`, 'DATE_TIME_TYPE_PARSE', 'Could not parse timestamp.');
    const fields = (e.fields ?? []) as unknown[];
    if (!Array.isArray(fields)) return formError(`embeds.${i}.fields`, 'MODEL_TYPE_CONVERT', 'Could not interpret as a list.');
    if (fields.length > LIMITS.fields) return formError(`embeds.${i}.fields`, 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
    for (const [j, f] of (fields as Record<string, unknown>[]).entries()) {
      if (typeof f?.name !== 'string' || f.name === '') return formError(`embeds.${i}.fields.${j}.name`, 'BASE_TYPE_REQUIRED', 'This field is required');
      if (typeof f.value !== 'string' || f.value === '') return formError(`embeds.${i}.fields.${j}.value`, 'BASE_TYPE_REQUIRED', 'This field is required');
      if (len(f.name) > LIMITS.fieldName) return formError(`embeds.${i}.fields.${j}.name`, 'BASE_TYPE_MAX_LENGTH', 'Must be 256 or fewer in length.');
      if (len(f.value) > LIMITS.fieldValue) return formError(`embeds.${i}.fields.${j}.value`, 'BASE_TYPE_MAX_LENGTH', 'Must be 1024 or fewer in length.');
    }
    const footer = e.footer as { text?: unknown } | undefined;
    const total = len(e.title) + len(e.description) + len(footer?.text) + (fields as { name: string; value: string }[]).reduce((n, f) => n + len(f.name) + len(f.value), 0);
    if (total > LIMITS.total) return formError(`embeds`, 'BASE_TYPE_MAX_LENGTH', 'Embed size exceeds maximum size of 6000');
  }
  return null;
}

export async function startFakeDiscord(options: { webhookId?: string; webhookToken?: string } = {}): Promise<FakeDiscord> {
  const webhookId = options.webhookId ?? '1234567890123456789';
  const webhookToken = options.webhookToken ?? 'kT9x-Qm3vR7wZp2LbN8cYd4Hs6Fj1Ag5Ue0Oi';
  const channelId = '987654321098765432';
  const messages: DiscordStoredMessage[] = [];
  const requests: DiscordSeenRequest[] = [];
  const failures: number[] = [];
  const rateLimits: number[] = [];
  const faults = {
    delayMs: 0,
    failNext(count: number, status = 503) {
      for (let i = 0; i < count; i++) failures.push(status);
    },
  };
  let next = 1n;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const server = await startBodyServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const seen: DiscordSeenRequest = { method, path: url.pathname, wait: url.searchParams.get('wait') === 'true', contentType: String(req.headers['content-type'] ?? ''), status: 0 };
    requests.push(seen);
    const reply = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      seen.status = status;
      if (body === undefined) return void res.writeHead(status, headers).end();
      return json(res, status, body, headers);
    };
    const text = await readBody(req);
    if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    const failure = failures.shift();
    if (failure !== undefined) return reply(failure, { message: failure >= 500 ? 'Internal Server Error' : 'Error', code: 0 });

    const m = /^\/api(?:\/v\d+)?\/webhooks\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!m) return reply(404, { message: '404: Not Found', code: 0 });
    if (method !== 'POST') return reply(405, { message: '405: Method Not Allowed', code: 0 });
    if (m[1] !== webhookId) return reply(404, { message: 'Unknown Webhook', code: 10015 });
    if (m[2] !== webhookToken) return reply(401, { message: 'Invalid Webhook Token', code: 50027 });

    const limited = rateLimits.shift();
    if (limited !== undefined) {
      seen.retryAfter = limited;
      return reply(
        429,
        { message: 'You are being rate limited.', retry_after: limited, global: false },
        { 'retry-after': String(Math.ceil(limited)), 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': String(limited), 'x-ratelimit-scope': 'shared' },
      );
    }
    if (!seen.contentType.includes('application/json')) return reply(400, { message: 'Cannot send an empty message', code: 50006 });
    let body: Record<string, unknown>;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return reply(400, { message: '400: Bad Request', code: 0 });
      body = parsed as Record<string, unknown>;
    } catch {
      return reply(400, { message: 'The request body contains invalid JSON.', code: 50109 });
    }
    const problem = invalid(body);
    if (problem) return reply(400, problem);
    const stored: DiscordStoredMessage = {
      id: String(1200000000000000000n + next++),
      channel_id: channelId,
      webhook_id: webhookId,
      content: typeof body.content === 'string' ? body.content : '',
      embeds: ((body.embeds ?? []) as DiscordEmbed[]).map((e) => ({ ...e, ...(e.fields && { fields: e.fields.map((f) => ({ inline: false, ...f })) }) })),
      ...(typeof body.username === 'string' && { username: body.username }),
      ...(body.allowed_mentions !== undefined && { allowed_mentions: body.allowed_mentions }),
      timestamp: new Date().toISOString(),
    };
    messages.push(stored);
    return seen.wait ? reply(200, stored) : reply(204);
  });

  return {
    ...server,
    webhookId,
    webhookToken,
    webhookUrl: `${server.url}/api/webhooks/${webhookId}/${webhookToken}`,
    messages,
    requests,
    faults,
    rateLimitNext(count, seconds) {
      for (let i = 0; i < count; i++) rateLimits.push(seconds);
    },
    async waitForMessages(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > until) throw new Error(`fake Discord stored ${messages.length} messages, expected ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return messages;
    },
  };
}
