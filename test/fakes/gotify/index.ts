import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, startBodyServer, type BodyServer } from '../webhook/index.js';

/**
 * A fake Gotify server (external-services.md (j)): `GET /version` without a token; `POST /message`
 * with an application token (`X-Gotify-Key` header, `token` query or `Authorization: Bearer`),
 * JSON or form body, `message` required, title and priority defaulting to the application's;
 * `GET /message` with a client token. Errors in Gotify's shape `{error, errorCode, errorDescription}`.
 * Faults: the next N requests fail with a status (503), a delay per request, down (port closed).
 */
export interface GotifyStoredMessage {
  id: number;
  appid: number;
  message: string;
  title: string;
  priority: number;
  extras?: Record<string, unknown>;
  date: string;
}

export interface FakeGotify extends BodyServer {
  /** The application token messages must be sent with. */
  appToken: string;
  /** A client token (reads messages; cannot send). */
  clientToken: string;
  messages: GotifyStoredMessage[];
  /** Every request seen: method, path and which token it carried. */
  requests: { method: string; path: string; token: string | null; via: 'header' | 'query' | 'bearer' | null }[];
  faults: { delayMs: number; failNext(count: number, status?: number): void };
  /** Waits until `count` messages were stored. */
  waitForMessages(count: number, timeoutMs?: number): Promise<GotifyStoredMessage[]>;
}

const VERSION = { version: '2.6.1', commit: '1f7a3d29', buildDate: '2024-10-19T10:31:04Z' };

const errorBody = (status: number, description: string) => ({
  error: status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : status === 400 ? 'Bad Request' : status >= 500 ? 'Service Unavailable' : 'Error',
  errorCode: status,
  errorDescription: description,
});
const UNAUTHORIZED = 'you need to provide a valid access token or user credentials to access this api';

export async function startFakeGotify(options: { appToken?: string; clientToken?: string; appName?: string; defaultPriority?: number } = {}): Promise<FakeGotify> {
  const app = { id: 1, token: options.appToken ?? 'AqRkBqFhn.Vd0Xu', name: options.appName ?? 'Tonearm', defaultPriority: options.defaultPriority ?? 0 };
  const clientToken = options.clientToken ?? 'CkT7w2XxUbq1e9A';
  const messages: GotifyStoredMessage[] = [];
  const requests: FakeGotify['requests'] = [];
  const failures: number[] = [];
  const faults = {
    delayMs: 0,
    failNext(count: number, status = 503) {
      for (let i = 0; i < count; i++) failures.push(status);
    },
  };
  let nextId = 1;

  const json = (res: ServerResponse, status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  function tokenOf(req: IncomingMessage, url: URL): { token: string | null; via: FakeGotify['requests'][number]['via'] } {
    const header = req.headers['x-gotify-key'];
    if (typeof header === 'string' && header) return { token: header, via: 'header' };
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    if (bearer) return { token: bearer[1]!, via: 'bearer' };
    const query = url.searchParams.get('token');
    if (query) return { token: query, via: 'query' };
    return { token: null, via: null };
  }

  async function parseMessage(req: IncomingMessage): Promise<Record<string, unknown> | null> {
    const text = await readBody(req);
    const type = String(req.headers['content-type'] ?? '');
    if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
    try {
      const parsed = JSON.parse(text) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  const server = await startBodyServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const { token, via } = tokenOf(req, url);
    requests.push({ method: req.method ?? 'GET', path: url.pathname, token, via });
    if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    const failure = failures.shift();
    if (failure !== undefined) {
      await readBody(req);
      return json(res, failure, errorBody(failure, 'injected failure'));
    }
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /version') return json(res, 200, VERSION);
    if (route === 'POST /message') {
      if (token !== app.token) {
        await readBody(req);
        return json(res, 401, errorBody(401, UNAUTHORIZED));
      }
      const body = await parseMessage(req);
      if (!body) return json(res, 400, errorBody(400, 'invalid character in the request body'));
      if (typeof body.message !== 'string' || body.message === '') return json(res, 400, errorBody(400, "Field 'message' is required"));
      const priority = body.priority === undefined ? app.defaultPriority : Number(body.priority);
      if (!Number.isInteger(priority)) return json(res, 400, errorBody(400, "Field 'priority' must be a number"));
      if (body.extras !== undefined && (typeof body.extras !== 'object' || body.extras === null || Array.isArray(body.extras))) {
        return json(res, 400, errorBody(400, "Field 'extras' must be an object"));
      }
      const stored: GotifyStoredMessage = {
        id: nextId++,
        appid: app.id,
        message: body.message,
        title: typeof body.title === 'string' && body.title !== '' ? body.title : app.name,
        priority,
        ...(body.extras !== undefined && { extras: body.extras as Record<string, unknown> }),
        date: new Date().toISOString(),
      };
      messages.push(stored);
      return json(res, 200, stored);
    }
    if (route === 'GET /message') {
      if (token !== clientToken) return json(res, 401, errorBody(401, UNAUTHORIZED));
      const limit = Math.min(200, Math.max(1, Number(url.searchParams.get('limit') ?? 100) || 100));
      const newest = [...messages].reverse().slice(0, limit);
      return json(res, 200, { paging: { size: newest.length, since: 0, limit }, messages: newest });
    }
    await readBody(req);
    return json(res, 404, errorBody(404, 'page not found'));
  });

  return {
    ...server,
    appToken: app.token,
    clientToken,
    messages,
    requests,
    faults,
    async waitForMessages(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > until) throw new Error(`fake Gotify stored ${messages.length} messages, expected ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return messages;
    },
  };
}
