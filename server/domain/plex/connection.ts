import crypto from 'node:crypto';
import type { AppContext } from '../../context.js';
import { plexAccount, plexLinks, plexServerTokens } from '../../db/plex.js';
import { PlexServerClient, PlexTvClient, type PlexProduct } from '../../integrations/plex/index.js';
import { decrypt, encrypt } from '../../secrets.js';
import { NotConfiguredError } from '../errors.js';
import type { Settings } from '../settings/schema.js';

/**
 * Who this installation is to Plex and which tokens it holds. The client identifier is made once
 * and kept (plex.tv ties PINs and the device list to it); tokens are decrypted only here, for the
 * client that sends them in a header.
 */
const CLIENT_ID_KEY = 'plex.clientIdentifier';
export const PLEX_PRODUCT = 'Tonearm';
const TIMEOUT_MS = 15_000;

export const PLEX_NOT_CONNECTED = 'Connect a Plex account first: Settings → Plex → Connect with Plex';

export function plexClientIdentifier(ctx: AppContext): string {
  let id = ctx.kv.get<string>(CLIENT_ID_KEY);
  if (typeof id !== 'string' || id === '') {
    id = crypto.randomUUID();
    ctx.kv.put(CLIENT_ID_KEY, id);
  }
  return id;
}

export function plexProduct(ctx: AppContext): PlexProduct {
  return { clientIdentifier: plexClientIdentifier(ctx), product: PLEX_PRODUCT, version: ctx.appVersion, deviceName: PLEX_PRODUCT };
}

export function plexSettings(ctx: AppContext): Settings['integrations']['plex'] {
  return ctx.settings.get().integrations.plex;
}

export function plexTv(ctx: AppContext, token: string | null = null): PlexTvClient {
  return new PlexTvClient({ baseUrl: ctx.config.upstreams.plextv, product: plexProduct(ctx), token, timeoutMs: TIMEOUT_MS });
}

export function sealToken(ctx: AppContext, token: string): string {
  return encrypt(ctx.secrets.encryptionKey, token);
}

function open(ctx: AppContext, sealed: string): string | null {
  try {
    return decrypt(ctx.secrets.encryptionKey, sealed);
  } catch {
    // Sealed with another installation's key (a copied database): the account must be connected again.
    ctx.log.warn('a stored Plex token cannot be decrypted; connect Plex again');
    return null;
  }
}

/** The administrator's plex.tv token, or null when no account is connected. */
export function accountToken(ctx: AppContext): string | null {
  const row = plexAccount.get(ctx.db);
  return row ? open(ctx, row.tokenEnc) : null;
}

export function requireAccountToken(ctx: AppContext): string {
  const token = accountToken(ctx);
  if (!token) throw new NotConfiguredError('integrations.plex', PLEX_NOT_CONNECTED);
  return token;
}

/** The token for one server: its own access token from plex.tv's list when known, else the account token. */
export function serverToken(ctx: AppContext, machineIdentifier: string | null | undefined): string | null {
  const sealed = machineIdentifier ? plexServerTokens.get(ctx.db, machineIdentifier) : undefined;
  return (sealed && open(ctx, sealed)) || accountToken(ctx);
}

/** A user's own Plex token (their account, or the managed Home user linked for them), or null. */
export function plexTokenForUser(ctx: AppContext, userId: number): string | null {
  const link = plexLinks.get(ctx.db, userId);
  return link ? open(ctx, link.tokenEnc) : null;
}

export function plexServerClient(ctx: AppContext, baseUrl: string, token: string | null): PlexServerClient {
  return new PlexServerClient({ baseUrl, token, product: plexProduct(ctx), timeoutMs: TIMEOUT_MS });
}

export interface PlexServerConnection {
  client: PlexServerClient;
  url: string;
  machineIdentifier: string;
  /** The chosen music library ('' when none is chosen yet). */
  librarySectionId: string;
}

/** The configured Plex Media Server with the administrator's token for it; 409 NOT_CONFIGURED when a part is missing. */
export function plexServerOf(ctx: AppContext): PlexServerConnection {
  const s = plexSettings(ctx);
  if (!s.url) throw new NotConfiguredError('integrations.plex.url', 'Choose a Plex server first: Settings → Plex');
  if (!s.enabled) throw new NotConfiguredError('integrations.plex.enabled', 'Plex is switched off in Settings (integrations.plex.enabled)');
  const token = serverToken(ctx, s.machineIdentifier);
  if (!token) throw new NotConfiguredError('integrations.plex', PLEX_NOT_CONNECTED);
  return { client: plexServerClient(ctx, s.url, token), url: s.url, machineIdentifier: s.machineIdentifier, librarySectionId: s.librarySectionId };
}

/** The configured server with a user's own token (their playlists are theirs), or null when the user has no Plex link. */
export function plexServerForUser(ctx: AppContext, userId: number): PlexServerConnection | null {
  const token = plexTokenForUser(ctx, userId);
  if (!token) return null;
  const server = plexServerOf(ctx);
  return { ...server, client: plexServerClient(ctx, server.url, token) };
}
