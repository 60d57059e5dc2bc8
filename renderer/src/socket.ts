import { session } from './session';
import { createStore } from './store';
import { BASE } from './base';

/** A message pushed by the server on /ws: `{type, channel, timestamp, ...payload}`. */
export interface ServerMessage {
  type: string;
  channel?: string;
  timestamp?: number;
  [key: string]: unknown;
}

export type SocketState = 'offline' | 'connecting' | 'open';
export const socketState = createStore<SocketState>('offline');

const listeners = new Set<(msg: ServerMessage) => void>();
const wanted = new Set<string>();
let socket: WebSocket | null = null;
let retry: ReturnType<typeof setTimeout> | null = null;
let attempts = 0;
let active = false;

function url(): string {
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const token = session.get().token;
  return `${proto}//${window.location.host}${BASE}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

function open() {
  if (!active || socket) return;
  socketState.set('connecting');
  const ws = new WebSocket(url());
  socket = ws;
  ws.addEventListener('message', (event) => {
    let msg: ServerMessage;
    try {
      msg = JSON.parse(String(event.data)) as ServerMessage;
    } catch {
      return;
    }
    if (msg.type === 'connected') {
      attempts = 0;
      socketState.set('open');
      if (wanted.size) ws.send(JSON.stringify({ type: 'subscribe', channels: [...wanted] }));
    }
    for (const l of [...listeners]) l(msg);
  });
  ws.addEventListener('close', (event) => {
    if (socket === ws) socket = null;
    socketState.set('offline');
    // 4401/4403: the credential is no longer accepted; the next API call will say why.
    if (!active || event.code === 4401 || event.code === 4403) return;
    const delay = Math.min(30_000, 1000 * 2 ** attempts++);
    retry = setTimeout(open, delay);
  });
}

/** Keeps one socket open while signed in, reconnecting with back-off. */
export function startSocket(): void {
  active = true;
  open();
}

export function stopSocket(): void {
  active = false;
  if (retry) clearTimeout(retry);
  retry = null;
  socket?.close(1000, 'signed out');
  socket = null;
  socketState.set('offline');
}

/** Listens on channels (subscribing once the socket is open) until the returned function is called. */
export function listen(channels: string[], listener: (msg: ServerMessage) => void): () => void {
  const added = channels.filter((c) => !wanted.has(c));
  for (const c of added) wanted.add(c);
  if (added.length && socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'subscribe', channels: added }));
  const filtered = (msg: ServerMessage) => {
    if (msg.channel && channels.includes(msg.channel)) listener(msg);
  };
  listeners.add(filtered);
  return () => listeners.delete(filtered);
}
