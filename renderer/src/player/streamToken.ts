import { api } from '../api';

interface Issued {
  token: string;
  /** When the server stops accepting it (ms since epoch, by this browser's clock). */
  expiresAt: number;
}

let current: Issued | null = null;
let pending: Promise<Issued> | null = null;

/** Margin before expiry at which a token is no longer handed out for new media requests. */
const MARGIN_MS = 30_000;

async function issue(): Promise<Issued> {
  const started = Date.now();
  const answer = await api<{ token: string; expiresIn: number }>('/api/health/stream-token', { method: 'POST' });
  return { token: answer.token, expiresAt: started + answer.expiresIn * 1000 };
}

/** A stream token with at least 30 s left, fetched when the last one is about to expire. */
export async function streamToken(): Promise<Issued> {
  if (current && current.expiresAt - Date.now() > MARGIN_MS) return current;
  pending ??= issue().finally(() => (pending = null));
  current = await pending;
  return current;
}

export function forgetStreamToken(): void {
  current = null;
}

export function streamUrl(trackId: number, token: string): string {
  return `/api/library/canonical-stream/${trackId}?st=${encodeURIComponent(token)}`;
}
