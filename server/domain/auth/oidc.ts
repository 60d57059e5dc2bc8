import crypto from 'node:crypto';
import * as oidc from 'openid-client';
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/users.js';
import { IntegrationError } from '../../integrations/errors.js';
import { ConflictError, DomainError, ForbiddenError, NotConfiguredError, UnauthorizedError } from '../errors.js';
import type { Role } from './permissions.js';

/**
 * Sign-in with the household's OpenID provider (decisions §3): authorization code with PKCE, state
 * and nonce through `openid-client`; the callback turns the verified ID token into a local account
 * and hands the web UI a one-time code (60 s) that `POST /api/auth/oidc/exchange` trades for a
 * normal session. Settings come from `integrations.oidc`, each OIDC_* environment variable winning.
 */

export const CALLBACK_PATH = '/sso/callback';
export const COMPLETE_PATH = '/sso/complete';
const LOGIN_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;
const MAX_PENDING = 1000;
const USERNAME = /^[\w.@-]{1,64}$/;

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
}

interface PendingLogin {
  verifier: string;
  nonce: string;
  redirectUri: string;
  expiresAt: number;
}

/** A sign-in that cannot finish; the callback shows `message` on /sso/complete instead of a JSON body. */
export class OidcLoginError extends DomainError {
  constructor(
    message: string,
    readonly title: string,
  ) {
    super(message, 'OIDC_LOGIN_FAILED');
  }
}

export class OidcService {
  private readonly pending = new Map<string, PendingLogin>();
  private readonly codes = new Map<string, { userId: number; expiresAt: number }>();
  private discovered: { key: string; config: Promise<oidc.Configuration> } | null = null;

  constructor(private readonly ctx: AppContext) {}

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

  /** The provider's metadata, discovered once per issuer and client. */
  private configuration(s: OidcSettings): Promise<oidc.Configuration> {
    const key = JSON.stringify([s.issuer, s.clientId, s.clientSecret, s.allowHttp]);
    if (this.discovered?.key !== key) {
      const auth = s.clientSecret ? oidc.ClientSecretBasic(s.clientSecret) : oidc.None();
      const config = oidc
        .discovery(new URL(s.issuer), s.clientId, undefined, auth, {
          timeout: 10,
          ...(s.allowHttp && { execute: [oidc.allowInsecureRequests] }),
        })
        .catch((err: unknown) => {
          if (this.discovered?.key === key) this.discovered = null;
          throw new IntegrationError('OpenID provider', 'unreachable', `discovery at ${s.issuer} failed: ${describe(err)}`);
        });
      this.discovered = { key, config };
    }
    return this.discovered.config;
  }

  /** Where to send the browser: the provider's authorization page with PKCE, state and nonce. */
  async authorizationUrl(origin: string): Promise<string> {
    const s = this.require();
    const config = await this.configuration(s);
    const now = this.ctx.clock.now();
    this.sweep(now);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const redirectUri = `${this.ctx.config.publicUrl ?? origin}${CALLBACK_PATH}`;
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(state, { verifier, nonce, redirectUri, expiresAt: now + LOGIN_TTL_MS });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: s.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return url.href;
  }

  /**
   * The provider sent the browser back: check state, PKCE and the ID token, find or create the
   * account, and answer a one-time code for the web UI.
   */
  async complete(callbackUrl: URL): Promise<string> {
    const s = this.require();
    const state = callbackUrl.searchParams.get('state') ?? '';
    const now = this.ctx.clock.now();
    const login = this.pending.get(state);
    this.pending.delete(state);
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError) {
      const description = callbackUrl.searchParams.get('error_description');
      throw new OidcLoginError(`The OpenID provider refused the sign-in: ${description || providerError}`, 'Sign-in refused');
    }
    if (!login || login.expiresAt <= now) throw new OidcLoginError('This sign-in link has expired or was already used; start again', 'Sign-in expired');
    const config = await this.configuration(s);
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
      throw new OidcLoginError(`The OpenID provider's answer was not accepted: ${describe(err)}`, 'Sign-in failed');
    }
    let profile: Record<string, unknown> = { ...claims };
    try {
      // Groups often come only from userinfo; the ID token's claims win where both have a value.
      profile = { ...(await oidc.fetchUserInfo(config, accessToken, claims.sub)), ...claims };
    } catch (err) {
      this.ctx.log.warn('OpenID userinfo not read; using the ID token alone', { error: describe(err) });
    }
    const user = await this.accountFor(s, claims.iss, claims.sub, profile);
    const code = crypto.randomBytes(32).toString('base64url');
    this.codes.set(code, { userId: user.id, expiresAt: now + CODE_TTL_MS });
    return code;
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

  /** The account behind a verified subject: its bound user, else the same user name (bound now), else a new account. */
  private async accountFor(s: OidcSettings, issuer: string, subject: string, profile: Record<string, unknown>): Promise<UserRow> {
    const db = this.ctx.db;
    const now = this.ctx.clock.now();
    const username = usernameOf(s, profile);
    if (!username) throw new OidcLoginError('The OpenID provider sent no usable user name (preferred_username, email or sub)', 'Sign-in failed');
    const groups = groupsOf(profile[s.groupsClaim]);
    const admin = s.adminUsers.includes(username.toLowerCase()) || groups.some((g) => s.adminGroups.includes(g));
    const bound = db.prepare('SELECT user_id AS userId, created_user AS createdUser FROM user_identities WHERE issuer = ? AND subject = ?').get(issuer, subject) as
      | { userId: number; createdUser: number }
      | undefined;
    let row: UserRow | undefined;
    let createdNow = false;
    if (bound) {
      row = this.ctx.users.row(bound.userId);
      if (row && bound.createdUser === 1) {
        const role: Role = admin ? 'admin' : s.defaultRole;
        if (row.role !== role) row = await this.setRole(row, role);
      } else if (row && admin && row.role !== 'admin') row = await this.setRole(row, 'admin');
    } else {
      row = this.ctx.users.findByUsername(username);
      if (row) {
        const other = db.prepare('SELECT 1 FROM user_identities WHERE user_id = ? AND issuer = ?').get(row.id, issuer);
        if (other) throw new OidcLoginError(`The account ${row.username} belongs to another identity at this provider`, 'Sign-in refused');
        if (admin && row.role !== 'admin') row = await this.setRole(row, 'admin');
      } else {
        const created = await this.ctx.users.create({
          username,
          // Never shown: the account signs in through the provider until an administrator sets a password.
          password: crypto.randomBytes(24).toString('base64url'),
          role: admin ? 'admin' : s.defaultRole,
        });
        row = this.ctx.users.row(created.id);
        createdNow = true;
      }
      if (row) {
        db.prepare(
          'INSERT INTO user_identities (issuer, subject, user_id, created_user, created_at, last_login_at) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(issuer, subject, row.id, createdNow ? 1 : 0, now, now);
      }
    }
    if (!row) throw new OidcLoginError('The account of this sign-in no longer exists', 'Sign-in failed');
    if (row.status !== 'active') throw new OidcLoginError('This account has been suspended or disabled', 'Sign-in refused');
    db.prepare('UPDATE user_identities SET last_login_at = ? WHERE issuer = ? AND subject = ?').run(now, issuer, subject);
    return row;
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
    for (const [k, v] of this.pending) if (v.expiresAt <= now) this.pending.delete(k);
    for (const [k, v] of this.codes) if (v.expiresAt <= now) this.codes.delete(k);
  }
}

function describe(err: unknown): string {
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

const services = new WeakMap<AppContext, OidcService>();

export function oidcOf(ctx: AppContext): OidcService {
  let s = services.get(ctx);
  if (!s) {
    s = new OidcService(ctx);
    services.set(ctx, s);
  }
  return s;
}
