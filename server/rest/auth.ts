import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { UserRow } from '../db/users.js';
import type { FailedLogins } from '../domain/auth/failedLogins.js';
import { effectivePermissions, type Permissions, type Role } from '../domain/auth/permissions.js';
import type { RestKeyService } from '../domain/subsonic/restKeys.js';
import type { UsersService } from '../domain/users/service.js';
import { ErrorCode, SubsonicError, missingParameter } from './errors.js';
import type { Params } from './params.js';

/** The account behind a /rest call. */
export interface RestUser {
  id: number;
  username: string;
  role: Role;
  permissions: Permissions;
}

function toRestUser(row: UserRow): RestUser {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    permissions: effectivePermissions(row.role, JSON.parse(row.permissions) as Partial<Permissions>),
  };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `enc:` + hex of the UTF-8 bytes, or the plain password. */
export function decodePassword(p: string): string {
  if (!p.startsWith('enc:')) return p;
  const hex = p.slice(4);
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new SubsonicError(ErrorCode.wrongCredentials, 'Wrong username or password');
  return Buffer.from(hex, 'hex').toString('utf8');
}

export const md5Hex = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

const wrong = () => new SubsonicError(ErrorCode.wrongCredentials, 'Wrong username or password');

/**
 * Checks the credentials of a /rest call against the local accounts: `u`+`p` (plain or `enc:`),
 * `u`+`t`+`s` (md5 of the password and salt, checked against the encrypted password copy so a
 * password change applies at once), or an OpenSubsonic `apiKey` (per-user keys; the instance API
 * key is not one of them). Password and token checks go through the shared failed-login limiter;
 * a refused attempt throws its LoginThrottledError (the router answers it in the envelope).
 */
export async function authenticate(
  params: Params,
  req: Request,
  users: UsersService,
  restKeys: RestKeyService,
  failedLogins: FailedLogins,
): Promise<RestUser> {
  const apiKey = params.string('apiKey');
  const u = params.string('u');
  const p = params.string('p');
  const t = params.string('t');
  const s = params.string('s');
  if (apiKey !== undefined) {
    if (u !== undefined || p !== undefined || t !== undefined || s !== undefined)
      throw new SubsonicError(ErrorCode.conflictingMechanisms, 'Multiple conflicting authentication mechanisms provided');
    const userId = restKeys.verify(apiKey);
    const row = userId === undefined ? undefined : users.row(userId);
    if (!row || row.status !== 'active') throw new SubsonicError(ErrorCode.invalidApiKey, 'Invalid API key');
    return toRestUser(row);
  }
  if (u === undefined && p === undefined && t === undefined && (params.has('jwt') || req.headers.authorization))
    throw new SubsonicError(ErrorCode.mechanismNotSupported, 'Provided authentication mechanism not supported; use u+p, u+t+s or apiKey');
  if (u === undefined || u === '') throw missingParameter('u');
  if (p !== undefined && (t !== undefined || s !== undefined))
    throw new SubsonicError(ErrorCode.conflictingMechanisms, 'Multiple conflicting authentication mechanisms provided');
  if (p === undefined && (t === undefined || s === undefined)) throw missingParameter(t === undefined ? (s === undefined ? 'p or t and s' : 't') : 's');

  const plain = p === undefined ? undefined : decodePassword(p);
  // An unknown name is a failed check too, so names cannot be probed past the limit.
  const row = await failedLogins.attempt({ client: req.ip, account: u }, () => {
    const found = users.findByUsername(u);
    if (!found) return null;
    let password: string | null;
    try {
      password = found.password_enc ? users.recoverPassword(found) : null;
    } catch {
      password = null;
    }
    if (plain !== undefined) return password !== null && sameText(plain, password) ? found : null;
    // Token auth needs the readable password copy; an account without one cannot use it.
    if (password === null)
      throw new SubsonicError(ErrorCode.tokenAuthNotSupported, 'Token authentication is not supported for this account; use a password or an API key');
    return sameText(md5Hex(password + s!).toLowerCase(), t!.toLowerCase()) ? found : null;
  });
  if (!row || row.status !== 'active') throw wrong();
  // A one-time password (npm run reset-password) is for the web UI's sign-in only, not for apps.
  if (row.must_change_password !== 0)
    throw new SubsonicError(ErrorCode.wrongCredentials, 'This is a one-time password: sign in to the web UI and choose a new password first');
  return toRestUser(row);
}
