import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A Navidrome stand-in speaking the Subsonic API on 127.0.0.1: token or password auth checked
 * (error 40 otherwise), `ping` and `getLicense` answered with Navidrome's real envelope.
 */
export interface NavidromeFakeOptions {
  username?: string;
  password?: string;
  serverVersion?: string;
}

export interface NavidromeFakeState {
  /** Every request's method name and query, in order (tokens included, for auth tests). */
  readonly requests: Array<{ method: string; query: Record<string, string> }>;
  /** Requests wait this long before the answer (0 turns it off). */
  delayMs: number;
}

export interface NavidromeFake {
  url: string;
  port: number;
  username: string;
  password: string;
  state: NavidromeFakeState;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startNavidromeFake(options: NavidromeFakeOptions = {}): Promise<NavidromeFake> {
  const username = options.username ?? 'admin';
  const password = options.password ?? 'secret';
  const state: NavidromeFakeState = { requests: [], delayMs: 0 };
  const base = { version: '1.16.1', type: 'navidrome', serverVersion: options.serverVersion ?? '0.53.3', openSubsonic: true };
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const method = /^\/rest\/([A-Za-z0-9]+)(?:\.view)?$/.exec(url.pathname)?.[1];
    const answer = (payload: Record<string, unknown>) => {
      const json = query.f === 'json' || query.f === 'jsonp';
      const body = json
        ? JSON.stringify({ 'subsonic-response': { ...base, ...payload } })
        : xmlEnvelope({ ...base, ...payload });
      const send = () => res.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/xml' }).end(body);
      if (state.delayMs > 0) setTimeout(send, state.delayMs);
      else send();
    };
    const fail = (code: number, message: string) => answer({ status: 'failed', error: { code, message } });

    if (!method) {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html><title>Navidrome</title></html>');
      return;
    }
    state.requests.push({ method, query });
    if (!query.u || !(query.p || (query.t && query.s))) return fail(10, 'Missing required parameter');
    const plain = query.p?.startsWith('enc:') ? Buffer.from(query.p.slice(4), 'hex').toString('utf8') : query.p;
    const valid = query.u === username && (query.t ? query.t === md5(password + query.s) : plain === password);
    if (!valid) return fail(40, 'Wrong username or password');
    switch (method) {
      case 'ping':
        return answer({ status: 'ok' });
      case 'getLicense':
        return answer({ status: 'ok', license: { valid: true } });
      default:
        return fail(0, `The fake does not implement ${method}`);
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    username,
    password,
    state,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function xmlEnvelope(fields: Record<string, unknown>): string {
  const { error, license, ...attributes } = fields;
  const attrs = Object.entries(attributes).map(([k, v]) => ` ${k}="${String(v)}"`).join('');
  const inner = [
    error ? `<error code="${(error as { code: number }).code}" message="${(error as { message: string }).message}"/>` : '',
    license ? '<license valid="true"/>' : '',
  ].join('');
  return `<?xml version="1.0" encoding="UTF-8"?><subsonic-response xmlns="http://subsonic.org/restapi"${attrs}>${inner}</subsonic-response>`;
}
