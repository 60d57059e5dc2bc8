import fs from 'node:fs';
import { plexAccount, plexServerTokens, plexTracks } from '../../db/plex.js';
import type { PlexResource } from '../../integrations/plex/index.js';
import { mapLidarrPath } from '../../library/lidarrPaths.js';
import { type Principal, isUserAccount } from '../auth/principal.js';
import { NotConfiguredError, NotFoundError } from '../errors.js';
import {
  bindTokenToSavedServer,
  forgetTokenOrigins,
  plexServerClient,
  plexServerOf,
  plexSettings,
  plexTv,
  rememberListedOrigins,
  relinkRequired,
  requireAccountToken,
  sealToken,
  serverToken,
  tokenMayGoTo,
  type Deps as PlexConnectionDeps,
} from './connection.js';
import { PIN_EXPIRED_MESSAGE, pollPin, startPin, type PinCheck, type StartedPin, type Deps as PlexPinsDeps } from './pins.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'log'> & PlexConnectionDeps & PlexPinsDeps;

/** Settings → Library → Plex (api.md §4.13): connect the administrator's account, choose a server and its music library. */

export function startServerPin(ctx: Deps, principal: Principal, forwardUrl?: string): Promise<StartedPin> {
  return startPin(ctx, 'server', isUserAccount(principal) ? principal.userId : null, forwardUrl);
}

/** Polls the PIN; once approved the account token is stored encrypted and only the account name is answered. */
export async function checkServerPin(ctx: Deps, principal: Principal, pinId: string, code?: string): Promise<PinCheck & { plexUsername?: string | null }> {
  const state = await pollPin(ctx, 'server', null, pinId, code);
  if (state.state === 'pending') return { pending: true, linked: false, expired: false, expiresAt: state.expiresAt };
  if (state.state === 'expired') return { pending: false, linked: false, expired: true, message: PIN_EXPIRED_MESSAGE };
  const account = await plexTv(ctx, state.token).account();
  plexAccount.set(ctx.db, {
    tokenEnc: sealToken(ctx, state.token),
    plexId: account.id,
    uuid: account.uuid,
    username: account.username ?? account.title,
    connectedBy: isUserAccount(principal) ? principal.userId : null,
    connectedAt: ctx.clock.now(),
  });
  bindTokenToSavedServer(ctx);
  ctx.log.info('Plex account connected', { plexUsername: account.username ?? account.title });
  return { pending: false, linked: true, expired: false, plexUsername: account.username ?? account.title };
}

export function disconnectPlex(ctx: Deps): { success: true; connected: false } {
  plexAccount.clear(ctx.db);
  forgetTokenOrigins(ctx);
  return { success: true, connected: false };
}

export function plexStatus(ctx: Deps) {
  const row = plexAccount.get(ctx.db);
  const s = plexSettings(ctx);
  const counts = s.librarySectionId ? plexTracks.counts(ctx.db, s.librarySectionId) : null;
  return {
    connected: !!row,
    plexUsername: row?.username ?? null,
    connectedAt: row?.connectedAt ?? null,
    server: s.url ? { url: s.url, name: s.serverName || null, machineIdentifier: s.machineIdentifier || null } : null,
    librarySectionId: s.librarySectionId || null,
    sync: counts && counts.total > 0 ? { tracks: counts.total, matched: counts.matched, syncedAt: counts.syncedAt } : null,
  };
}

function presentServer(r: PlexResource) {
  return {
    name: r.name,
    clientIdentifier: r.clientIdentifier,
    machineIdentifier: r.clientIdentifier,
    product: r.product,
    productVersion: r.productVersion,
    platform: r.platform,
    owned: r.owned,
    presence: r.presence,
    httpsRequired: r.httpsRequired,
    connections: r.connections.map((c) => ({ uri: c.uri, protocol: c.protocol, address: c.address, port: c.port, local: c.local, relay: c.relay })),
  };
}

/** The account's servers with their connections; each server's own token is kept (encrypted), never answered. */
export async function listPlexServers(ctx: Deps) {
  const resources = await plexTv(ctx, requireAccountToken(ctx)).servers();
  const now = ctx.clock.now();
  for (const r of resources) if (r.accessToken) plexServerTokens.put(ctx.db, r.clientIdentifier, r.name, sealToken(ctx, r.accessToken), now);
  rememberListedOrigins(ctx, resources);
  return { servers: resources.map(presentServer), total: resources.length };
}

/** Connects to a server address (the saved one unless another is given): its identity, then the token on its libraries. */
export async function testPlexServer(ctx: Deps, url?: string) {
  const target = url ?? plexSettings(ctx).url;
  if (!target) throw new NotConfiguredError('integrations.plex.url', 'Enter or choose a Plex server address first');
  const identity = await plexServerClient(ctx, target, null).identity();
  const token = serverToken(ctx, identity.machineIdentifier);
  if (!token) throw new NotConfiguredError('integrations.plex', 'Connect a Plex account first: Settings → Library → Plex → Connect with Plex');
  // Whatever identity the address claims, a stored token goes only where plex.tv or the connection put it.
  // plex.tv's list may be newer than the one remembered (or predate it): asked once more before refusing.
  if (!tokenMayGoTo(ctx, target, identity.machineIdentifier)) await listPlexServers(ctx);
  if (!tokenMayGoTo(ctx, target, identity.machineIdentifier)) {
    if (url === undefined) throw new NotConfiguredError('integrations.plex.url', relinkRequired(target).message);
    throw relinkRequired(target);
  }
  const music = await plexServerClient(ctx, target, token).musicSections();
  return {
    success: true as const,
    message: `Connected to Plex Media Server ${identity.version ?? ''}`.trim() + ` (${music.length} music ${music.length === 1 ? 'library' : 'libraries'})`,
    machineIdentifier: identity.machineIdentifier,
    version: identity.version,
    musicLibraries: music.length,
  };
}

/** The server's music libraries (Plex's `artist` sections) with their folders as Plex sees them. */
export async function plexLibraries(ctx: Deps) {
  const { client, librarySectionId } = plexServerOf(ctx);
  const music = await client.musicSections();
  return {
    libraries: music.map((s) => ({ key: s.key, title: s.title, type: s.type, agent: s.agent, scanner: s.scanner, locations: s.locations.map((l) => l.path), selected: s.key === librarySectionId })),
  };
}

/**
 * Can this computer read the files of a Plex library? One track's file as Plex reports it, through
 * the path mappings, is looked for here; matching Plex tracks to the library depends on it.
 */
export async function plexLibraryAccess(ctx: Deps, sectionId: string) {
  const { client } = plexServerOf(ctx);
  const section = (await client.musicSections()).find((s) => s.key === sectionId);
  if (!section) throw new NotFoundError('Plex library not found', `The Plex server has no music library with key ${sectionId}`);
  const sample = (await client.tracksPage(sectionId, 0, 1)).tracks[0];
  const reportedPath = sample?.files[0];
  if (!reportedPath) return { checked: false as const, reason: "This library doesn't have any tracks yet to check against." };
  const localPath = mapLidarrPath(reportedPath, plexSettings(ctx).pathMappings);
  let accessible = false;
  let reason: string | null = null;
  try {
    fs.accessSync(localPath, fs.constants.R_OK);
    accessible = true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    reason =
      code === 'ENOENT'
        ? "file not found on this computer; add a path mapping from Plex's path to where it is mounted here"
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (err as Error).message;
  }
  return { checked: true as const, accessible, reportedPath, localPath, reason, libraryTitle: section.title };
}

