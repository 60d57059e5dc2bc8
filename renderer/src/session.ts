import { createStore } from './store';

export type PermissionName =
  | 'accessSettings'
  | 'accessFlow'
  | 'addArtist'
  | 'addAlbum'
  | 'changeMonitoring'
  | 'deleteArtist'
  | 'deleteAlbum';

export const permissionNames: PermissionName[] = [
  'accessSettings',
  'accessFlow',
  'addArtist',
  'addAlbum',
  'changeMonitoring',
  'deleteArtist',
  'deleteAlbum',
];

export interface User {
  id: number;
  username: string;
  role: 'admin' | 'user';
  permissions: Record<PermissionName, boolean>;
}

export interface SessionState {
  /** The session token; null when signed in another way (LAN auto-login, proxy identity) or signed out. */
  token: string | null;
  user: User | null;
  /** Shown on the sign-in screen, e.g. after the server asked for re-authentication. */
  notice: string | null;
  /** Signed in with a one-time password (`npm run reset-password`): a new password comes first. */
  mustChangePassword?: boolean;
}

/** The desktop tray reads the session token from this key, so its /ws connection can sign in. */
export const TOKEN_KEY = 'tonearm.token';

function storedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export const session = createStore<SessionState>({ token: storedToken(), user: null, notice: null });

export function signIn(token: string, user: User, mustChangePassword = false): void {
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // storage can be disabled (private mode); the session then lasts for this tab only
  }
  session.set({ token, user, notice: null, mustChangePassword });
}

export function signOut(notice: string | null = null): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {
    // nothing stored
  }
  session.set({ token: null, user: null, notice });
}

export const SESSION_EXPIRED = 'Your session expired, please sign in again';

export function isAdmin(user: User | null): boolean {
  return user?.role === 'admin';
}
