import crypto from 'node:crypto';
import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, parseJson } from '../http.js';

/**
 * Spotify user authorization, two ways (external-services (l)):
 * - through a token broker (Lidarr's public app by default): the browser goes to Spotify's
 *   authorize page with the broker's client id and redirect; the broker trades the code and sends
 *   the browser on to `state` (our page) with the tokens; renewal is `GET <broker>/renew`;
 * - with a client id of our own: authorization code with PKCE against the accounts service
 *   (`/authorize`, `POST /api/token`), renewal with `grant_type=refresh_token`.
 */
export const SPOTIFY_SCOPES = 'playlist-read-private playlist-read-collaborative';
/** Lidarr's public Spotify app, which its broker serves. */
export const BROKER_CLIENT_ID = '848082790c32436d8a0405fddca0aa18';

export interface SpotifyAccountsOptions {
  /** e.g. `https://accounts.spotify.com`. */
  accountsUrl: string;
  /** e.g. `https://spotify.lidarr.audio` (its `/auth` and `/renew`). */
  brokerUrl: string;
  brokerClientId?: string;
  userAgent: string;
  timeoutMs?: number;
}

export interface SpotifyTokens {
  accessToken: string;
  /** Absent when the service kept the old one (a renewal may not send a new refresh token). */
  refreshToken: string | null;
  expiresInSeconds: number;
}

/** The broker and Spotify send snake_case; some brokers camelCase. */
const tokenSchema = z
  .object({
    access_token: z.string().min(1).optional(),
    accessToken: z.string().min(1).optional(),
    refresh_token: z.string().min(1).nullish(),
    refreshToken: z.string().min(1).nullish(),
    expires_in: z.coerce.number().optional(),
    expiresIn: z.coerce.number().optional(),
  })
  .loose();

export function parseTokens(body: unknown): SpotifyTokens | null {
  const parsed = tokenSchema.safeParse(body);
  if (!parsed.success) return null;
  const t = parsed.data;
  const accessToken = t.access_token ?? t.accessToken;
  if (!accessToken) return null;
  const expires = t.expires_in ?? t.expiresIn ?? 3600;
  return { accessToken, refreshToken: t.refresh_token ?? t.refreshToken ?? null, expiresInSeconds: Number.isFinite(expires) && expires > 0 ? expires : 3600 };
}

/** The broker flow's authorize page: the broker trades the code and sends the browser to `returnUrl`. */
export function brokerAuthorizeUrl(o: SpotifyAccountsOptions, returnUrl: string): string {
  const url = new URL(joinUrl(o.accountsUrl, '/authorize'));
  url.searchParams.set('client_id', o.brokerClientId ?? BROKER_CLIENT_ID);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', joinUrl(o.brokerUrl, '/auth'));
  url.searchParams.set('scope', SPOTIFY_SCOPES);
  url.searchParams.set('state', returnUrl);
  url.searchParams.set('show_dialog', 'true');
  return url.href;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(48).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

/** The PKCE flow's authorize page (S256 challenge). */
export function pkceAuthorizeUrl(o: SpotifyAccountsOptions, p: { clientId: string; redirectUri: string; state: string; challenge: string }): string {
  const url = new URL(joinUrl(o.accountsUrl, '/authorize'));
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', p.redirectUri);
  url.searchParams.set('scope', SPOTIFY_SCOPES);
  url.searchParams.set('state', p.state);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('code_challenge', p.challenge);
  return url.href;
}

async function tokenCall(o: SpotifyAccountsOptions, label: string, req: { url: string; method: 'GET' | 'POST'; body?: string }, signal?: AbortSignal): Promise<SpotifyTokens> {
  const answer = await exchange({
    service: 'spotify',
    label,
    url: req.url,
    method: req.method,
    headers: { 'User-Agent': o.userAgent, ...(req.body !== undefined && { 'Content-Type': 'application/x-www-form-urlencoded' }) },
    ...(req.body !== undefined && { body: req.body }),
    timeoutMs: o.timeoutMs ?? 10_000,
    ...(signal && { signal }),
  });
  if (answer.status === 400 || answer.status === 401 || answer.status === 403)
    throw new IntegrationError('spotify', 'unauthorized', `${label} refused the authorization (HTTP ${answer.status}); connect Spotify again`, answer.status);
  if (answer.status === 429) throw new IntegrationError('spotify', 'rate_limited', `${label} answered 429 (rate limited)`, 429);
  if (answer.status < 200 || answer.status >= 300) throw new IntegrationError('spotify', 'server_error', `${label} answered ${answer.status}`, answer.status);
  const tokens = parseTokens(parseJson('spotify', answer));
  if (!tokens) throw new IntegrationError('spotify', 'bad_response', `${label} answered without an access token`);
  return tokens;
}

/** PKCE: the code Spotify sent back, for tokens. */
export function exchangeCode(o: SpotifyAccountsOptions, p: { clientId: string; code: string; redirectUri: string; verifier: string }, signal?: AbortSignal): Promise<SpotifyTokens> {
  const body = new URLSearchParams({ grant_type: 'authorization_code', code: p.code, redirect_uri: p.redirectUri, client_id: p.clientId, code_verifier: p.verifier });
  return tokenCall(o, 'Spotify accounts', { url: joinUrl(o.accountsUrl, '/api/token'), method: 'POST', body: body.toString() }, signal);
}

/** PKCE: a fresh access token (and maybe a new refresh token). */
export function refreshPkce(o: SpotifyAccountsOptions, p: { clientId: string; refreshToken: string }, signal?: AbortSignal): Promise<SpotifyTokens> {
  const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: p.refreshToken, client_id: p.clientId });
  return tokenCall(o, 'Spotify accounts', { url: joinUrl(o.accountsUrl, '/api/token'), method: 'POST', body: body.toString() }, signal);
}

/** Broker: `GET <broker>/renew?refresh_token=…`. */
export function renewViaBroker(o: SpotifyAccountsOptions, refreshToken: string, signal?: AbortSignal): Promise<SpotifyTokens> {
  const url = new URL(joinUrl(o.brokerUrl, '/renew'));
  url.searchParams.set('refresh_token', refreshToken);
  return tokenCall(o, 'The Spotify token broker', { url: url.href, method: 'GET' }, signal);
}
