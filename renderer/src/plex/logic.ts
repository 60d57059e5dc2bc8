import { dateTime } from '../time.js';
import type { Answer } from '../wire.js';
/**
 * What the Plex screens decide without a DOM: waiting for a PIN to be approved, which of a server's
 * connections to use, and how a link or a sync is described. Tested in test/renderer/plexLogic.test.ts.
 */

/** `POST …/auth/pin` and `…/oauth/pin`. */
export type StartedPin = Answer<'/api/settings/plex/auth/pin', 'post'>;

/** `POST …/auth/check` (the server's account, named by `plexUsername`) or `…/oauth/complete` (a user's own, `username`). */
export type PinCheck = Answer<'/api/settings/plex/auth/check', 'post'> & Answer<'/api/users/me/plex-link/oauth/complete', 'post'>;

export type PinOutcome = { kind: 'linked'; name: string | null } | { kind: 'expired'; message: string } | { kind: 'cancelled' };

export interface PinWaitOptions {
  /** One poll of the server. */
  check: () => Promise<PinCheck>;
  expiresAt: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Between polls; plex.tv asks clients not to poll faster than once a second. */
  intervalMs?: number;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Polls until the PIN is approved, expires (on plex.tv or by its own time) or the wait is cancelled.
 * A failed poll (network, 502) is tried again at the next interval; a 404 (the PIN is gone) ends it.
 */
export async function waitForPin(o: PinWaitOptions): Promise<PinOutcome> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? defaultSleep;
  const interval = Math.max(1000, o.intervalMs ?? 2000);
  for (;;) {
    if (o.signal?.aborted) return { kind: 'cancelled' };
    if (now() >= o.expiresAt) return { kind: 'expired', message: 'The PIN expired before it was approved. Start again.' };
    try {
      const answer = await o.check();
      if (answer.linked) return { kind: 'linked', name: answer.plexUsername ?? answer.username ?? null };
      if (answer.expired) return { kind: 'expired', message: answer.message ?? 'The PIN expired before it was approved. Start again.' };
    } catch (err) {
      if ((err as { status?: number }).status === 404) return { kind: 'expired', message: 'This sign-in is no longer known to the server. Start again.' };
    }
    await sleep(interval, o.signal);
  }
}

/** An entry of `POST /api/settings/plex/resources`. */
export type PlexServer = Answer<'/api/settings/plex/resources', 'post'>['servers'][number];
export type PlexConnection = PlexServer['connections'][number];

/** The address to reach a server from here: a local direct connection first, then a remote direct one, then the relay. */
export function bestConnection(server: Pick<PlexServer, 'connections'>): PlexConnection | null {
  const rank = (c: PlexConnection) => (c.relay ? 2 : c.local ? 0 : 1);
  return [...server.connections].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

export function connectionLabel(c: PlexConnection): string {
  return `${c.uri}${c.relay ? ' (relay)' : c.local ? ' (local network)' : ' (remote)'}`;
}

export type PlexLinkStatus = Answer<'/api/users/me/plex-link/status'>;

export function linkDescription(s: PlexLinkStatus): string {
  if (!s.linked) return 'Not linked';
  const who = s.title && s.username && s.title !== s.username ? `${s.title} (${s.username})` : (s.username ?? s.title ?? 'a Plex account');
  return s.kind === 'managed' ? `Linked to the Plex Home user ${who}, set up by an administrator` : `Linked to the Plex account ${who}`;
}

/** `sync` of GET /api/settings/plex/status. */
export type SyncSummary = NonNullable<Answer<'/api/settings/plex/status'>['sync']>;

export function syncDescription(sync: SyncSummary | null): string {
  if (!sync) return 'Not synced yet.';
  const when = sync.syncedAt ? ` on ${dateTime(sync.syncedAt)}` : '';
  const missing = sync.tracks - sync.matched;
  return `${sync.matched} of ${sync.tracks} Plex tracks match files in this library${missing ? ` (${missing} not found here)` : ''}${when ? `; last synced${when}` : ''}.`;
}
