import { z } from 'zod';
import type { completeUserPin, PlexLinkStatus, plexHomeUsers, unlinkPlex } from '../../domain/plex/links.js';
import type { PinCheck, StartedPin } from '../../domain/plex/pins.js';
import type {
  checkServerPin,
  disconnectPlex,
  listPlexServers,
  plexLibraries,
  plexLibraryAccess,
  plexStatus,
  testPlexServer,
} from '../../domain/plex/setup.js';
import type { PlexSyncResult } from '../../domain/plex/sync.js';
import type { Same } from '../../http/same.js';

/**
 * The answers of the Plex routes (api/plex/routes.ts), each checked below against what the domain
 * function returns, so the OpenAPI document and the renderer's generated types describe them whole.
 */

export const startedPinSchema = z.object({ pinId: z.string(), code: z.string(), clientId: z.string(), authUrl: z.string(), expiresAt: z.number(), expiresIn: z.number() });
const pinCheck = z.object({
  pending: z.boolean(),
  linked: z.boolean(),
  expired: z.boolean(),
  expiresAt: z.number().optional(),
  message: z.string().optional(),
});
export const linkStatusSchema = z.object({
  linked: z.boolean(),
  kind: z.enum(['oauth', 'managed']).nullable(),
  username: z.string().nullable(),
  title: z.string().nullable(),
  linkedAt: z.number().nullable(),
  lastError: z.string().nullable(),
});
/** POST /api/settings/plex/auth/check: the server account's PIN. */
export const serverPinCheckSchema = pinCheck.extend({ plexUsername: z.string().nullable().optional() });
/** POST /api/users/me/plex-link/oauth/complete: a user's own PIN. */
export const userPinCheckSchema = pinCheck.extend({ username: z.string().nullable().optional(), link: linkStatusSchema.optional() });
export const unlinkedSchema = z.object({ success: z.literal(true), linked: z.literal(false) });
export const disconnectedSchema = z.object({ success: z.literal(true), connected: z.literal(false) });

export const plexStatusSchema = z.object({
  connected: z.boolean(),
  plexUsername: z.string().nullable(),
  connectedAt: z.number().nullable(),
  server: z.object({ url: z.string(), name: z.string().nullable(), machineIdentifier: z.string().nullable() }).nullable(),
  librarySectionId: z.string().nullable(),
  sync: z.object({ tracks: z.number(), matched: z.number(), syncedAt: z.number().nullable() }).nullable(),
});

const connection = z.object({ uri: z.string(), protocol: z.string().nullable(), address: z.string().nullable(), port: z.number().nullable(), local: z.boolean(), relay: z.boolean() });
const server = z.object({
  name: z.string(),
  clientIdentifier: z.string(),
  machineIdentifier: z.string(),
  product: z.string().nullable(),
  productVersion: z.string().nullable(),
  platform: z.string().nullable(),
  owned: z.boolean(),
  presence: z.boolean(),
  httpsRequired: z.boolean(),
  connections: z.array(connection),
});
export const serversSchema = z.object({ servers: z.array(server), total: z.number() });

export const serverTestSchema = z.object({ success: z.literal(true), message: z.string(), machineIdentifier: z.string(), version: z.string().nullable(), musicLibraries: z.number() });

export const librariesSchema = z.object({
  libraries: z.array(z.object({ key: z.string(), title: z.string(), type: z.string(), agent: z.string().nullable(), scanner: z.string().nullable(), locations: z.array(z.string()), selected: z.boolean() })),
});

/** Not checked when the library has no track yet; else whether the file Plex reports is readable here. */
export const accessCheckSchema = z.discriminatedUnion('checked', [
  z.object({ checked: z.literal(false), reason: z.string() }),
  z.object({ checked: z.literal(true), accessible: z.boolean(), reportedPath: z.string(), localPath: z.string(), reason: z.string().nullable(), libraryTitle: z.string() }),
]);

export const syncResultSchema = z.object({ success: z.literal(true), sectionId: z.string(), plexTracks: z.number(), matched: z.number(), unmatched: z.number(), syncedAt: z.number() });

export const homeUsersSchema = z.object({
  users: z.array(
    z.object({
      id: z.string(),
      uuid: z.string().nullable(),
      title: z.string().nullable(),
      username: z.string().nullable(),
      thumb: z.string().nullable(),
      restricted: z.boolean(),
      admin: z.boolean(),
      guest: z.boolean(),
      protected: z.boolean(),
      linkedUserId: z.number().nullable(),
    }),
  ),
});

type Returned<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** Fail to compile when the Plex domain functions and these schemas disagree on a field. */
export const plexSchemasMatchDomain = {
  startedPin: true satisfies Same<z.infer<typeof startedPinSchema>, StartedPin>,
  pinCheck: true satisfies Same<z.infer<typeof pinCheck>, PinCheck>,
  serverPinCheck: true satisfies Same<z.infer<typeof serverPinCheckSchema>, Returned<typeof checkServerPin>>,
  userPinCheck: true satisfies Same<z.infer<typeof userPinCheckSchema>, Returned<typeof completeUserPin>>,
  linkStatus: true satisfies Same<z.infer<typeof linkStatusSchema>, PlexLinkStatus>,
  unlinked: true satisfies Same<z.infer<typeof unlinkedSchema>, ReturnType<typeof unlinkPlex>>,
  disconnected: true satisfies Same<z.infer<typeof disconnectedSchema>, ReturnType<typeof disconnectPlex>>,
  status: true satisfies Same<z.infer<typeof plexStatusSchema>, ReturnType<typeof plexStatus>>,
  servers: true satisfies Same<z.infer<typeof serversSchema>, Returned<typeof listPlexServers>>,
  serverTest: true satisfies Same<z.infer<typeof serverTestSchema>, Returned<typeof testPlexServer>>,
  libraries: true satisfies Same<z.infer<typeof librariesSchema>, Returned<typeof plexLibraries>>,
  accessCheck: true satisfies Same<z.infer<typeof accessCheckSchema>, Returned<typeof plexLibraryAccess>>,
  sync: true satisfies Same<z.infer<typeof syncResultSchema>, PlexSyncResult>,
  homeUsers: true satisfies Same<z.infer<typeof homeUsersSchema>, Returned<typeof plexHomeUsers>>,
};
