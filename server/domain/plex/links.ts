import { plexLinks, type PlexLinkRow } from '../../db/plex.js';
import { IntegrationError } from '../../integrations/errors.js';
import { type Principal, isUserAccount } from '../auth/principal.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { plexTv, requireAccountToken, sealToken, type Deps as PlexConnectionDeps } from './connection.js';
import { PIN_EXPIRED_MESSAGE, pollPin, startPin, type PinCheck, type StartedPin, type Deps as PlexPinsDeps } from './pins.js';
import type { Kernel } from '../../kernel.js';
import type { UsersService } from '../users/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'log'>
  & { users: UsersService; plexLinkListeners: Set<(userId: number) => void> } & PlexConnectionDeps & PlexPinsDeps;

/**
 * Each user's Plex link (api.md §4.12, decisions §1 `plex-link`): their own Plex account through a
 * PIN, or a Plex Home user (a managed user has no password of its own) that an administrator links
 * for them by switching to it with the administrator's account. The token is stored encrypted;
 * answers carry names only.
 */
export interface PlexLinkStatus {
  linked: boolean;
  kind: PlexLinkRow['kind'] | null;
  username: string | null;
  title: string | null;
  linkedAt: number | null;
  lastError: string | null;
}


/** Runs after a user's Plex link is made, replaced or removed (publishing moves that user's playlists). */
export function onPlexLinkChanged(ctx: Deps, listener: (userId: number) => void): () => void {
  const set = ctx.plexLinkListeners;
  set.add(listener);
  return () => set.delete(listener);
}

function linkChanged(ctx: Deps, userId: number): void {
  for (const listener of ctx.plexLinkListeners) {
    try {
      listener(userId);
    } catch (err) {
      ctx.log.warn('a Plex link listener failed', { userId, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

function present(link: PlexLinkRow | undefined): PlexLinkStatus {
  return {
    linked: !!link,
    kind: link?.kind ?? null,
    username: link?.username ?? null,
    title: link?.title ?? null,
    linkedAt: link?.linkedAt ?? null,
    lastError: link?.lastError ?? null,
  };
}

export function plexLinkStatus(ctx: Deps, userId: number): PlexLinkStatus {
  return present(plexLinks.get(ctx.db, userId));
}

export function startUserPin(ctx: Deps, userId: number, forwardUrl?: string): Promise<StartedPin> {
  return startPin(ctx, 'user', userId, forwardUrl);
}

export async function completeUserPin(ctx: Deps, userId: number, pinId: string, code?: string): Promise<PinCheck & { username?: string | null; link?: PlexLinkStatus }> {
  const state = await pollPin(ctx, 'user', userId, pinId, code);
  if (state.state === 'pending') return { pending: true, linked: false, expired: false, expiresAt: state.expiresAt };
  if (state.state === 'expired') return { pending: false, linked: false, expired: true, message: PIN_EXPIRED_MESSAGE };
  const account = await plexTv(ctx, state.token).account();
  plexLinks.upsert(ctx.db, {
    userId,
    kind: 'oauth',
    plexUserId: account.id,
    plexUuid: account.uuid,
    username: account.username ?? account.title,
    title: account.title,
    tokenEnc: sealToken(ctx, state.token),
    linkedBy: userId,
    linkedAt: ctx.clock.now(),
  });
  ctx.log.info('Plex account linked', { userId, plexUsername: account.username ?? account.title });
  linkChanged(ctx, userId);
  const link = plexLinkStatus(ctx, userId);
  return { pending: false, linked: true, expired: false, username: link.username, link };
}

export function unlinkPlex(ctx: Deps, userId: number): { success: true; linked: false } {
  if (plexLinks.delete(ctx.db, userId)) linkChanged(ctx, userId);
  return { success: true, linked: false };
}

/** The Plex Home of the administrator's account, each user with the Tonearm user it is linked to. */
export async function plexHomeUsers(ctx: Deps) {
  const users = await plexTv(ctx, requireAccountToken(ctx)).homeUsers();
  const links = plexLinks.list(ctx.db);
  const linkedTo = (u: { id: string; uuid: string | null }) => links.find((l) => (u.uuid !== null && l.plexUuid === u.uuid) || l.plexUserId === u.id)?.userId ?? null;
  return {
    users: users.map((u) => ({
      id: u.id,
      uuid: u.uuid,
      title: u.title,
      username: u.username || null,
      thumb: u.thumb,
      restricted: u.restricted,
      admin: u.admin,
      guest: u.guest,
      protected: u.protected,
      linkedUserId: linkedTo(u),
    })),
  };
}

/** Links a Plex Home user to a Tonearm user: the administrator's account switches to it for its own token. */
export async function linkManagedPlexUser(ctx: Deps, admin: Principal, userId: number, homeUserId: string, pin?: string): Promise<PlexLinkStatus> {
  ctx.users.get(userId);
  const client = plexTv(ctx, requireAccountToken(ctx));
  const home = (await client.homeUsers()).find((u) => u.id === homeUserId);
  if (!home) throw new NotFoundError('Plex home user not found', `The Plex Home of the connected account has no user ${homeUserId}`);
  if (home.protected && !pin) throw new ValidationError(`${home.title ?? 'This Plex Home user'} is protected by a PIN: enter it to link`, 'PLEX_PIN_REQUIRED');
  let switched;
  try {
    switched = await client.switchHomeUser(home.id, pin);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'unauthorized' && err.status === 403)
      throw new ValidationError(`Plex refused the PIN of ${home.title ?? 'this Plex Home user'}`, 'PLEX_PIN_INVALID');
    throw err;
  }
  plexLinks.upsert(ctx.db, {
    userId,
    kind: 'managed',
    plexUserId: home.id,
    plexUuid: home.uuid,
    username: home.username || home.title,
    title: home.title,
    tokenEnc: sealToken(ctx, switched.token),
    linkedBy: isUserAccount(admin) ? admin.userId : null,
    linkedAt: ctx.clock.now(),
  });
  ctx.log.info('Plex Home user linked', { userId, plexHomeUser: home.title });
  linkChanged(ctx, userId);
  return plexLinkStatus(ctx, userId);
}

export function unlinkManagedPlexUser(ctx: Deps, userId: number): { success: true; linked: false } {
  ctx.users.get(userId);
  return unlinkPlex(ctx, userId);
}
