import type { Clock } from '../../clock.js';
import { TooManyRequestsError } from '../errors.js';
import { normalizeIp } from './lanBypass.js';

/** Who is trying: the client address and, when known, the account name the password is for. */
export interface AttemptKey {
  client: string | undefined;
  account?: string | undefined;
}

export interface FailedLoginOptions {
  clock: Clock;
  /** Failed password checks per client address per window (LOGIN_RATE_LIMIT_MAX). */
  maxPerClient: number;
  windowMs: number;
  /** Failures for one account (from addresses it never signed in from) before back-off starts. */
  accountFreeFailures?: number;
  accountBaseDelayMs?: number;
  accountMaxDelayMs?: number;
}

/** A refused attempt: the password was not checked. */
export class LoginThrottledError extends TooManyRequestsError {
  constructor(
    readonly scope: 'client' | 'account',
    retryAfterMs: number,
  ) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const wait = seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
    super(
      scope === 'client'
        ? `Too many failed sign-in attempts from this address; try again in ${wait}`
        : `Too many failed sign-in attempts for this account; try again in ${wait}`,
      seconds,
    );
  }
}

interface ClientEntry {
  windowStart: number;
  failures: number;
  pending: number;
}

interface AccountEntry {
  failures: number;
  pending: number;
  lastFailureAt: number;
  blockedUntil: number;
  /** Addresses that signed in to this account with its password, and when they last did. */
  known: Map<string, number>;
}

const MAX_ENTRIES = 10_000;
const KNOWN_ADDRESSES = 16;
const KNOWN_FOR_MS = 30 * 24 * 3600_000;

/**
 * The one limiter on password guessing, shared by every place a password is checked (login, HTTP
 * Basic on /api, /rest u+p and u+t+s, the password change; the OIDC exchange with no account).
 * Only failed checks count; sessions and API keys never reach it.
 *
 * - Per client address: `maxPerClient` failures per fixed window, then every password check from it
 *   is refused until the window ends.
 * - Per account: after a few failures from addresses that never signed in to it, attempts from such
 *   addresses are refused for a back-off that doubles from 1 s up to a cap, so attackers spread over
 *   many addresses are slowed to about one guess per cap for the whole account. An address that has
 *   signed in to the account with its password is exempt (its own per-client limit still applies),
 *   so someone else's failures never lock the owner's usual devices out, and anyone else waits at
 *   most the cap. A successful check from a non-exempt address clears the account's back-off;
 *   otherwise the count is forgotten after a quiet window.
 *
 * In memory: a restart forgets everything, which only ever loosens it.
 */
export class FailedLogins {
  private readonly clients = new Map<string, ClientEntry>();
  private readonly accounts = new Map<string, AccountEntry>();
  private readonly free: number;
  private readonly baseDelay: number;
  private readonly maxDelay: number;

  constructor(private readonly options: FailedLoginOptions) {
    this.free = options.accountFreeFailures ?? 5;
    this.baseDelay = options.accountBaseDelayMs ?? 1000;
    this.maxDelay = options.accountMaxDelayMs ?? 60_000;
  }

  /**
   * Runs one password check under the limits. Throws LoginThrottledError, without calling `check`,
   * when the client or the account is held back. `check` answers a value for a right password and
   * null (or undefined) for a wrong one; an error it throws counts neither way and is passed on.
   */
  async attempt<T>(who: AttemptKey, check: () => T | null | undefined | Promise<T | null | undefined>): Promise<T | null> {
    const now = this.options.clock.now();
    const client = this.clientKey(who.client);
    const account = who.account === undefined ? undefined : accountKey(who.account);
    const c = this.clientEntry(client, now);
    if (c.failures + c.pending >= this.options.maxPerClient)
      throw new LoginThrottledError('client', c.windowStart + this.options.windowMs - now);
    const a = account === undefined ? undefined : this.accountEntry(account, now);
    const exempt = a !== undefined && this.isKnown(a, client, now);
    if (a && !exempt) {
      if (a.blockedUntil > now) throw new LoginThrottledError('account', a.blockedUntil - now);
      // Past the free failures, one check at a time: parallel guesses cannot slip through together.
      if (a.failures + a.pending >= this.free && a.pending > 0) throw new LoginThrottledError('account', this.baseDelay);
    }
    c.pending++;
    if (a && !exempt) a.pending++;
    let result: T | null | undefined;
    try {
      result = await check();
    } catch (err) {
      c.pending--;
      if (a && !exempt) a.pending--;
      throw err;
    }
    c.pending--;
    if (a && !exempt) a.pending--;
    const at = this.options.clock.now();
    if (result === null || result === undefined) {
      c.failures++;
      if (a && !exempt) {
        a.failures++;
        a.lastFailureAt = at;
        if (a.failures >= this.free) a.blockedUntil = at + Math.min(this.maxDelay, this.baseDelay * 2 ** (a.failures - this.free));
      }
      return null;
    }
    if (a) {
      if (!exempt) {
        a.failures = 0;
        a.blockedUntil = 0;
      }
      a.known.delete(client);
      a.known.set(client, at);
      if (a.known.size > KNOWN_ADDRESSES) a.known.delete(a.known.keys().next().value!);
    }
    return result;
  }

  private clientKey(ip: string | undefined): string {
    return ip ? normalizeIp(ip) : 'unknown';
  }

  private clientEntry(key: string, now: number): ClientEntry {
    let e = this.clients.get(key);
    if (e && now - e.windowStart >= this.options.windowMs && e.pending === 0) {
      this.clients.delete(key);
      e = undefined;
    }
    if (!e) {
      prune(this.clients, (x) => now - x.windowStart >= this.options.windowMs && x.pending === 0);
      e = { windowStart: now, failures: 0, pending: 0 };
      this.clients.set(key, e);
    }
    return e;
  }

  private accountEntry(key: string, now: number): AccountEntry {
    let e = this.accounts.get(key);
    if (!e) {
      prune(this.accounts, (x) => x.known.size === 0 && x.pending === 0 && now - x.lastFailureAt >= this.options.windowMs);
      e = { failures: 0, pending: 0, lastFailureAt: 0, blockedUntil: 0, known: new Map() };
      this.accounts.set(key, e);
    } else if (e.failures > 0 && e.pending === 0 && now - e.lastFailureAt >= this.options.windowMs) {
      e.failures = 0;
      e.blockedUntil = 0;
    }
    return e;
  }

  private isKnown(a: AccountEntry, client: string, now: number): boolean {
    const at = a.known.get(client);
    if (at === undefined) return false;
    if (now - at < KNOWN_FOR_MS) return true;
    a.known.delete(client);
    return false;
  }
}

/** Account names compare like usernames do (trimmed, any letter case). */
const accountKey = (name: string) => name.trim().toLowerCase();

/** Keeps a map bounded: drops stale entries when it is full, then the oldest if still full. */
function prune<V>(map: Map<string, V>, stale: (v: V) => boolean): void {
  if (map.size < MAX_ENTRIES) return;
  for (const [k, v] of map) if (stale(v)) map.delete(k);
  while (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
}
