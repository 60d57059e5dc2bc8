import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
afterEach(async () => {
  await server?.stop();
});

function connect(url: string) {
  const ws = new WebSocket(url);
  const queue: any[] = [];
  const waiters: ((m: any) => void)[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const next = () => new Promise<any>((resolve) => (queue.length ? resolve(queue.shift()) : waiters.push(resolve)));
  return { ws, next, closed, send: (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
}

describe('/ws', () => {
  it('closes unauthorized sockets with 4401, including the API key', async () => {
    server = await startTestServer();
    expect(await connect(`ws://127.0.0.1:${server.port}/ws`).closed).toBe(4401);
    expect(await connect(`ws://127.0.0.1:${server.port}/ws?token=nope`).closed).toBe(4401);
    expect(await connect(`ws://127.0.0.1:${server.port}/ws?api_key=${server.apiKey}`).closed).toBe(4401);
  });

  it('greets, subscribes, answers ping, ignores unknown messages and bad JSON, and broadcasts only changes', async () => {
    server = await startTestServer();
    const c = connect(`ws://127.0.0.1:${server.port}/ws?token=${server.admin.token}`);
    const hello = await c.next();
    expect(hello).toMatchObject({ type: 'connected', subscriptions: ['status'] });
    expect(hello.clientId).toMatch(/^ws_\d+_[0-9a-f]{8}$/);

    c.send({ type: 'subscribe', channels: ['library', 'bogus'] });
    expect(await c.next()).toEqual({ type: 'subscribed', channels: ['library'], subscriptions: ['status', 'library'] });
    c.send('{not json');
    c.send({ type: 'dance' });
    c.send({ type: 'ping' });
    const pong = await c.next();
    expect(pong.type).toBe('pong');
    expect(pong.timestamp).toBe(server.clock.now());

    const stats = await (await server.api('/api/health/ws', { token: server.admin.token })).json();
    expect(stats).toMatchObject({ totalClients: 1, channels: { status: 1, library: 1, downloads: 0 } });

    expect(server.ctx.hub.broadcast('library', 'library_scan_progress', { done: 1 })).toBe(1);
    expect(server.ctx.hub.broadcast('library', 'library_scan_progress', { done: 1 })).toBe(0);
    expect(server.ctx.hub.broadcast('downloads', 'download_statuses', { statuses: {} })).toBe(0);
    expect(await c.next()).toEqual({ type: 'library_scan_progress', channel: 'library', timestamp: server.clock.now(), done: 1 });

    c.send({ type: 'unsubscribe', channels: ['library'] });
    expect(await c.next()).toEqual({ type: 'unsubscribed', channels: ['library'], subscriptions: ['status'] });
    expect(server.ctx.hub.broadcast('library', 'library_scan_progress', { done: 2 })).toBe(0);
    c.ws.close();
  });
});
