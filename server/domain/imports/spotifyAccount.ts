import crypto from 'node:crypto';
import { externalBase } from '../../basePath.js';
import { spotifyLinks, spotifyOAuthStates, type SpotifyMethod } from '../../db/playlistImports.js';
import { IntegrationError } from '../../integrations/errors.js';
import {
  brokerAuthorizeUrl,
  exchangeCode,
  pkceAuthorizeUrl,
  pkcePair,
  refreshPkce,
  renewViaBroker,
  type SpotifyAccountsOptions,
  type SpotifyTokens } from '../../integrations/spotify/accounts.js';
import { SpotifyUserClient, type SpotifyTokenSource } from '../../integrations/spotify/user.js';
import { decrypt, encrypt } from '../../secrets.js';
import { ConflictError, NotConfiguredError, ValidationError } from '../errors.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'log' | 'secrets'>
  & {
    settings: SettingsStore;
    metadata: MetadataService;
    spotifyRenewals: Map<number, Promise<string>>;
  };

/** Tokens are renewed this long before they expire. */
export const REFRESH_AHEAD_MS = 5 * 60_000;
/** An OAuth request must be completed within this time. */
const STATE_TTL_MS = 10 * 60_000;
/** The web UI page Spotify (PKCE) or the broker sends the browser back to. */
export const SPOTIFY_CALLBACK_PATH = '/import/spotify/callback';

export interface SpotifyStatus {
  connected: boolean;
  /** How a new connection is made: `pkce` with integrations.spotify.clientId, else `broker`. */
  method: SpotifyMethod;
  displayName: string | null;
  spotifyUserId: string | null;
  /** PKCE only: the redirect URI to register with the Spotify app. */
  redirectUri: string | null;
}

function accountsOptions(ctx: Deps): SpotifyAccountsOptions {
  const up = ctx.config.upstreams;
  return {
    accountsUrl: up.spotifyAccounts,
    brokerUrl: up.spotifyBroker,
    ...(up.spotifyBrokerClientId && { brokerClientId: up.spotifyBrokerClientId }),
    userAgent: ctx.metadata.userAgent(),
  };
}

const ownClientId = (ctx: Deps): string | null => ctx.settings.get().integrations.spotify.clientId.trim() || null;
const callbackUrl = (ctx: Deps, origin: string) => `${externalBase(ctx.config, origin)}${SPOTIFY_CALLBACK_PATH}`;

export function spotifyStatus(ctx: Deps, userId: number, origin: string): SpotifyStatus {
  const link = spotifyLinks.get(ctx.db, userId);
  const method: SpotifyMethod = ownClientId(ctx) ? 'pkce' : 'broker';
  return {
    connected: !!link,
    method,
    displayName: link?.displayName ?? null,
    spotifyUserId: link?.spotifyUserId ?? null,
    redirectUri: method === 'pkce' ? callbackUrl(ctx, origin) : null,
  };
}

/** `oauth/start`: Spotify's authorize page for this user, tied to a one-time state. */
export function startSpotifyOAuth(ctx: Deps, userId: number, origin: string): { url: string; state: string; method: SpotifyMethod } {
  const state = crypto.randomBytes(24).toString('base64url');
  const clientId = ownClientId(ctx);
  const o = accountsOptions(ctx);
  const now = ctx.clock.now();
  if (clientId) {
    const { verifier, challenge } = pkcePair();
    const redirectUri = callbackUrl(ctx, origin);
    spotifyOAuthStates.insert(ctx.db, { state, userId, method: 'pkce', codeVerifierEnc: encrypt(ctx.secrets.encryptionKey, verifier), redirectUri, expiresAt: now + STATE_TTL_MS }, now);
    return { url: pkceAuthorizeUrl(o, { clientId, redirectUri, state, challenge }), state, method: 'pkce' };
  }
  // The broker sends the browser to `state` with the tokens; our state rides along in its query.
  const back = new URL(callbackUrl(ctx, origin));
  back.searchParams.set('state', state);
  spotifyOAuthStates.insert(ctx.db, { state, userId, method: 'broker', codeVerifierEnc: null, redirectUri: back.href, expiresAt: now + STATE_TTL_MS }, now);
  return { url: brokerAuthorizeUrl(o, back.href), state, method: 'broker' };
}

export type OAuthCompletion = { state: string; code?: string; accessToken?: string; refreshToken?: string; expiresIn?: number };

/** `oauth/complete`: PKCE's code (traded here) or the broker's tokens; checked with `/me` before they are stored. */
export async function completeSpotifyOAuth(ctx: Deps, userId: number, input: OAuthCompletion, origin: string): Promise<SpotifyStatus> {
  const pending = spotifyOAuthStates.take(ctx.db, input.state);
  if (!pending || pending.userId !== userId || pending.expiresAt < ctx.clock.now())
    throw new ValidationError('This Spotify connection request is unknown, expired or used already: connect again', 'INVALID_STATE');
  const o = accountsOptions(ctx);
  let tokens: SpotifyTokens;
  let clientId: string | null = null;
  if (pending.method === 'pkce') {
    clientId = ownClientId(ctx);
    if (!input.code) throw new ValidationError('Spotify sent no authorization code back: the access was not granted', 'NO_CODE');
    if (!clientId) throw new NotConfiguredError('integrations.spotify.clientId', 'The Spotify client id was removed while connecting: set integrations.spotify.clientId again');
    try {
      tokens = await exchangeCode(o, { clientId, code: input.code, redirectUri: pending.redirectUri, verifier: decrypt(ctx.secrets.encryptionKey, pending.codeVerifierEnc!) });
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'unauthorized') throw new ValidationError('Spotify did not accept the authorization code: connect again', 'INVALID_CODE');
      throw err;
    }
  } else {
    if (!input.accessToken) throw new ValidationError('The token broker sent no access token back: the access was not granted', 'NO_TOKEN');
    tokens = { accessToken: input.accessToken, refreshToken: input.refreshToken ?? null, expiresInSeconds: input.expiresIn && input.expiresIn > 0 ? input.expiresIn : 3600 };
  }
  const now = ctx.clock.now();
  const sealed = (v: string) => encrypt(ctx.secrets.encryptionKey, v);
  // Checked before it is stored: a token Spotify refuses never becomes a link.
  let me: { id: string; displayName: string | null };
  try {
    me = await new SpotifyUserClient({ apiUrl: ctx.config.upstreams.spotifyApi, userAgent: o.userAgent, tokens: { current: async () => tokens.accessToken, renewed: async () => tokens.accessToken } }).me();
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'unauthorized') throw new ValidationError('Spotify did not accept the access token: connect again', 'INVALID_TOKEN');
    throw err;
  }
  spotifyLinks.upsert(
    ctx.db,
    {
      userId,
      method: pending.method,
      clientId,
      spotifyUserId: me.id,
      displayName: me.displayName,
      accessTokenEnc: sealed(tokens.accessToken),
      refreshTokenEnc: tokens.refreshToken ? sealed(tokens.refreshToken) : null,
      expiresAt: now + tokens.expiresInSeconds * 1000,
    },
    now,
  );
  ctx.log.info('Spotify account connected', { userId, spotifyUser: me.id, method: pending.method });
  return spotifyStatus(ctx, userId, origin);
}

export function disconnectSpotify(ctx: Deps, userId: number): { success: true; connected: false } {
  spotifyLinks.delete(ctx.db, userId);
  return { success: true, connected: false };
}


/** The user's tokens: renewed 5 minutes before they expire, and on demand after a 401. */
export function spotifyTokens(ctx: Deps, userId: number): SpotifyTokenSource {
  const renew = (signal?: AbortSignal): Promise<string> => {
    // One renewal at a time per user, whoever asks.
    const map = ctx.spotifyRenewals;
    const running = map.get(userId);
    if (running) return running;
    const p = renewNow(ctx, userId, signal).finally(() => map.delete(userId));
    map.set(userId, p);
    return p;
  };
  return {
    async current(signal) {
      const link = spotifyLinks.get(ctx.db, userId);
      if (!link) throw notConnected();
      if (link.expiresAt - ctx.clock.now() > REFRESH_AHEAD_MS) return decrypt(ctx.secrets.encryptionKey, link.accessTokenEnc);
      return renew(signal);
    },
    renewed: (signal) => renew(signal),
  };
}

async function renewNow(ctx: Deps, userId: number, signal?: AbortSignal): Promise<string> {
  const link = spotifyLinks.get(ctx.db, userId);
  if (!link) throw notConnected();
  if (!link.refreshTokenEnc) throw new ConflictError('The Spotify connection cannot be renewed (no refresh token): connect Spotify again', 'REAUTH_REQUIRED');
  const refreshToken = decrypt(ctx.secrets.encryptionKey, link.refreshTokenEnc);
  const o = accountsOptions(ctx);
  let tokens: SpotifyTokens;
  try {
    tokens =
      link.method === 'pkce'
        ? await refreshPkce(o, { clientId: link.clientId ?? ownClientId(ctx) ?? '', refreshToken }, signal)
        : await renewViaBroker(o, refreshToken, signal);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'unauthorized')
      throw new ConflictError('Spotify refused to renew the connection: connect Spotify again', 'REAUTH_REQUIRED');
    throw err;
  }
  const now = ctx.clock.now();
  spotifyLinks.setTokens(
    ctx.db,
    userId,
    {
      accessTokenEnc: encrypt(ctx.secrets.encryptionKey, tokens.accessToken),
      refreshTokenEnc: tokens.refreshToken ? encrypt(ctx.secrets.encryptionKey, tokens.refreshToken) : null,
      expiresAt: now + tokens.expiresInSeconds * 1000,
    },
    now,
  );
  ctx.log.info('Spotify access renewed', { userId });
  return tokens.accessToken;
}

const notConnected = () => new NotConfiguredError('spotify account', 'Connect your Spotify account first (Settings → Account)');

/** The Web API as this user; 409 NOT_CONFIGURED when no account is connected. */
export function spotifyUserClient(ctx: Deps, userId: number): SpotifyUserClient {
  if (!spotifyLinks.get(ctx.db, userId)) throw notConnected();
  const spacing = ctx.config.upstreams.spacingMs;
  return new SpotifyUserClient({
    apiUrl: ctx.config.upstreams.spotifyApi,
    userAgent: ctx.metadata.userAgent(),
    tokens: spotifyTokens(ctx, userId),
    ...(spacing !== null && { spacingMs: spacing }),
  });
}
