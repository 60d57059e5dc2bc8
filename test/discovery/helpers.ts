import WebSocket from 'ws';
import type { TestServer } from '../helpers/server.js';

export type Message = Record<string, unknown> & { type: string };

/** Library artists straight into the canonical tables (the scanner is not what these tests are about). */
export function addLibraryArtists(server: TestServer, artists: { name: string; tracks: number; mbid?: string }[]): void {
  const insert = server.ctx.db.prepare(
    'INSERT INTO library_artists (identity_key, mbid, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, ?, 0, 0, ?, 1)',
  );
  server.ctx.db.transaction(() => {
    for (const a of artists) insert.run(a.mbid ? `mbid:${a.mbid}` : `name:${a.name.toLowerCase()}`, a.mbid ?? null, a.name, a.name.toLowerCase(), a.tracks);
  })();
}

export async function json<T = any>(res: Response, status = 200): Promise<T> {
  const body = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${body}`);
  return JSON.parse(body) as T;
}

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A /ws client subscribed to `discovery`, collecting every message. */
export async function discoverySubscriber(server: TestServer, token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${token}`);
  const messages: Message[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Message));
  await waitFor(() => messages.some((m) => m.type === 'connected'), 'connected');
  ws.send(JSON.stringify({ type: 'subscribe', channels: ['discovery'] }));
  await waitFor(() => messages.some((m) => m.type === 'subscribed'), 'subscribed');
  return { ws, messages, close: () => ws.close() };
}
