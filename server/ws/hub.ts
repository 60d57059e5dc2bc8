import crypto from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Principal } from '../domain/auth/principal.js';
import type { Logger } from '../log.js';

import { channels, type BroadcastOptions, type Broadcaster, type Channel, type HubStats } from '../domain/events.js';

export { channels, type BroadcastOptions, type Channel } from '../domain/events.js';

export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_ACCOUNT_INACTIVE = 4403;

interface Client {
  id: string;
  socket: WebSocket;
  principal: Principal;
  subscriptions: Set<Channel>;
  alive: boolean;
}

export type SocketAuthenticator = (req: IncomingMessage) => Promise<Principal | null>;

/** The /ws hub: authenticates sockets, tracks channel subscriptions, broadcasts changes. */
export class Hub implements Broadcaster {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly clients = new Map<string, Client>();
  private readonly lastSent = new Map<string, string>();
  private readonly subscriptionListeners = new Set<(channel: Channel, count: number) => void>();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly startedAt: number;

  private basePath = '';

  constructor(
    private readonly authenticate: SocketAuthenticator,
    private readonly log: Logger,
    private readonly clock: { now(): number },
  ) {
    this.startedAt = clock.now();
  }

  /** Served at `<basePath>/ws`. */
  attach(http: Server, basePath = ''): void {
    this.basePath = basePath;
    http.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    this.heartbeat = setInterval(() => this.sweep(), 30_000);
    this.heartbeat.unref();
  }

  broadcast(channel: Channel, type: string, payload: Record<string, unknown> = {}, options: BroadcastOptions = {}): number {
    const dedupeKey = `${channel}\u0000${type}\u0000${options.key ?? ''}`;
    const body = JSON.stringify(payload);
    if (!options.audience && this.lastSent.get(dedupeKey) === body) return 0;
    this.lastSent.set(dedupeKey, body);
    const message = JSON.stringify({ type, channel, timestamp: this.clock.now(), ...payload });
    let sent = 0;
    for (const client of this.clients.values()) {
      if (!client.subscriptions.has(channel) && !client.subscriptions.has('*' as Channel)) continue;
      if (options.audience && !options.audience(client.principal)) continue;
      client.socket.send(message);
      sent++;
    }
    return sent;
  }

  /** How many sockets listen on a channel (pollers run only while someone listens). */
  subscriberCount(channel: Channel): number {
    let n = 0;
    for (const c of this.clients.values()) if (c.subscriptions.has(channel) || c.subscriptions.has('*' as Channel)) n++;
    return n;
  }

  /** The principal of every socket listening on one of `chs` (per-audience pushes compute one payload per audience). */
  listeners(chs: Channel[]): Principal[] {
    const out: Principal[] = [];
    for (const c of this.clients.values()) if (c.subscriptions.has('*' as Channel) || chs.some((ch) => c.subscriptions.has(ch))) out.push(c.principal);
    return out;
  }

  onSubscriptionChange(listener: (channel: Channel, count: number) => void): () => void {
    this.subscriptionListeners.add(listener);
    return () => this.subscriptionListeners.delete(listener);
  }

  /** Closes every socket of a user who was disabled or deleted. */
  closeUser(userId: number, code = CLOSE_ACCOUNT_INACTIVE, reason = 'Account inactive'): void {
    for (const client of this.clients.values()) if (client.principal.userId === userId) client.socket.close(code, reason);
  }

  /** Closes sockets admitted by a credential kind that no longer applies (e.g. LAN auto-login off). */
  closeVia(via: Principal['via'], code = CLOSE_UNAUTHORIZED, reason = 'Unauthorized'): void {
    for (const client of this.clients.values()) if (client.principal.via === via) client.socket.close(code, reason);
  }

  stats(): HubStats {
    const counts: Record<string, number> = {};
    for (const ch of channels) counts[ch] = 0;
    for (const c of this.clients.values()) for (const ch of c.subscriptions) counts[ch] = (counts[ch] ?? 0) + 1;
    return {
      totalClients: this.clients.size,
      channels: counts,
      uptime: Math.floor((this.clock.now() - this.startedAt) / 1000),
    };
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const c of this.clients.values()) c.socket.close(1001, 'Server shutting down');
    this.server.close();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const path = (req.url ?? '').split('?')[0];
    if (path !== `${this.basePath}/ws`) {
      socket.destroy();
      return;
    }
    this.server.handleUpgrade(req, socket, head, (ws) => {
      this.authenticate(req)
        .then((principal) => {
          // A session that signed in with a one-time password sees nothing until it chooses a new one.
          if (!principal || principal.mustChangePassword) {
            ws.close(CLOSE_UNAUTHORIZED, 'Unauthorized');
            return;
          }
          this.admit(ws, principal);
        })
        .catch((err: unknown) => {
          this.log.error('websocket authentication failed', { err });
          ws.close(1011, 'Internal error');
        });
    });
  }

  private admit(socket: WebSocket, principal: Principal) {
    const client: Client = {
      id: `ws_${this.clock.now()}_${crypto.randomBytes(4).toString('hex')}`,
      socket,
      principal,
      subscriptions: new Set<Channel>(['status']),
      alive: true,
    };
    this.clients.set(client.id, client);
    socket.on('pong', () => (client.alive = true));
    socket.on('message', (data) => this.receive(client, data.toString()));
    socket.on('close', () => {
      this.clients.delete(client.id);
      for (const ch of client.subscriptions) this.notifySubscription(ch);
    });
    socket.on('error', () => socket.terminate());
    socket.send(JSON.stringify({ type: 'connected', clientId: client.id, subscriptions: [...client.subscriptions] }));
  }

  private receive(client: Client, raw: string) {
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      return; // bad JSON is ignored; the socket stays open
    }
    if (!msg || typeof msg !== 'object') return;
    const { type, channels: requested } = msg as { type?: unknown; channels?: unknown };
    const valid = (Array.isArray(requested) ? requested : []).filter(
      (c): c is Channel => c === '*' || (channels as readonly string[]).includes(c as string),
    );
    if (type === 'ping') {
      client.socket.send(JSON.stringify({ type: 'pong', timestamp: this.clock.now() }));
    } else if (type === 'subscribe') {
      for (const ch of valid) client.subscriptions.add(ch);
      client.socket.send(JSON.stringify({ type: 'subscribed', channels: valid, subscriptions: [...client.subscriptions] }));
      for (const ch of valid) this.notifySubscription(ch);
    } else if (type === 'unsubscribe') {
      for (const ch of valid) client.subscriptions.delete(ch);
      client.socket.send(JSON.stringify({ type: 'unsubscribed', channels: valid, subscriptions: [...client.subscriptions] }));
      for (const ch of valid) this.notifySubscription(ch);
    } else {
      this.log.debug('ignored websocket message', { type: typeof type === 'string' ? type : typeof type });
    }
  }

  private notifySubscription(channel: Channel) {
    const count = this.subscriberCount(channel);
    for (const l of this.subscriptionListeners) l(channel, count);
  }

  private sweep() {
    for (const client of this.clients.values()) {
      if (!client.alive) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }
}
