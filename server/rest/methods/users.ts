import { effectivePermissions, type Permissions } from '../../domain/auth/permissions.js';
import type { RestCall, RestMethod } from '../context.js';
import type { RestUser } from '../auth.js';
import { notAuthorized, notFound } from '../errors.js';
import type { Payload } from '../wire.js';

/** Subsonic roles from the account's role and permissions. */
export function userElement(user: RestUser, sharing: boolean): Payload {
  const admin = user.role === 'admin';
  return {
    username: user.username,
    email: undefined,
    scrobblingEnabled: true,
    adminRole: admin,
    settingsRole: admin || user.permissions.accessSettings,
    downloadRole: true,
    uploadRole: false,
    playlistRole: true,
    coverArtRole: true,
    commentRole: false,
    podcastRole: admin,
    streamRole: true,
    jukeboxRole: false,
    shareRole: sharing,
    videoConversionRole: false,
    folder: [1],
  };
}

/** Clients show their share actions only with shareRole, which follows the sharing setting. */
const sharingOn = (call: RestCall) => call.rc.app.settings.get().sharing.enabled;

export const userMethods: RestMethod[] = [
  {
    name: 'getUser',
    handler: (call) => {
      const name = call.params.string('username') ?? call.user.username;
      if (name.toLowerCase() === call.user.username.toLowerCase()) return { user: userElement(call.user, sharingOn(call)) };
      if (call.user.role !== 'admin') throw notAuthorized('Only administrators can read other users');
      const row = call.rc.app.users.findByUsername(name);
      if (!row) throw notFound('User not found');
      return {
        user: userElement({
          id: row.id,
          username: row.username,
          role: row.role,
          permissions: effectivePermissions(row.role, JSON.parse(row.permissions) as Partial<Permissions>),
        }, sharingOn(call)),
      };
    },
  },
  {
    name: 'getUsers',
    handler: (call) => {
      if (call.user.role !== 'admin') throw notAuthorized('Only administrators can list users');
      return {
        users: {
          user: call.rc.app.users
            .list()
            .filter((u) => u.status === 'active')
            .map((u) => userElement({ id: u.id, username: u.username, role: u.role, permissions: u.permissions }, sharingOn(call))),
        },
      };
    },
  },
];
