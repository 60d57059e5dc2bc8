import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as a fake saw it, for assertions (spacing, headers, paths). */
export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface FakeReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** `body` is the raw request body (empty for GET). */
export type FakeHandler = (req: SeenRequest, body: Buffer) => FakeReply | Promise<FakeReply>;

/**
 * What every fake of a public web API can be told to do: answer slowly, fail the next requests
 * with a status, refuse connections (down), and record each request.
 */
export class FakeFaults {
  delayMs = 0;
  private failures: FakeReply[] = [];
  down = false;

  /** The next `count` requests answer `status` (e.g. 503) instead of their data. */
  failNext(count: number, status: number, headers: Record<string, string> = {}): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, body: { error: `injected ${status}` }, headers });
  }

  takeFailure(): FakeReply | undefined {
    return this.failures.shift();
  }
}

export interface JsonFake {
  url: string;
  port: number;
  faults: FakeFaults;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A JSON web API on 127.0.0.1:0 answering through `handler`, with the shared faults. */
export async function startJsonFake(handler: FakeHandler, pathPrefix = ''): Promise<JsonFake> {
  const faults = new FakeFaults();
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void answer(req, res));
  server.on('connection', (socket) => {
    if (faults.down) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function answer(req: IncomingMessage, res: ServerResponse) {
    // Kept-alive connections opened before the outage die with it too.
    if (faults.down) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const seen: SeenRequest = { at: Date.now(), method: req.method ?? 'GET', path: pathPrefix && !url.pathname.startsWith(pathPrefix) ? url.pathname : url.pathname.slice(pathPrefix.length) || '/', query: url.searchParams, headers: req.headers };
    requests.push(seen);
    try {
      if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
      const reply = faults.takeFailure() ?? (await handler(seen, Buffer.concat(chunks)));
      const status = reply.status ?? 200;
      const headers = { ...reply.headers };
      if (reply.body === undefined) {
        res.writeHead(status, headers).end();
        return;
      }
      const body = typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body);
      headers['content-type'] ??= typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? 'text/plain' : 'application/json';
      res.writeHead(status, headers).end(body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${pathPrefix}`,
    port,
    faults,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Pages an array the way most web APIs do (offset/limit with a total). */
export function page<T>(items: T[], query: URLSearchParams, defaultLimit: number, maxLimit: number): { items: T[]; offset: number; count: number } {
  const limit = Math.min(maxLimit, Math.max(1, Number(query.get('limit') ?? defaultLimit) || defaultLimit));
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  return { items: items.slice(offset, offset + limit), offset, count: items.length };
}
