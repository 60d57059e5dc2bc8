import type { ComponentChildren } from 'preact';
import { isAdmin, session, type PermissionName, type User } from '../session';
import { useStore } from '../store';
import { Empty } from './ui';
import { askFor, PERMISSION_WORDS } from '../messages';

/** The permissions' names as Settings → Users shows them. */
export const permissionLabels = Object.fromEntries(Object.entries(PERMISSION_WORDS).map(([k, w]) => [k, w.label])) as Record<PermissionName, string>;

/** Whether `user` has `permission` (administrators have every one). */
export function can(user: User | null, permission: PermissionName): boolean {
  return !!user && (isAdmin(user) || user.permissions?.[permission] === true);
}

/**
 * The screen when the signed-in user has `permission`, else a page that says what it needs and who
 * can grant it (reached from a bookmark: the navigation does not offer it).
 */
export function Needs({ permission, title, use, children }: { permission: PermissionName; title: string; use?: string; children: ComponentChildren }) {
  const { user } = useStore(session);
  if (can(user, permission)) return <>{children}</>;
  return (
    <Empty title={title}>
      <p>{askFor(permission, use)}</p>
    </Empty>
  );
}
