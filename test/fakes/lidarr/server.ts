import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { routes, type Reply } from './routes.js';
import { LidarrFakeState, type LidarrFakeOptions } from './state.js';
import type { WebhookEventType, WebhookOptions, WebhookDelivery } from './webhooks.js';
import type { SeedLibraryOptions } from './library.js';

/**
 * A Lidarr v1 API on 127.0.0.1 for tests and benchmarks: a real HTTP server (node:http) over the
 * in-memory state in state.ts. Start one per test with `startLidarrFake()` and `close()` it after.
 */
export interface LidarrFake {
  /** Base URL to configure a client with (includes the URL base, without `/api/v1`). */
  url: string;
  port: number;
  apiKey: string;
  state: LidarrFakeState;
  sendWebhook(targetUrl: string, event: WebhookEventType, options?: WebhookOptions): Promise<WebhookDelivery>;
  seedLibrary(options: SeedLibraryOptions): ReturnType<LidarrFakeState['seedLibrary']>;
  /** Resolves when no command, grab, import or delayed album load is pending (or after `timeoutMs`). */
  waitForIdle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const spaPage = `<!DOCTYPE html><html><head><title>Lidarr</title></head><body><div id="root"></div><script src="/initialize.js"></script></body></html>`;

export async function startLidarrFake(options: LidarrFakeOptions = {}): Promise<LidarrFake> {
  const state = new LidarrFakeState(options);
  const apiPrefix = `${state.urlBase.toLowerCase()}/api/v1`;
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    void handle(state, apiPrefix, req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { message: String(err) } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    if (state.isDown && state.downMode === 'reset') {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}${state.urlBase}`;
  state.applicationUrl = url;

  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  state.onAvailabilityChange = async (down) => {
    if (down) {
      dropConnections();
      if (state.downMode === 'refuse' && server.listening) await new Promise<void>((r) => server.close(() => r()));
    } else if (!server.listening) {
      await listen(port);
    }
  };

  return {
    url,
    port,
    apiKey: state.apiKey,
    state,
    sendWebhook: (targetUrl, event, webhookOptions) => state.sendWebhook(targetUrl, event, webhookOptions),
    seedLibrary: (seed) => state.seedLibrary(seed),
    async waitForIdle(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!state.activity.idle && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    },
    async close() {
      state.activity.stop();
      dropConnections();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function handle(state: LidarrFakeState, apiPrefix: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.inFlight++;
  state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
  res.on('close', () => state.inFlight--);
  state.requestCount++;

  const url = new URL(req.url ?? '/', 'http://fake');
  const path = url.pathname.toLowerCase();
  const method = req.method ?? 'GET';
  const body = await readBody(req);

  if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
  if (res.destroyed) return;

  if (!path.startsWith(apiPrefix + '/')) {
    // Lidarr's web UI answers everything outside the API: a page, not JSON.
    count(state, `${method} (web page)`);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(spaPage);
    return;
  }
  const apiPath = path.slice(apiPrefix.length);
  const match = findRoute(method, apiPath);
  count(state, match ? match.route.name : `${method} ${apiPath}`);

  const failure = state.takeFailure();
  if (failure) {
    res.writeHead(failure.status, { 'Content-Type': 'application/json' }).end(failure.body);
    return;
  }
  const key = req.headers['x-api-key'] ?? url.searchParams.get('apikey') ?? url.searchParams.get('apiKey');
  if (key !== state.apiKey) {
    res.writeHead(401).end();
    return;
  }
  if (!match) {
    send(res, { status: 404, body: { message: 'NotFound' } });
    return;
  }
  let parsed: unknown;
  try {
    parsed = body ? JSON.parse(body) : undefined;
  } catch {
    send(res, { status: 400, body: { message: 'Invalid JSON body' } });
    return;
  }
  send(res, match.route.handle(state, { params: match.params, query: url.searchParams, body: parsed }));
}

function findRoute(method: string, path: string) {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1) };
  }
  return undefined;
}

function count(state: LidarrFakeState, name: string): void {
  state.routeCounts[name] = (state.routeCounts[name] ?? 0) + 1;
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.body === undefined) {
    res.writeHead(reply.status, { 'Content-Length': '0' }).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8' }).end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
