import type { PermissionName, Permissions, Role } from './permissions.js';

/** How the caller proved who they are. */
export type CredentialKind = 'session' | 'apiKey' | 'proxy' | 'basic' | 'lan' | 'streamToken';

/** The caller of a request. userId is -1 when there is no user account behind it (API key). */
export interface Principal {
  userId: number;
  username: string;
  role: Role;
  permissions: Permissions;
  via: CredentialKind;
  sessionId?: string;
  expiresAt?: number | null;
  /** Signed in with a one-time password: may only choose a new password until it does. */
  mustChangePassword?: boolean;
}

export const NO_USER_ID = -1;

export const isUserAccount = (p: Principal): boolean => p.userId !== NO_USER_ID;

export function hasPermission(p: Principal, name: PermissionName): boolean {
  return p.role === 'admin' || p.permissions[name] === true;
}

/** The public view of a principal, as `user` in API responses. */
export function publicUser(p: Principal) {
  return { id: p.userId, username: p.username, role: p.role, permissions: p.permissions };
}
