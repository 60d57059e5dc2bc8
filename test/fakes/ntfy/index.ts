import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, startBodyServer, type BodyServer } from '../webhook/index.js';

/**
 * A fake ntfy server. Publishing works both ways ntfy offers: `POST|PUT /<topic>` with the message
 * as body and `Title`/`Priority`/`Tags`/`Click`/`Markdown` headers (or their query parameters), and
 * JSON `POST /` with `{topic, message, title, priority, tags, click, markdown}`. Topics can be
 * protected: writing then needs `Authorization: Bearer <token>` of a user allowed to write (401
 * without a token or with an unknown one, 403 for a token that may not write there). Answers
 * the stored message (`{id, time, expires, event: "message", topic, …}`); errors in ntfy's shape
 * `{code, http, error, link?}`. `GET /v1/health` answers `{healthy: true}`.
 * Faults: the next N requests fail with a status (429 as ntfy's rate limit), a delay per
 * request, down (port closed).
 */
export interface NtfyStoredMessage {
  id: string;
  time: number;
  expires: number;
  event: 'message';
  topic: string;
  message: string;
  title?: string;
  priority?: number;
  tags?: string[];
  click?: string;
  content_type?: 'text/markdown';
}

export interface NtfySeenRequest {
  method: string;
  path: string;
  /** The bearer token the request carried, or null. */
  token: string | null;
  /** `json` for `POST /`, `topic` for `POST /<topic>`. */
  style: 'json' | 'topic' | null;
  contentType: string;
}

export interface FakeNtfy extends BodyServer {
  messages: NtfyStoredMessage[];
  requests: NtfySeenRequest[];
  /** Makes a topic need a token; `writers` are the tokens allowed to publish to it. */
  protect(topic: string, writers: string[]): void;
  /** A token known to the server (a user's), which may or may not write to a given topic. */
  addToken(token: string): void;
  faults: { delayMs: number; failNext(count: number, status?: number, headers?: Record<string, string>): void };
  waitForMessages(count: number, timeoutMs?: number): Promise<NtfyStoredMessage[]>;
}

const ERRORS: Record<number, { code: number; error: string; link?: string }> = {
  400: { code: 40017, error: 'invalid request: request body must be message JSON', link: 'https://ntfy.sh/docs/publish/#publish-as-json' },
  401: { code: 40101, error: 'unauthorized', link: 'https://ntfy.sh/docs/publish/#authentication' },
  403: { code: 40301, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#authentication' },
  404: { code: 40401, error: 'page not found' },
  413: { code: 41303, error: 'JSON body too large' },
  429: { code: 42901, error: 'limit reached: too many requests, please be nice', link: 'https://ntfy.sh/docs/publish/#limitations' },
  500: { code: 50001, error: 'internal server error' },
};
const errorBody = (status: number, override?: { code: number; error: string }) => ({ ...(ERRORS[status] ?? { code: status * 100 + 1, error: 'error' }), ...override, http: status });

const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const PRIORITIES: Record<string, number> = { min: 1, low: 2, default: 3, high: 4, urgent: 5, max: 5, '1': 1, '2': 2, '3': 3, '4': 4, '5': 5 };
const RESERVED = new Set(['docs', 'static', 'file', 'app', 'account', 'settings', 'signup', 'login', 'v1']);
const MESSAGE_LIMIT = 4096;

export async function startFakeNtfy(): Promise<FakeNtfy> {
  const messages: NtfyStoredMessage[] = [];
  const requests: NtfySeenRequest[] = [];
  const protectedTopics = new Map<string, Set<string>>();
  const tokens = new Set<string>();
  const failures: { status: number; headers: Record<string, string> }[] = [];
  const faults = {
    delayMs: 0,
    failNext(count: number, status = 503, headers: Record<string, string> = {}) {
      for (let i = 0; i < count; i++) failures.push({ status, headers });
    },
  };
  let next = 1;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body) + '\n');
  const fail = (res: ServerResponse, status: number, override?: { code: number; error: string }) => json(res, status, errorBody(status, override));

  const bearerOf = (req: IncomingMessage): string | null => /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;

  /** ntfy's access rule: open topics take anyone; a protected one needs a known token allowed to write. */
  function refusal(topic: string, token: string | null): 401 | 403 | null {
    if (token !== null && !tokens.has(token)) return 401;
    const writers = protectedTopics.get(topic);
    if (!writers) return null;
    if (token === null) return 401;
    return writers.has(token) ? null : 403;
  }

  function header(req: IncomingMessage, url: URL, ...names: string[]): string | undefined {
    for (const n of names) {
      const h = req.headers[n.toLowerCase()];
      if (typeof h === 'string') return h;
      const q = url.searchParams.get(n.toLowerCase());
      if (q !== null) return q;
    }
    return undefined;
  }

  function store(input: { topic: string; message: string; title?: string | undefined; priority?: number | undefined; tags?: string[] | undefined; click?: string | undefined; markdown?: boolean | undefined }): NtfyStoredMessage {
    const time = Math.floor(Date.now() / 1000);
    const stored: NtfyStoredMessage = {
      id: `fk${String(next++).padStart(10, '0')}`,
      time,
      expires: time + 12 * 3600,
      event: 'message',
      topic: input.topic,
      message: input.message === '' ? 'triggered' : input.message,
      ...(input.title && { title: input.title }),
      // ntfy leaves the default priority out of the message.
      ...(input.priority !== undefined && input.priority !== 3 && { priority: input.priority }),
      ...(input.tags && input.tags.length > 0 && { tags: input.tags }),
      ...(input.click && { click: input.click }),
      ...(input.markdown && { content_type: 'text/markdown' as const }),
    };
    messages.push(stored);
    return stored;
  }

  const server = await startBodyServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const token = bearerOf(req);
    const method = req.method ?? 'GET';
    const seen: NtfySeenRequest = { method, path: url.pathname, token, style: null, contentType: String(req.headers['content-type'] ?? '') };
    requests.push(seen);
    const body = await readBody(req);
    if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    const failure = failures.shift();
    if (failure) return json(res, failure.status, errorBody(failure.status), failure.headers);

    if (method === 'GET' && url.pathname === '/v1/health') return json(res, 200, { healthy: true });
    if ((method === 'POST' || method === 'PUT') && url.pathname === '/') {
      seen.style = 'json';
      let m: Record<string, unknown>;
      try {
        const parsed = JSON.parse(body) as unknown;
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return fail(res, 400);
        m = parsed as Record<string, unknown>;
      } catch {
        return fail(res, 400);
      }
      if (typeof m.topic !== 'string' || !TOPIC.test(m.topic) || RESERVED.has(m.topic)) return fail(res, 400, { code: 40009, error: 'invalid request: topic invalid' });
      if (m.message !== undefined && typeof m.message !== 'string') return fail(res, 400);
      if (m.title !== undefined && typeof m.title !== 'string') return fail(res, 400);
      if (m.priority !== undefined && (typeof m.priority !== 'number' || !Number.isInteger(m.priority) || m.priority < 0 || m.priority > 5)) {
        return fail(res, 400, { code: 40007, error: 'invalid priority parameter' });
      }
      if (m.tags !== undefined && (!Array.isArray(m.tags) || m.tags.some((t) => typeof t !== 'string'))) return fail(res, 400);
      if (m.click !== undefined && typeof m.click !== 'string') return fail(res, 400);
      if (typeof m.message === 'string' && Buffer.byteLength(m.message) > MESSAGE_LIMIT) return fail(res, 413);
      const denied = refusal(m.topic, token);
      if (denied) return fail(res, denied);
      const priority = m.priority === undefined || m.priority === 0 ? undefined : m.priority;
      return json(res, 200, store({ topic: m.topic, message: (m.message as string | undefined) ?? '', title: m.title as string | undefined, priority: priority as number | undefined, tags: m.tags as string[] | undefined, click: m.click as string | undefined, markdown: m.markdown === true }));
    }
    const topic = url.pathname.slice(1);
    if ((method === 'POST' || method === 'PUT') && TOPIC.test(topic) && !RESERVED.has(topic)) {
      seen.style = 'topic';
      const rawPriority = header(req, url, 'X-Priority', 'Priority', 'prio', 'p');
      const priority = rawPriority === undefined ? undefined : PRIORITIES[rawPriority.toLowerCase()];
      if (rawPriority !== undefined && priority === undefined) return fail(res, 400, { code: 40007, error: 'invalid priority parameter' });
      if (Buffer.byteLength(body) > MESSAGE_LIMIT) return fail(res, 413);
      const denied = refusal(topic, token);
      if (denied) return fail(res, denied);
      const tags = header(req, url, 'X-Tags', 'Tags', 'tag', 'ta');
      const markdown = header(req, url, 'X-Markdown', 'Markdown', 'md');
      return json(res, 200, store({
        topic,
        message: body,
        title: header(req, url, 'X-Title', 'Title', 't'),
        priority,
        tags: tags?.split(',').map((t) => t.trim()).filter(Boolean),
        click: header(req, url, 'X-Click', 'Click'),
        markdown: markdown !== undefined && ['1', 'yes', 'true'].includes(markdown.toLowerCase()),
      }));
    }
    return fail(res, 404);
  });

  return {
    ...server,
    messages,
    requests,
    faults,
    protect(topic, writers) {
      protectedTopics.set(topic, new Set(writers));
      for (const w of writers) tokens.add(w);
    },
    addToken(token) {
      tokens.add(token);
    },
    async waitForMessages(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > until) throw new Error(`fake ntfy stored ${messages.length} messages, expected ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return messages;
    },
  };
}
