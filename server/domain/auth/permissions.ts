import { z } from 'zod';

export const permissionNames = [
  'accessSettings',
  'accessFlow',
  'addArtist',
  'addAlbum',
  'changeMonitoring',
  'deleteArtist',
  'deleteAlbum',
] as const;
export type PermissionName = (typeof permissionNames)[number];
export type Permissions = Record<PermissionName, boolean>;
export type Role = 'admin' | 'user';

export const roleSchema = z.enum(['admin', 'user']);
export const permissionsSchema = z.object(
  Object.fromEntries(permissionNames.map((n) => [n, z.boolean()])) as Record<PermissionName, z.ZodBoolean>,
);
export const permissionsPatchSchema = permissionsSchema.partial().strict();

const userDefaults: Permissions = {
  accessSettings: false,
  accessFlow: false,
  addArtist: true,
  addAlbum: true,
  changeMonitoring: false,
  deleteArtist: false,
  deleteAlbum: false,
};

/** The effective permission set: admins have everything; stored values merge over user defaults. */
export function effectivePermissions(role: Role, stored: Partial<Permissions> = {}): Permissions {
  if (role === 'admin') return Object.fromEntries(permissionNames.map((n) => [n, true])) as Permissions;
  const merged = { ...userDefaults };
  for (const n of permissionNames) if (typeof stored[n] === 'boolean') merged[n] = stored[n];
  merged.accessSettings = false;
  return merged;
}
