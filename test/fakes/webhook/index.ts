import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a capture server received. */
export interface CapturedRequest {
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A listener on 127.0.0.1:0 that can stop accepting connections and start again on the same port. */
export interface BodyServer {
  url: string;
  port: number;
  /** Connections are refused (the port is closed) while down. */
  setDown(down: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function readBody(req: IncomingMessage, limit = 5 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts `handle` on a free port; `setDown(true)` closes the port so connecting fails with ECONNREFUSED. */
export async function startBodyServer(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<BodyServer> {
  const sockets = new Set<Socket>();
  const make = () => {
    const server = createServer((req, res) => {
      handle(req, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  const listen = (server: ReturnType<typeof make>, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const stop = (server: ReturnType<typeof make>) =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  let server: ReturnType<typeof make> | null = make();
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async setDown(down) {
      if (down && server) {
        const s = server;
        server = null;
        await stop(s);
      } else if (!down && !server) {
        server = make();
        await listen(server, port);
      }
    },
    async close() {
      if (server) await stop(server);
      server = null;
    },
  };
}

/**
 * A generic webhook receiver (external-services.md (j) fake): records every request (method, path,
 * query, headers, body) and answers 200, or fails the next N requests with a status.
 */
export interface FakeWebhookReceiver extends BodyServer {
  requests: CapturedRequest[];
  /** The requests that were answered 2xx. */
  delivered: CapturedRequest[];
  /** The next `count` requests answer `status` (default 500). */
  failNext(count: number, status?: number, headers?: Record<string, string>): void;
  /** Waits until `count` requests were received. */
  waitFor(count: number, timeoutMs?: number): Promise<CapturedRequest[]>;
}

export async function startFakeWebhookReceiver(): Promise<FakeWebhookReceiver> {
  const requests: CapturedRequest[] = [];
  const delivered: CapturedRequest[] = [];
  const failures: { status: number; headers: Record<string, string> }[] = [];
  const server = await startBodyServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const seen: CapturedRequest = { at: Date.now(), method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: await readBody(req) };
    requests.push(seen);
    const failure = failures.shift();
    if (failure) {
      res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers }).end(JSON.stringify({ error: `injected ${failure.status}` }));
      return;
    }
    delivered.push(seen);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  return {
    ...server,
    requests,
    delivered,
    failNext(count, status = 500, headers = {}) {
      for (let i = 0; i < count; i++) failures.push({ status, headers });
    },
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > until) throw new Error(`webhook receiver got ${requests.length} requests, expected ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return requests;
    },
  };
}
