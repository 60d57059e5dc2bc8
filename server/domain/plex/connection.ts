import crypto from 'node:crypto';
import { plexAccount, plexLinks, plexServerTokens } from '../../db/plex.js';
import { PlexServerClient, PlexTvClient, type PlexProduct } from '../../integrations/plex/index.js';
import { decrypt, encrypt } from '../../secrets.js';
import { NotConfiguredError, ValidationError } from '../errors.js';
import { originOf, SECRET_REENTRY_REQUIRED } from '../settings/secretOrigin.js';
import type { Settings } from '../settings/schema.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'appVersion' | 'config' | 'db' | 'kv' | 'log' | 'secrets'> & { settings: SettingsStore };

/**
 * Who this installation is to Plex and which tokens it holds. The client identifier is made once
 * and kept (plex.tv ties PINs and the device list to it); tokens are decrypted only here, for the
 * client that sends them in a header.
 */
const CLIENT_ID_KEY = 'plex.clientIdentifier';
export const PLEX_PRODUCT = 'Tonearm';
const TIMEOUT_MS = 15_000;

export const PLEX_NOT_CONNECTED = 'Connect a Plex account first: Settings → Library → Plex → Connect with Plex';

export function plexClientIdentifier(ctx: Deps): string {
  let id = ctx.kv.get<string>(CLIENT_ID_KEY);
  if (typeof id !== 'string' || id === '') {
    id = crypto.randomUUID();
    ctx.kv.put(CLIENT_ID_KEY, id);
  }
  return id;
}

export function plexProduct(ctx: Deps): PlexProduct {
  return { clientIdentifier: plexClientIdentifier(ctx), product: PLEX_PRODUCT, version: ctx.appVersion, deviceName: PLEX_PRODUCT };
}

export function plexSettings(ctx: Deps): Settings['integrations']['plex'] {
  return ctx.settings.get().integrations.plex;
}

export function plexTv(ctx: Deps, token: string | null = null): PlexTvClient {
  return new PlexTvClient({ baseUrl: ctx.config.upstreams.plextv, product: plexProduct(ctx), token, timeoutMs: TIMEOUT_MS });
}

export function sealToken(ctx: Deps, token: string): string {
  return encrypt(ctx.secrets.encryptionKey, token);
}

function open(ctx: Deps, sealed: string): string | null {
  try {
    return decrypt(ctx.secrets.encryptionKey, sealed);
  } catch {
    // Sealed with another installation's key (a copied database): the account must be connected again.
    ctx.log.warn('a stored Plex token cannot be decrypted; connect Plex again');
    return null;
  }
}

/** The administrator's plex.tv token, or null when no account is connected. */
export function accountToken(ctx: Deps): string | null {
  const row = plexAccount.get(ctx.db);
  return row ? open(ctx, row.tokenEnc) : null;
}

export function requireAccountToken(ctx: Deps): string {
  const token = accountToken(ctx);
  if (!token) throw new NotConfiguredError('integrations.plex', PLEX_NOT_CONNECTED);
  return token;
}

/** The token for one server: its own access token from plex.tv's list when known, else the account token. */
export function serverToken(ctx: Deps, machineIdentifier: string | null | undefined): string | null {
  const sealed = machineIdentifier ? plexServerTokens.get(ctx.db, machineIdentifier) : undefined;
  return (sealed && open(ctx, sealed)) || accountToken(ctx);
}

/** A user's own Plex token (their account, or the managed Home user linked for them), or null. */
export function plexTokenForUser(ctx: Deps, userId: number): string | null {
  const link = plexLinks.get(ctx.db, userId);
  return link ? open(ctx, link.tokenEnc) : null;
}

/**
 * Where the stored Plex tokens may go (the rule of settings/secretOrigin.ts for Plex): the origins of
 * the connection URIs plex.tv listed for a server (kept each time the account's servers are listed),
 * and the origin `integrations.plex.url` named when the account was connected. Any other address
 * gets no token until the administrator connects Plex again with that address saved.
 */
const ORIGINS_KEY = 'plex.tokenOrigins';

interface TokenOrigins {
  /** machineIdentifier → origins of the connections plex.tv listed for that server. */
  listed: Record<string, string[]>;
  /** The server address saved when the account token was stored, or null. */
  linked: string | null;
}

function tokenOrigins(ctx: Deps): TokenOrigins {
  const stored = ctx.kv.get<TokenOrigins>(ORIGINS_KEY);
  return { listed: stored?.listed ?? {}, linked: stored?.linked ?? null };
}

/** plex.tv's current list of the account's servers and their connections replaces the remembered one. */
export function rememberListedOrigins(ctx: Deps, servers: { clientIdentifier: string; connections: { uri: string }[] }[]): void {
  const listed: Record<string, string[]> = {};
  for (const s of servers) listed[s.clientIdentifier] = [...new Set(s.connections.map((c) => originOf(c.uri)).filter((o) => o !== ''))];
  ctx.kv.put(ORIGINS_KEY, { ...tokenOrigins(ctx), listed });
}

/** The account was (re)connected: its token is meant for the server address saved now (if any). */
export function bindTokenToSavedServer(ctx: Deps): void {
  const url = plexSettings(ctx).url;
  ctx.kv.put(ORIGINS_KEY, { ...tokenOrigins(ctx), linked: url ? originOf(url) || null : null });
}

export function forgetTokenOrigins(ctx: Deps): void {
  ctx.kv.put(ORIGINS_KEY, { listed: {}, linked: null });
}

/**
 * May a stored token go to this address? Its origin is one plex.tv listed for the server (for any of
 * the account's servers when none is named), or the one the account was connected with.
 */
export function tokenMayGoTo(ctx: Deps, url: string, machineIdentifier: string | null | undefined): boolean {
  const origin = originOf(url);
  if (origin === '') return false;
  const t = tokenOrigins(ctx);
  if (t.linked === origin) return true;
  if (machineIdentifier) return (t.listed[machineIdentifier] ?? []).includes(origin);
  return Object.values(t.listed).some((origins) => origins.includes(origin));
}

const relinkMessage = (url: string) =>
  `${originOf(url) || url} is not an address plex.tv lists for this Plex server, and the Plex token was not stored for it: ` +
  'choose one of the server\'s connections (Settings → Library → Plex → servers), or save this address and connect Plex again ' +
  '(a stored Plex token is only sent to the addresses it is meant for)';

/** 400 SECRET_REENTRY_REQUIRED for an address a connection test names. */
export function relinkRequired(url: string, path = 'url'): ValidationError {
  const message = relinkMessage(url);
  return new ValidationError(message, SECRET_REENTRY_REQUIRED, [{ path, message }]);
}

export function plexServerClient(ctx: Deps, baseUrl: string, token: string | null): PlexServerClient {
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
export function plexServerOf(ctx: Deps): PlexServerConnection {
  const s = plexSettings(ctx);
  if (!s.url) throw new NotConfiguredError('integrations.plex.url', 'Choose a Plex server first: Settings → Library → Plex');
  if (!s.enabled) throw new NotConfiguredError('integrations.plex.enabled', 'Plex is switched off in Settings (integrations.plex.enabled)');
  const token = serverToken(ctx, s.machineIdentifier);
  if (!token) throw new NotConfiguredError('integrations.plex', PLEX_NOT_CONNECTED);
  // The saved address moved somewhere no token was meant for: nothing is sent, the administrator re-links.
  if (!tokenMayGoTo(ctx, s.url, s.machineIdentifier)) throw new NotConfiguredError('integrations.plex.url', relinkMessage(s.url));
  return { client: plexServerClient(ctx, s.url, token), url: s.url, machineIdentifier: s.machineIdentifier, librarySectionId: s.librarySectionId };
}
