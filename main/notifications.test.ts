import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { blockedJobsNotice, BlockedJobNotifier, type BlockedJobNotifierOptions, type DesktopNotification } from './notifications.js';

/** A stand-in for the server's /ws hub, speaking the same protocol on a real socket. */
class FakeHub {
  readonly server: WebSocketServer;
  readonly tokens: string[] = [];
  readonly received: unknown[] = [];
  readonly sockets: WebSocket[] = [];
  /** Tokens whose connections are closed at once with this code. */
  readonly refuse = new Map<string, number>();

  private constructor(server: WebSocketServer) {
    this.server = server;
    server.on('connection', (socket, request) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const token = url.searchParams.get('token') ?? '';
      this.tokens.push(token);
      const refusal = url.pathname === '/ws' ? this.refuse.get(token) : 4404;
      if (refusal) {
        socket.close(refusal, 'unauthorized');
        return;
      }
      this.sockets.push(socket);
      socket.send(JSON.stringify({ type: 'connected', clientId: `client-${this.tokens.length}`, subscriptions: ['status'] }));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; channels?: string[] };
        this.received.push(message);
        if (message.type === 'subscribe') {
          const channels = message.channels ?? [];
          socket.send(JSON.stringify({ type: 'subscribed', channels, subscriptions: ['status', ...channels] }));
        }
        if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong', timestamp: Date.now() }));
      });
    });
  }

  static async start(): Promise<FakeHub> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    return new FakeHub(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` subscribed clients are connected in total. */
  async subscribedClients(count: number): Promise<void> {
    await until(() => this.received.filter((message) => (message as { type: string }).type === 'subscribe').length >= count);
  }

  broadcastBlocked(id: string, artistName = `Artist ${id}`, trackName = `Track ${id}`): void {
    const message = {
      type: 'job_blocked',
      channel: 'playlists',
      timestamp: Date.now(),
      job: { id, artistName, trackName, status: 'blocked' },
    };
    for (const socket of this.sockets) if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  }

  dropAll(): void {
    for (const socket of this.sockets.splice(0)) socket.terminate();
  }

  close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let hub: FakeHub;
let notifier: BlockedJobNotifier | undefined;
let notifications: DesktopNotification[];
let reviewsOpened: number;

beforeEach(async () => {
  hub = await FakeHub.start();
  notifications = [];
  reviewsOpened = 0;
});

afterEach(async () => {
  notifier?.stop();
  notifier = undefined;
  await hub.close();
});

function startNotifier(options: Partial<BlockedJobNotifierOptions> = {}): BlockedJobNotifier {
  notifier = new BlockedJobNotifier({
    serverUrl: () => hub.url,
    getToken: async () => 'session-1',
    notify: (notification) => notifications.push(notification),
    openReview: () => reviewsOpened++,
    groupWindowMs: 100,
    reconnectDelayMs: { initial: 40, max: 1_000 },
    tokenPollMs: 40,
    ...options,
  });
  notifier.start();
  return notifier;
}

const texts = () => notifications.map(({ title, body }) => ({ title, body }));

describe('BlockedJobNotifier', () => {
  it('connects to /ws with the session token and subscribes to the playlists channel', async () => {
    startNotifier();
    await hub.subscribedClients(1);

    expect(hub.tokens).toEqual(['session-1']);
    expect(hub.received).toEqual([{ type: 'subscribe', channels: ['playlists'] }]);
  });

  it('raises one notification for a blocked job, and clicking it opens the review screen', async () => {
    startNotifier();
    await hub.subscribedClients(1);

    hub.broadcastBlocked('job-1', 'Nina Simone', 'Feeling Good');
    await until(() => notifications.length === 1);

    expect(texts()).toEqual([
      { title: 'A download needs review', body: 'Nina Simone – Feeling Good was held back. Click to review it.' },
    ]);
    notifications[0]!.onClick();
    expect(reviewsOpened).toBe(1);
  });

  it('never notifies twice for the same job', async () => {
    startNotifier();
    await hub.subscribedClients(1);

    hub.broadcastBlocked('job-1');
    hub.broadcastBlocked('job-1');
    await sleep(200);
    hub.broadcastBlocked('job-1');
    await sleep(200);

    expect(texts()).toEqual([{ title: 'A download needs review', body: 'Artist job-1 – Track job-1 was held back. Click to review it.' }]);
  });

  it('groups jobs blocked within the window into a single "N downloads need review" notification', async () => {
    startNotifier();
    await hub.subscribedClients(1);

    for (const id of ['a', 'b', 'c', 'd', 'e']) hub.broadcastBlocked(id);
    await sleep(250);

    expect(texts()).toEqual([
      {
        title: '5 downloads need review',
        body: 'Artist a – Track a, Artist b – Track b, Artist c – Track c and 2 more. Click to review them.',
      },
    ]);
    notifications[0]!.onClick();
    expect(reviewsOpened).toBe(1);
  });

  it('notifies separately for jobs blocked after the window has closed', async () => {
    startNotifier();
    await hub.subscribedClients(1);

    hub.broadcastBlocked('a');
    hub.broadcastBlocked('b');
    await sleep(200);
    hub.broadcastBlocked('c');
    await sleep(200);

    expect(texts().map(({ title }) => title)).toEqual(['2 downloads need review', 'A download needs review']);
  });

  it('ignores other messages and malformed job messages', async () => {
    startNotifier();
    await hub.subscribedClients(1);

    for (const socket of hub.sockets) {
      socket.send('not json');
      socket.send(JSON.stringify({ type: 'job_updated', job: { id: 'x', status: 'downloading' } }));
      socket.send(JSON.stringify({ type: 'job_blocked', job: {} }));
    }
    await sleep(200);

    expect(notifications).toEqual([]);
  });

  it('reconnects with growing delays after the socket drops, still remembering notified jobs', async () => {
    const current = startNotifier();
    const delays: number[] = [];
    current.on('reconnecting', ({ delayMs }) => delays.push(delayMs));
    await hub.subscribedClients(1);
    hub.broadcastBlocked('job-1');
    await until(() => notifications.length === 1);

    // Refuse the next two connections so the back-off grows, then let the third through.
    hub.refuse.set('session-1', 1011);
    hub.dropAll();
    await until(() => hub.tokens.length === 3);
    hub.refuse.clear();
    await hub.subscribedClients(2);
    hub.broadcastBlocked('job-1');
    hub.broadcastBlocked('job-2');
    await until(() => notifications.length === 2);
    await sleep(150);

    expect(delays).toEqual([40, 80, 160]);
    expect(hub.tokens).toEqual(['session-1', 'session-1', 'session-1', 'session-1']);
    expect(texts().map(({ body }) => body)).toEqual([
      'Artist job-1 – Track job-1 was held back. Click to review it.',
      'Artist job-2 – Track job-2 was held back. Click to review it.',
    ]);
  });

  it('resets the back-off once a connection is accepted', async () => {
    const current = startNotifier();
    const delays: number[] = [];
    current.on('reconnecting', ({ delayMs }) => delays.push(delayMs));
    await hub.subscribedClients(1);

    hub.dropAll();
    await hub.subscribedClients(2);
    hub.dropAll();
    await hub.subscribedClients(3);

    expect(delays).toEqual([40, 40]);
  });

  it.each([4401, 4403])('stops reconnecting after close code %i until a new token is available', async (code) => {
    let token = 'expired';
    hub.refuse.set('expired', code);
    const current = startNotifier({ getToken: async () => token });
    const unauthorized: unknown[] = [];
    current.on('unauthorized', (event) => unauthorized.push(event));
    await until(() => unauthorized.length === 1);

    await sleep(200); // several token polls pass with the same, rejected token
    expect(hub.tokens).toEqual(['expired']);

    token = 'fresh';
    await hub.subscribedClients(1);
    expect(hub.tokens).toEqual(['expired', 'fresh']);
    expect(unauthorized).toEqual([{ closeCode: code }]);
  });

  it('waits for a token before connecting, and connects at once when told the token changed', async () => {
    let token: string | null = null;
    const current = startNotifier({ getToken: async () => token, tokenPollMs: 10_000 });
    await sleep(100);
    expect(hub.tokens).toEqual([]);

    token = 'signed-in';
    current.reconnectNow();
    await hub.subscribedClients(1);

    expect(hub.tokens).toEqual(['signed-in']);
  });

  it('pings the server on the heartbeat and drops a socket that stays silent', async () => {
    startNotifier({ heartbeatMs: 50 });
    await hub.subscribedClients(1);
    await until(() => hub.received.some((message) => (message as { type: string }).type === 'ping'));

    // A hub that stops answering pings: the notifier must notice and reconnect.
    for (const socket of hub.sockets) socket.removeAllListeners('message');
    await until(() => hub.tokens.length === 2, 2_000);
    expect(hub.tokens).toEqual(['session-1', 'session-1']);
  });

  it('raises nothing after it has been stopped', async () => {
    const current = startNotifier();
    await hub.subscribedClients(1);
    hub.broadcastBlocked('job-1');
    current.stop();
    await sleep(200);

    expect(notifications).toEqual([]);
  });
});

describe('blockedJobsNotice', () => {
  it('names the track alone when the artist is unknown, and lists up to three jobs', () => {
    expect(blockedJobsNotice([{ id: '1', trackName: 'Intro' }])).toEqual({
      title: 'A download needs review',
      body: 'Intro was held back. Click to review it.',
    });
    expect(blockedJobsNotice([{ id: '1', artistName: 'Low' }, { id: '2' }])).toEqual({
      title: '2 downloads need review',
      body: 'Low, A track. Click to review them.',
    });
  });
});
