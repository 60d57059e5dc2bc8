import crypto from 'node:crypto';
import * as oidc from 'openid-client';
import { externalBase } from '../../basePath.js';
import { userIdentitiesRepository, type UserIdentitiesRepository, type UserIdentityRow } from '../../db/userIdentities.js';
import type { UserRow } from '../../db/users.js';
import { IntegrationError } from '../../integrations/errors.js';
import { integrationCause, oidcFetch } from '../../integrations/oidc/fetch.js';
import { ConflictError, DomainError, ForbiddenError, NotConfiguredError, NotFoundError, TooManyRequestsError, UnauthorizedError } from '../errors.js';
import { normalizeIp } from './lanBypass.js';
import type { Role } from './permissions.js';
import { isUserAccount, type Principal } from './principal.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { UsersService } from '../users/service.js';
import type { FailedLogins } from './failedLogins.js';
import type { AuthService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'log'>
  & {
    auth: AuthService;
    failedLogins: FailedLogins;
    settings: SettingsStore;
    users: UsersService;
  };

/**
 * Sign-in with the household's OpenID provider (decisions §3): authorization code with PKCE, state
 * and nonce through `openid-client`; the callback turns the verified ID token into a local account
 * and hands the web UI a one-time code (60 s) that `POST /api/auth/oidc/exchange` trades for a
 * normal session. Settings come from `integrations.oidc`, each OIDC_* environment variable winning.
 *
 * A new identity never takes over an existing account by its name: it gets a new account, unless
 * the signed-in owner linked it from Settings → Account (`POST /api/auth/oidc/link`) or the
 * administrator opted in to binding by a verified email address (`bindVerifiedEmail`).
 */

export const CALLBACK_PATH = '/sso/callback';
export const COMPLETE_PATH = '/sso/complete';
/** The cookie that ties a link flow to the browser that started it (path: the callback only). */
export const LINK_COOKIE = 'tonearm_oidc_link';
export const LOGIN_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;
/** Sign-ins under way from one client address; past it, new starts answer 429 (nothing is evicted). */
export const MAX_PENDING_PER_CLIENT = 30;
/** Sign-ins under way from everyone together. */
const MAX_PENDING = 10_000;
const USERNAME = /^[\w.@-]{1,64}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface OidcSettings {
  enabled: boolean;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  usernameClaim: string;
  groupsClaim: string;
  adminGroups: string[];
  adminUsers: string[];
  defaultRole: Role;
  logoutUrl: string | null;
  label: string;
  allowHttp: boolean;
  /** Bind a new identity to the local account named exactly its email, when the provider says `email_verified: true`. */
  bindVerifiedEmail: boolean;
}

interface PendingLogin {
  verifier: string;
  nonce: string;
  redirectUri: string;
  expiresAt: number;
  /** The client address that started it (normalised). */
  client: string;
  /** A link from Settings → Account: the signed-in account, and the cookie value the callback must bring back. */
  link?: { userId: number; binding: string };
}

/** A sign-in that cannot finish; the callback shows `message` on /sso/complete (or Settings → Account for a link). */
export class OidcLoginError extends DomainError {
  constructor(
    message: string,
    readonly title: string,
    readonly flow: 'signin' | 'link' = 'signin',
  ) {
    super(message, 'OIDC_LOGIN_FAILED');
  }
}

/** What the callback did: a one-time code for the web UI, or an identity linked to the signed-in account. */
export type CallbackResult = { kind: 'signin'; code: string } | { kind: 'link' };

export class OidcService {
  private readonly pending = new Map<string, PendingLogin>();
  /** How many of `pending` each client address started (the per-client cap). */
  private readonly pendingPerClient = new Map<string, number>();
  private readonly codes = new Map<string, { userId: number; expiresAt: number }>();
  private discovered: { key: string; config: Promise<oidc.Configuration> } | null = null;
  private readonly identities: UserIdentitiesRepository;

  constructor(private readonly ctx: Deps) {
    this.identities = userIdentitiesRepository(ctx.db);
  }

  settings(): OidcSettings {
    const s = this.ctx.settings.get().integrations.oidc;
    const env = this.ctx.config.oidc;
    return {
      enabled: env.enabled ?? s.enabled,
      issuer: env.issuer ?? s.issuer,
      clientId: env.clientId ?? s.clientId,
      clientSecret: env.clientSecret ?? s.clientSecret,
      scopes: env.scopes ?? s.scopes,
      usernameClaim: env.usernameClaim ?? s.usernameClaim,
      groupsClaim: env.groupsClaim ?? s.groupsClaim,
      adminGroups: env.adminGroups ?? s.adminGroups,
      adminUsers: (env.adminUsers ?? s.adminUsers).map((u) => u.toLowerCase()),
      defaultRole: env.defaultRole ?? s.defaultRole,
      logoutUrl: (env.logoutUrl ?? s.logoutUrl) || null,
      label: s.label,
      allowHttp: env.allowHttp,
      bindVerifiedEmail: env.bindVerifiedEmail ?? s.bindVerifiedEmail,
    };
  }

  /** On when switched on with an issuer and a client id (bootstrap's and health's `oidcEnabled`). */
  enabled(): boolean {
    const s = this.settings();
    return s.enabled && s.issuer !== '' && s.clientId !== '';
  }

  private require(): OidcSettings {
    const s = this.settings();
    if (!s.enabled) throw new NotConfiguredError('integrations.oidc.enabled', 'OpenID sign-in is switched off (OIDC_ENABLED or integrations.oidc.enabled)');
    if (!s.issuer || !s.clientId)
      throw new NotConfiguredError('integrations.oidc', 'OpenID sign-in needs an issuer and a client id (OIDC_ISSUER, OIDC_CLIENT_ID or integrations.oidc)');
    if (new URL(s.issuer).protocol === 'http:' && !s.allowHttp)
      throw new NotConfiguredError('OIDC_ALLOW_HTTP', 'The OpenID issuer uses http://; set OIDC_ALLOW_HTTP=true to allow it (home labs without TLS)');
    return s;
  }

  /**
   * The provider's metadata, discovered once per issuer and client. Every request to the provider
   * goes through the guarded fetch, and ID tokens are always checked against the provider's JWKS
   * (openid-client skips the signature by default, trusting TLS, which an http:// issuer lacks).
   */
  private configuration(s: OidcSettings): Promise<oidc.Configuration> {
    const key = JSON.stringify([s.issuer, s.clientId, s.clientSecret, s.allowHttp]);
    if (this.discovered?.key !== key) {
      const auth = s.clientSecret ? oidc.ClientSecretBasic(s.clientSecret) : oidc.None();
      const config = oidc
        .discovery(new URL(s.issuer), s.clientId, undefined, auth, {
          timeout: 10,
          [oidc.customFetch]: oidcFetch(),
          execute: [oidc.enableNonRepudiationChecks, ...(s.allowHttp ? [oidc.allowInsecureRequests] : [])],
        })
        .catch((err: unknown) => {
          if (this.discovered?.key === key) this.discovered = null;
          const cause = integrationCause(err);
          if (cause) throw cause;
          throw new IntegrationError('OpenID provider', 'unreachable', `discovery at ${s.issuer} failed: ${describe(err)}`);
        });
      this.discovered = { key, config };
    }
    return this.discovered.config;
  }

  /**
   * Where to send the browser: the provider's authorization page with PKCE, state and nonce. With
   * `link`, the sign-in binds the identity to that (signed-in) account instead of signing in, and
   * `binding` must come back from the same browser (a cookie) for the callback to accept it.
   * Each client address may have MAX_PENDING_PER_CLIENT sign-ins under way; past it, 429.
   */
  async start(origin: string, clientAddress: string | undefined, link?: { userId: number }): Promise<{ url: string; binding?: string }> {
    const s = this.require();
    const config = await this.configuration(s);
    const now = this.ctx.clock.now();
    this.sweep(now);
    const client = normalizeIp(clientAddress) || 'unknown';
    this.admit(client, now);
    if (link && this.identities.hasIssuer(link.userId, config.serverMetadata().issuer))
      throw new ConflictError('Your account is already linked to an identity at this provider; unlink it first', 'ALREADY_LINKED');
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const redirectUri = `${externalBase(this.ctx.config, origin)}${CALLBACK_PATH}`;
    const binding = link ? crypto.randomBytes(32).toString('base64url') : undefined;
    this.pending.set(state, { verifier, nonce, redirectUri, expiresAt: now + LOGIN_TTL_MS, client, ...(link && { link: { userId: link.userId, binding: binding! } }) });
    this.pendingPerClient.set(client, (this.pendingPerClient.get(client) ?? 0) + 1);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: s.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, ...(binding && { binding }) };
  }

  /** Refuses a new pending sign-in when its client (or everyone together) has too many; nothing is ever evicted. */
  private admit(client: string, now: number): void {
    const mine = this.pendingPerClient.get(client) ?? 0;
    if (mine >= MAX_PENDING_PER_CLIENT) {
      let oldest = now + LOGIN_TTL_MS;
      for (const p of this.pending.values()) if (p.client === client && p.expiresAt < oldest) oldest = p.expiresAt;
      throw new TooManyRequestsError('Too many OpenID sign-ins started from this address; finish one or wait until they expire', Math.max(1, Math.ceil((oldest - now) / 1000)));
    }
    if (this.pending.size >= MAX_PENDING)
      throw new TooManyRequestsError('Too many OpenID sign-ins are under way; try again in a few minutes', Math.ceil(LOGIN_TTL_MS / 1000));
  }

  private take(state: string): PendingLogin | undefined {
    const login = this.pending.get(state);
    if (!login) return undefined;
    this.pending.delete(state);
    const left = (this.pendingPerClient.get(login.client) ?? 1) - 1;
    if (left > 0) this.pendingPerClient.set(login.client, left);
    else this.pendingPerClient.delete(login.client);
    return login;
  }

  /**
   * The provider sent the browser back: check state, PKCE and the ID token (signature included),
   * then either find or create the account and answer a one-time code for the web UI, or (a link
   * started from Settings → Account, in this browser) bind the identity to the signed-in account.
   */
  async complete(callbackUrl: URL, linkCookie?: string): Promise<CallbackResult> {
    const s = this.require();
    const state = callbackUrl.searchParams.get('state') ?? '';
    const now = this.ctx.clock.now();
    const login = this.take(state);
    const flow = login?.link ? 'link' : 'signin';
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError) {
      const description = callbackUrl.searchParams.get('error_description');
      throw new OidcLoginError(`The OpenID provider refused the sign-in: ${description || providerError}`, 'Sign-in refused', flow);
    }
    if (!login || login.expiresAt <= now) throw new OidcLoginError('This sign-in link has expired or was already used; start again', 'Sign-in expired', flow);
    if (login.link && !sameSecret(linkCookie, login.link.binding))
      throw new OidcLoginError('This link was started in another browser; start it again from Settings → Account', 'Link refused', 'link');
    let config: oidc.Configuration;
    try {
      config = await this.configuration(s);
    } catch (err) {
      throw new OidcLoginError(`The OpenID provider could not be reached: ${describe(err)}`, 'Sign-in failed', flow);
    }
    // The token request must name the redirect URI the authorization used, whatever host answered.
    const current = new URL(login.redirectUri);
    current.search = callbackUrl.search;
    let claims: oidc.IDToken;
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: login.verifier,
        expectedState: state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims()!;
      accessToken = tokens.access_token;
    } catch (err) {
      throw new OidcLoginError(`The OpenID provider's answer was not accepted: ${describe(err)}`, 'Sign-in failed', flow);
    }
    let profile: Record<string, unknown> = { ...claims };
    try {
      // Groups often come only from userinfo; the ID token's claims win where both have a value.
      profile = { ...(await oidc.fetchUserInfo(config, accessToken, claims.sub)), ...claims };
    } catch (err) {
      this.ctx.log.warn('OpenID userinfo not read; using the ID token alone', { error: describe(err) });
    }
    if (login.link) {
      this.link(login.link.userId, claims.iss, claims.sub);
      return { kind: 'link' };
    }
    const user = await this.accountFor(s, claims.iss, claims.sub, profile);
    const code = crypto.randomBytes(32).toString('base64url');
    this.codes.set(code, { userId: user.id, expiresAt: now + CODE_TTL_MS });
    return { kind: 'signin', code };
  }

  /** Trades a one-time code for a session; a wrong or expired code counts as a failed sign-in. */
  async exchange(code: string, meta: { ip?: string; userAgent?: string }) {
    const row = await this.ctx.failedLogins.attempt({ client: meta.ip }, async () => {
      const entry = this.codes.get(code);
      this.codes.delete(code);
      if (!entry || entry.expiresAt <= this.ctx.clock.now()) return null;
      return this.ctx.users.row(entry.userId) ?? null;
    });
    if (!row) throw new UnauthorizedError('This sign-in code is invalid, expired or already used', 'INVALID_CODE');
    if (row.status !== 'active') throw new ForbiddenError('This account has been suspended or disabled');
    return this.ctx.auth.createSession(row, meta);
  }

  /**
   * The account behind a verified subject. A bound subject signs in to its account. A new one gets a
   * new account (its name suffixed when taken: `bob-2`), never an existing account by name; the only
   * exception is an administrator's opt-in (`bindVerifiedEmail`): a local account named exactly the
   * email address the provider marks verified.
   */
  private async accountFor(s: OidcSettings, issuer: string, subject: string, profile: Record<string, unknown>): Promise<UserRow> {
    const now = this.ctx.clock.now();
    const username = usernameOf(s, profile);
    if (!username) throw new OidcLoginError('The OpenID provider sent no usable user name (preferred_username, email or sub)', 'Sign-in failed');
    const groups = groupsOf(profile[s.groupsClaim]);
    const admin = s.adminUsers.includes(username.toLowerCase()) || groups.some((g) => s.adminGroups.includes(g));
    const bound = this.identities.find(issuer, subject);
    let row: UserRow | undefined;
    if (bound) {
      row = this.ctx.users.row(bound.userId);
      if (row && bound.createdUser === 1) {
        const role: Role = admin ? 'admin' : s.defaultRole;
        if (row.role !== role) row = await this.setRole(row, role);
      } else if (row && admin && row.role !== 'admin') row = await this.setRole(row, 'admin');
    } else {
      const byEmail = s.bindVerifiedEmail ? this.verifiedEmailAccount(issuer, profile) : undefined;
      if (byEmail) {
        row = byEmail;
        this.identities.bind({ issuer, subject, userId: row.id, createdUser: false, now });
        if (admin && row.role !== 'admin') row = await this.setRole(row, 'admin');
      } else {
        row = await this.createAccount(username, admin ? 'admin' : s.defaultRole);
        this.identities.bind({ issuer, subject, userId: row.id, createdUser: true, now });
      }
    }
    if (!row) throw new OidcLoginError('The account of this sign-in no longer exists', 'Sign-in failed');
    if (row.status !== 'active') throw new OidcLoginError('This account has been suspended or disabled', 'Sign-in refused');
    this.identities.touch(issuer, subject, now);
    return row;
  }

  /** With `bindVerifiedEmail`: the local account named exactly the verified email address, unless it already has an identity here. */
  private verifiedEmailAccount(issuer: string, profile: Record<string, unknown>): UserRow | undefined {
    const verified = profile.email_verified === true || profile.email_verified === 'true';
    const email = typeof profile.email === 'string' ? profile.email.trim() : '';
    if (!verified || !EMAIL.test(email)) return undefined;
    const row = this.ctx.users.findByUsername(email);
    if (!row || this.identities.hasIssuer(row.id, issuer)) return undefined;
    return row;
  }

  /** A new account under `username`, or `username-2`, `-3`, … when the name is taken. */
  private async createAccount(username: string, role: Role): Promise<UserRow> {
    for (let n = 1; n <= 1000; n++) {
      const name = n === 1 ? username : `${username.slice(0, 63 - String(n).length)}-${n}`;
      if (this.ctx.users.findByUsername(name)) continue;
      try {
        const created = await this.ctx.users.create({
          username: name,
          // Never shown: the account signs in through the provider until an administrator sets a password.
          password: crypto.randomBytes(24).toString('base64url'),
          role,
        });
        const row = this.ctx.users.row(created.id);
        if (row) return row;
      } catch (err) {
        // Taken between the look-up and the insert: try the next name.
        if (!(err instanceof ConflictError)) throw err;
      }
    }
    throw new OidcLoginError(`No free user name for ${username}; an administrator can rename accounts`, 'Sign-in failed');
  }

  /** Binds a verified identity to the account that started the link (Settings → Account). */
  private link(userId: number, issuer: string, subject: string): void {
    const row = this.ctx.users.row(userId);
    if (!row || row.status !== 'active') throw new OidcLoginError('Your account no longer exists or is disabled', 'Link refused', 'link');
    const bound = this.identities.find(issuer, subject);
    if (bound?.userId === userId) return;
    if (bound)
      throw new OidcLoginError('This identity already signs in to another account here; an administrator can remove that binding first', 'Link refused', 'link');
    if (this.identities.hasIssuer(userId, issuer))
      throw new OidcLoginError('Your account is already linked to another identity at this provider; unlink it first', 'Link refused', 'link');
    this.identities.bind({ issuer, subject, userId, createdUser: false, now: this.ctx.clock.now() });
  }

  /** The identities bound to an account: the caller's own, or (administrators) anyone's. */
  listIdentities(principal: Principal, userId?: number): UserIdentityRow[] {
    const target = userId ?? principal.userId;
    if (target !== principal.userId && principal.role !== 'admin') throw new ForbiddenError('Admin access required');
    if (!isUserAccount(principal) && userId === undefined) throw new ForbiddenError('This operation needs a user session, not the API key', 'User account required');
    if (!this.ctx.users.row(target)) throw new NotFoundError('User not found');
    return this.identities.forUser(target);
  }

  /**
   * Removes a binding: the caller's own (not the one that created the account, which is how it signs
   * in), or any as an administrator. The identity's next sign-in creates a new account.
   */
  removeIdentity(principal: Principal, id: number): void {
    const row = this.identities.byId(id);
    const own = row !== undefined && row.userId === principal.userId;
    if (!row || (!own && principal.role !== 'admin')) throw new NotFoundError('Identity not found');
    if (own && row.createdUser === 1)
      throw new ConflictError('This identity created your account and is how you sign in; an administrator can remove it', 'IDENTITY_IN_USE');
    this.identities.delete(id);
  }

  private async setRole(row: UserRow, role: Role): Promise<UserRow> {
    try {
      await this.ctx.users.update(row.id, { role });
    } catch (err) {
      // The last administrator keeps the role even when the provider's groups say otherwise.
      if (!(err instanceof ConflictError)) throw err;
    }
    return this.ctx.users.row(row.id) ?? row;
  }

  private sweep(now: number): void {
    for (const [k, v] of this.pending) if (v.expiresAt <= now) this.take(k);
    for (const [k, v] of this.codes) if (v.expiresAt <= now) this.codes.delete(k);
  }
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function describe(err: unknown): string {
  const integration = integrationCause(err);
  if (integration) return integration.message;
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const detail = cause && typeof cause === 'object' && 'error_description' in cause ? String((cause as { error_description: unknown }).error_description) : '';
    return detail ? `${err.message} (${detail})` : err.message;
  }
  return String(err);
}

/** The configured claim, else preferred_username, email, sub; lower-cased, limited to the user-name alphabet. */
export function usernameOf(s: Pick<OidcSettings, 'usernameClaim'>, profile: Record<string, unknown>): string | null {
  const keys = s.usernameClaim ? [s.usernameClaim] : ['preferred_username', 'email', 'sub'];
  for (const key of keys) {
    const value = profile[key];
    if (typeof value !== 'string' || value.trim() === '') continue;
    const name = value.trim().toLowerCase().replace(/[^\w.@-]/g, '_').slice(0, 64);
    if (USERNAME.test(name)) return name;
  }
  return null;
}

/** A groups claim as providers send it: an array of names, or one comma-separated string. */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  if (typeof value === 'string') return value.split(',').map((g) => g.trim()).filter(Boolean);
  return [];
}


