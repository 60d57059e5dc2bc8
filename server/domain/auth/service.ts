import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { SessionsRepository } from '../../db/sessions.js';
import type { SettingsRepository } from '../../db/settings.js';
import type { UserRow } from '../../db/users.js';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../errors.js';
import type { SettingsStore } from '../settings/store.js';
import type { UsersService } from '../users/service.js';
import { toUser } from '../users/service.js';
import type { FailedLogins } from './failedLogins.js';
import { safeEqual } from './passwords.js';
import { effectivePermissions } from './permissions.js';
import { NO_USER_ID, type Principal } from './principal.js';
import { isTrustedLanAddress, type InterfaceLister, type LanBypassStatus } from './lanBypass.js';

const API_KEY = 'instance.apiKey';
const ONBOARDING = 'onboarding.complete';
export const STREAM_TOKEN_TTL_MS = 120_000;

export interface AuthDeps {
  users: UsersService;
  sessions: SessionsRepository;
  kv: SettingsRepository;
  settings: SettingsStore;
  sessionKey: Buffer;
  sessionTtlMs: number;
  clock: { now(): number };
  /** Every password check goes through it. */
  failedLogins: FailedLogins;
  interfaces?: InterfaceLister;
}

export interface LoginMeta {
  ip?: string;
  userAgent?: string;
}

/** Sessions, the instance API key, stream tokens, onboarding state and LAN auto-login. */
export class AuthService {
  private apiKeyCache: string | undefined;
  private readonly streamTokens = new Map<string, { principal: Principal; expiresAt: number }>();
  /**
   * The session key as a KeyObject, made once: given the raw bytes, jsonwebtoken first tries them as
   * a public key and builds the secret key only after that throws, about 1 ms of every request.
   */
  private readonly sessionKey: crypto.KeyObject;

  constructor(private readonly deps: AuthDeps) {
    this.sessionKey = crypto.createSecretKey(deps.sessionKey);
    deps.users.onDeactivated((userId) => {
      for (const [token, entry] of this.streamTokens) if (entry.principal.userId === userId) this.streamTokens.delete(token);
    });
  }

  // ---- onboarding ------------------------------------------------------------------------

  isOnboarded(): boolean {
    return this.deps.kv.get<boolean>(ONBOARDING) === true;
  }

  /** Ends onboarding: the instance API key is made now (a fresh one), never before. */
  markOnboarded(): void {
    this.rotateApiKey();
    this.deps.kv.put(ONBOARDING, true, this.deps.clock.now());
  }

  // ---- sessions --------------------------------------------------------------------------

  async login(username: string, password: string, meta: LoginMeta = {}) {
    if (!username || !password) throw new ValidationError('Username and password are required');
    const row = await this.deps.failedLogins.attempt({ client: meta.ip, account: username }, () =>
      this.deps.users.verifyCredentials(username, password),
    );
    if (!row) throw new UnauthorizedError('Invalid username or password', 'INVALID_CREDENTIALS');
    if (row.status !== 'active') throw new ForbiddenError('This account has been suspended or disabled');
    return this.createSession(this.deps.users.spendOneTimePassword(row), meta);
  }

  createSession(row: UserRow, meta: LoginMeta = {}) {
    const now = this.deps.clock.now();
    const id = crypto.randomBytes(24).toString('base64url');
    const expiresAt = now + this.deps.sessionTtlMs;
    this.deps.sessions.insert({
      id,
      user_id: row.id,
      created_at: now,
      expires_at: expiresAt,
      ip_address: meta.ip ?? null,
      user_agent: meta.userAgent?.slice(0, 512) ?? null,
    });
    // iat from our clock, so an injected test clock and the row's expiry agree.
    const token = jwt.sign({ sid: id, sub: String(row.id), iat: Math.floor(now / 1000) }, this.sessionKey, {
      algorithm: 'HS256',
      expiresIn: Math.floor(this.deps.sessionTtlMs / 1000),
    });
    const user = toUser(row);
    return {
      token,
      expiresAt,
      user: { id: user.id, username: user.username, role: user.role, permissions: user.permissions },
      ...(row.must_change_password !== 0 && { mustChangePassword: true as const }),
    };
  }

  /** The principal behind a session token, or null when it is invalid, expired or revoked. */
  resolveSession(token: string): Principal | null {
    let payload: jwt.JwtPayload;
    try {
      payload = jwt.verify(token, this.sessionKey, {
        algorithms: ['HS256'],
        clockTimestamp: Math.floor(this.deps.clock.now() / 1000),
      }) as jwt.JwtPayload;
    } catch {
      return null;
    }
    if (typeof payload.sid !== 'string') return null;
    const session = this.deps.sessions.byId(payload.sid);
    if (!session) return null;
    if (session.expires_at <= this.deps.clock.now()) {
      this.deps.sessions.delete(session.id);
      return null;
    }
    const row = this.deps.users.row(session.user_id);
    if (!row || row.status !== 'active') {
      this.deps.sessions.delete(session.id);
      return null;
    }
    return { ...this.principalFor(row, 'session'), sessionId: session.id, expiresAt: session.expires_at };
  }

  logout(sessionId: string): void {
    this.deps.sessions.delete(sessionId);
  }

  purgeExpiredSessions(): number {
    return this.deps.sessions.deleteExpired(this.deps.clock.now());
  }

  principalFor(row: UserRow, via: Principal['via']): Principal {
    const user = toUser(row);
    return {
      userId: user.id,
      username: user.username,
      role: user.role,
      permissions: user.permissions,
      via,
      ...(row.must_change_password !== 0 && { mustChangePassword: true }),
    };
  }

  // ---- instance API key --------------------------------------------------------------------

  /** The instance key; made at onboarding (or on first read by an installation onboarded before that). */
  apiKey(): string {
    if (this.apiKeyCache) return this.apiKeyCache;
    let key = this.deps.kv.get<string>(API_KEY);
    if (!key) {
      if (!this.isOnboarded()) throw new ForbiddenError('Complete onboarding first', 'Onboarding required', 'ONBOARDING_REQUIRED');
      key = crypto.randomBytes(32).toString('hex');
      this.deps.kv.put(API_KEY, key, this.deps.clock.now());
    }
    this.apiKeyCache = key;
    return key;
  }

  rotateApiKey(): string {
    const key = crypto.randomBytes(32).toString('hex');
    this.deps.kv.put(API_KEY, key, this.deps.clock.now());
    this.apiKeyCache = key;
    return key;
  }

  resolveApiKey(candidate: string): Principal | null {
    const key = this.deps.kv.get<string>(API_KEY) ?? this.apiKeyCache;
    if (!key || !safeEqual(candidate, key)) return null;
    return { userId: NO_USER_ID, username: 'api', role: 'admin', permissions: effectivePermissions('admin'), via: 'apiKey' };
  }

  // ---- stream tokens -----------------------------------------------------------------------

  issueStreamToken(principal: Principal): { token: string; expiresIn: number } {
    const now = this.deps.clock.now();
    for (const [t, entry] of this.streamTokens) if (entry.expiresAt <= now) this.streamTokens.delete(t);
    const token = crypto.randomBytes(24).toString('base64url');
    this.streamTokens.set(token, { principal: { ...principal, via: 'streamToken' }, expiresAt: now + STREAM_TOKEN_TTL_MS });
    return { token, expiresIn: STREAM_TOKEN_TTL_MS / 1000 };
  }

  resolveStreamToken(token: string): Principal | null {
    const entry = this.streamTokens.get(token);
    if (!entry) return null;
    if (entry.expiresAt <= this.deps.clock.now()) {
      this.streamTokens.delete(token);
      return null;
    }
    return entry.principal;
  }

  // ---- basic auth and reverse-proxy identity ------------------------------------------------

  async resolveBasic(username: string, password: string, client: string | undefined): Promise<Principal | null> {
    const row = await this.deps.failedLogins.attempt({ client, account: username }, () =>
      this.deps.users.verifyCredentials(username, password),
    );
    return row && row.status === 'active' ? this.principalFor(row, 'basic') : null;
  }

  /** A trusted proxy vouches for the user; unknown names get an account with a random password. */
  async resolveProxyUser(username: string): Promise<Principal | null> {
    const name = username.trim();
    if (!name) return null;
    let row = this.deps.users.findByUsername(name);
    if (!row) {
      const created = await this.deps.users.create({ username: name, password: crypto.randomBytes(24).toString('base64url') });
      row = this.deps.users.row(created.id);
    }
    return row && row.status === 'active' ? this.principalFor(row, 'proxy') : null;
  }

  // ---- LAN auto-login ------------------------------------------------------------------------

  lanBypassStatus(ip?: string): LanBypassStatus {
    const enabled = this.deps.settings.get().security.localNetworkBypass.enabled;
    const reason = this.ineligibility();
    const eligible = reason === null;
    if (!enabled) return { enabled, eligible, active: false, reason: reason ?? 'disabled' };
    if (!eligible) return { enabled, eligible, active: false, reason };
    const trusted = ip === undefined || isTrustedLanAddress(ip, this.deps.interfaces);
    return { enabled, eligible, active: trusted, reason: trusted ? 'active' : 'not_trusted_network' };
  }

  /** Why LAN auto-login cannot be used on this installation, or null when it can. */
  ineligibility(): Exclude<LanBypassStatus['reason'], 'active' | 'disabled' | 'not_trusted_network'> | null {
    if (!this.isOnboarded()) return 'not_onboarded';
    const users = this.deps.users.list();
    if (users.length !== 1) return 'not_single_user';
    if (users[0]!.role !== 'admin') return 'sole_user_not_admin';
    return null;
  }

  resolveLan(ip: string): Principal | null {
    if (!this.lanBypassStatus(ip).active) return null;
    const only = this.deps.users.list()[0];
    const row = only ? this.deps.users.row(only.id) : undefined;
    return row && row.status === 'active' ? this.principalFor(row, 'lan') : null;
  }
}
