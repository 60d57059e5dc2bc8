import { plexPins, type PlexPinRow } from '../../db/plex.js';
import { IntegrationError } from '../../integrations/errors.js';
import { plexAuthUrl } from '../../integrations/plex/index.js';
import { NotFoundError } from '../errors.js';
import { PLEX_PRODUCT, plexClientIdentifier, plexTv, type Deps as PlexConnectionDeps } from './connection.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'config' | 'db'> & PlexConnectionDeps;

/**
 * Plex sign-in with a PIN: plex.tv makes a PIN, the person approves it on app.plex.tv, and polling
 * the PIN then yields their token. A PIN is remembered with its purpose and user, so it completes
 * only for whom it was started (a user cannot finish someone else's PIN and get their account).
 */
export interface StartedPin {
  pinId: string;
  code: string;
  clientId: string;
  /** The page to open (app.plex.tv/auth#?clientID=…&code=…). */
  authUrl: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  expiresIn: number;
}

export type PinState = { state: 'pending'; expiresAt: number } | { state: 'expired' } | { state: 'approved'; token: string };

/** The PIN's own answer, in the contract's shape (never the token). */
export interface PinCheck {
  pending: boolean;
  linked: boolean;
  expired: boolean;
  expiresAt?: number;
  message?: string;
}

export const PIN_EXPIRED_MESSAGE = 'The Plex PIN expired before it was approved: start connecting again';

export async function startPin(ctx: Deps, purpose: PlexPinRow['purpose'], userId: number | null, forwardUrl?: string): Promise<StartedPin> {
  const now = ctx.clock.now();
  plexPins.prune(ctx.db, now);
  const pin = await plexTv(ctx).createPin();
  const expiresIn = pin.expiresIn ?? 1800;
  const expiresAt = now + expiresIn * 1000;
  plexPins.insert(ctx.db, { id: pin.id, code: pin.code, purpose, userId, createdAt: now, expiresAt });
  const clientId = plexClientIdentifier(ctx);
  return { pinId: pin.id, code: pin.code, clientId, authUrl: plexAuthUrl(ctx.config.upstreams.plexApp, clientId, pin.code, PLEX_PRODUCT, forwardUrl), expiresAt, expiresIn };
}

export async function pollPin(ctx: Deps, purpose: PlexPinRow['purpose'], userId: number | null, pinId: string, code?: string): Promise<PinState> {
  const row = plexPins.get(ctx.db, pinId);
  const mine = row && row.purpose === purpose && (purpose === 'server' || row.userId === userId) && (code === undefined || code === row.code);
  if (!row || !mine) throw new NotFoundError('Plex PIN not found', 'No Plex sign-in was started with this PIN here: start connecting again');
  if (row.expiresAt <= ctx.clock.now()) {
    plexPins.delete(ctx.db, row.id);
    return { state: 'expired' };
  }
  let token: string | null;
  try {
    token = (await plexTv(ctx).checkPin(row.id, row.code)).authToken;
  } catch (err) {
    // plex.tv forgets a PIN once it expires.
    if (err instanceof IntegrationError && err.kind === 'not_found') {
      plexPins.delete(ctx.db, row.id);
      return { state: 'expired' };
    }
    throw err;
  }
  if (!token) return { state: 'pending', expiresAt: row.expiresAt };
  plexPins.delete(ctx.db, row.id);
  return { state: 'approved', token };
}
