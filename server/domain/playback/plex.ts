import type { PlaybackRepository } from '../../db/playback.js';
import { plexAccount, plexTracks } from '../../db/plex.js';
import { IntegrationError } from '../../integrations/errors.js';
import type { PlexPlaylist } from '../../integrations/plex/index.js';
import { NotConfiguredError, NotFoundError } from '../errors.js';
import { plexServerOf, type PlexServerConnection, type Deps as PlexConnectionDeps } from '../plex/connection.js';
import {
  plexAccountFor,
  plexBaseAccount,
  plexServerAccount,
  plexServerForAccount,
  prunePlexIdentities,
  type Deps as PlexIdentitiesDeps,
} from '../plex/identities.js';
import { syncPlex, type Deps as PlexSyncDeps } from '../plex/sync.js';
import type { DestinationDeps, DestinationTestResult, PlaybackDestination } from './types.js';
import { planUpdate } from './subsonic.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'log'>
  & {
    settings: SettingsStore;
  }
  & PlexConnectionDeps
  & PlexIdentitiesDeps
  & PlexSyncDeps;

/**
 * Publishing one playlist to Plex as a native audio playlist. Plex playlists hold Plex's own items
 * (ratingKeys), so library tracks go through the map the Plex sync keeps (`plex_tracks`); tracks it
 * does not know make one sync run (at most every few minutes) before what matched is published.
 * The remote playlist is found by its stored ratingKey, then by the marker in its summary, then by
 * an unmarked playlist of the same title (a run that created it but failed before recording it), so
 * a retry never makes a second one. Items are removed by playlistItemID and appended by ratingKey.
 */

export const PLEX_DESTINATION = 'plex';
/** A sync for unknown tracks runs at most this often (the map is re-read whole each time). */
export const PLEX_SYNC_COOLDOWN_MS = 5 * 60_000;

export interface PlexTarget {
  ctx: Deps;
  repo: PlaybackRepository;
  server: PlexServerConnection;
}

export interface PlexPublishInput {
  name: string;
  marker: string;
  trackIds: number[];
  remoteId: string | null;
  recordRemote: (remoteId: string) => void;
}

const markerIn = (summary: string | null) => (summary ? (/Tonearm (static|flow|shared):\S+/.exec(summary)?.[0] ?? null) : null);
export const summaryOf = (marker: string) => `${marker} · published by Tonearm`;
const transient = (err: unknown) => err instanceof IntegrationError && (err.kind === 'unreachable' || err.kind === 'timeout' || err.kind === 'circuit_open');

/** Library track ids → Plex ratingKeys of the chosen section, syncing first when some are unknown (and no sync ran lately). */
export async function plexRatingKeys(target: PlexTarget, trackIds: number[]): Promise<Map<number, string>> {
  const { ctx, repo, server } = target;
  const unique = [...new Set(trackIds)];
  let map = plexTracks.ratingKeysFor(ctx.db, server.librarySectionId, unique);
  const now = ctx.clock.now();
  if (map.size < unique.length && now - (repo.destination(PLEX_DESTINATION).last_scan_at ?? 0) >= PLEX_SYNC_COOLDOWN_MS) {
    repo.scanned(PLEX_DESTINATION, now);
    // New files: ask Plex to scan the section (it runs on its own; a later sync sees what it found), then read its tracks again.
    try {
      // Only the server's owner may scan: with the administrator's token whoever publishes.
      await plexServerOf(ctx).client.refreshSection(server.librarySectionId);
    } catch (err) {
      if (transient(err)) throw err;
      ctx.log.warn('Plex did not start a library scan', { error: err instanceof Error ? err.message : String(err) });
    }
    await syncPlex(ctx);
    map = plexTracks.ratingKeysFor(ctx.db, server.librarySectionId, unique);
  }
  return map;
}

async function findRemote(target: PlexTarget, input: { remoteId: string | null; marker: string; name: string }): Promise<PlexPlaylist | null> {
  const lists = (await target.server.client.playlists()).filter((p) => !p.smart);
  return (
    (input.remoteId ? lists.find((p) => p.ratingKey === input.remoteId) : undefined) ??
    lists.find((p) => markerIn(p.summary) === input.marker) ??
    lists.find((p) => p.title === input.name && markerIn(p.summary) === null) ??
    null
  );
}

/** A ratingKey Plex refuses (the item was rescanned away): the next attempt syncs the map again. */
async function withStaleKeys<T>(target: PlexTarget, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof IntegrationError && (err.kind === 'bad_request' || err.kind === 'not_found')) target.repo.scanned(PLEX_DESTINATION, 0);
    throw err;
  }
}

/** Creates or updates the Plex playlist so it holds exactly the matched tracks, in order. */
export async function publishToPlex(target: PlexTarget, input: PlexPublishInput): Promise<{ remoteId: string | null; trackCount: number; matchedCount: number }> {
  const { client, machineIdentifier } = target.server;
  const matched = await plexRatingKeys(target, input.trackIds);
  const wanted = input.trackIds.map((id) => matched.get(id)).filter((k): k is string => !!k);
  const result = (remoteId: string | null) => ({ remoteId, trackCount: input.trackIds.length, matchedCount: wanted.length });
  const remote = await findRemote(target, input);
  if (!remote) {
    // Plex makes playlists from items: nothing matched yet, nothing to create (tried again later).
    if (wanted.length === 0) return result(null);
    const created = await withStaleKeys(target, () => client.createPlaylist({ machineIdentifier, title: input.name, ratingKeys: wanted, summary: summaryOf(input.marker) }));
    input.recordRemote(created.ratingKey);
    return result(created.ratingKey);
  }
  const rk = remote.ratingKey;
  input.recordRemote(rk);
  if (remote.title !== input.name || markerIn(remote.summary) !== input.marker) {
    await client.updatePlaylist(rk, { ...(remote.title !== input.name && { title: input.name }), ...(markerIn(remote.summary) !== input.marker && { summary: summaryOf(input.marker) }) });
  }
  const items = await client.playlistItems(rk);
  // The longest in-order run of wanted items is kept, every other item removed and the rest appended:
  // small edits cost a few calls; a reshuffled list is rebuilt (all removed, all added in order).
  const { keep, removeIndexes } = planUpdate(
    items.map((i) => i.ratingKey),
    wanted,
  );
  for (const index of removeIndexes) {
    try {
      await client.removePlaylistItem(rk, items[index]!.playlistItemID);
    } catch (err) {
      if (!(err instanceof IntegrationError && err.kind === 'not_found')) throw err;
    }
  }
  if (keep < wanted.length) await withStaleKeys(target, () => client.addPlaylistItems(rk, machineIdentifier, wanted.slice(keep)));
  return result(rk);
}

/** Deletes our playlist there (by stored ratingKey, else by marker); one already gone is fine. */
export async function unpublishFromPlex(target: PlexTarget, remoteId: string | null, marker: string): Promise<void> {
  const lists = (await target.server.client.playlists()).filter((p) => !p.smart);
  const found = (remoteId ? lists.find((p) => p.ratingKey === remoteId) : undefined) ?? lists.find((p) => markerIn(p.summary) === marker);
  if (!found) return;
  try {
    await target.server.client.deletePlaylist(found.ratingKey);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') return;
    throw err;
  }
}

// ---- the destination --------------------------------------------------------------------------

/** Plex: native playlists of the music library chosen in `integrations.plex` (`playback.plex`), each user's under their own Plex identity when linked. */
export function plexDestination(deps: DestinationDeps<Deps>): PlaybackDestination {
  const { ctx, repo } = deps;
  const server = async (account: string) => {
    const s = await plexServerForAccount(ctx, account);
    if (!s) throw new NotConfiguredError('plex-link', 'The Plex link this playlist was published under is gone');
    return s;
  };

  /**
   * Checks the saved connection: the server answers as the chosen machine, the chosen music library
   * is there, playlists can be listed; how many library tracks the sync maps. A success makes
   * waiting retries due now.
   */
  const test = async (): Promise<DestinationTestResult> => {
    const s = ctx.settings.get().integrations.plex;
    const admin = plexServerOf(ctx);
    if (!admin.librarySectionId) throw new NotConfiguredError('integrations.plex.librarySectionId', 'Choose the Plex music library first: Settings → Library → Plex');
    const identity = await admin.client.identity();
    if (s.machineIdentifier && identity.machineIdentifier !== s.machineIdentifier) {
      throw new IntegrationError('plex', 'wrong_url', `The Plex server at this address is not ${s.serverName || 'the chosen server'} any more: choose the server again in Settings → Library → Plex`);
    }
    const section = (await admin.client.musicSections()).find((x) => x.key === admin.librarySectionId);
    if (!section) throw new NotFoundError('Plex library not found', `The Plex music library ${admin.librarySectionId} is gone: choose another in Settings → Library → Plex`);
    const playlists = await admin.client.playlists();
    const counts = plexTracks.counts(ctx.db, admin.librarySectionId);
    if (destination.connection(ctx.settings.get()).publishing) deps.retryNow(destination.key);
    return {
      success: true,
      key: destination.key,
      version: identity.version ?? '',
      type: 'Plex Media Server',
      serverVersion: identity.version,
      authentication: 'token',
      playlists: playlists.length,
      canScan: true,
      message:
        `Connected to Plex Media Server ${identity.version ?? ''}`.trim() +
        `: library “${section.title}”, ${counts.matched} of ${counts.total} Plex tracks matched to this library${counts.syncedAt === null ? ' (not synced yet: publishing syncs first)' : ''}`,
    };
  };

  const destination: PlaybackDestination = {
    key: 'plex',
    name: 'Plex',
    connection: (settings) => {
      const i = settings.integrations.plex;
      const o = settings.playback.plex;
      const configured = i.enabled && i.url !== '' && i.machineIdentifier !== '' && i.librarySectionId !== '' && plexAccount.get(ctx.db) !== undefined;
      return {
        enabled: o.enabled,
        configured,
        publishing: o.enabled && configured,
        publishFlows: o.publishFlows,
        publishPlaylists: o.publishPlaylists,
        ownerPrefix: o.ownerPrefix,
        account: plexServerAccount(i),
        fingerprint: JSON.stringify([o.enabled && configured, i.url, i.machineIdentifier, i.librarySectionId, o.publishFlows, o.publishPlaylists, o.ownerPrefix]),
      };
    },
    // Users with a Plex link get their playlists as their own Plex playlists (plex/identities.ts).
    accountFor: (c, ownerUserId) => plexAccountFor(ctx, c.account, ownerUserId),
    movable: (from, to) => plexBaseAccount(from) === plexBaseAccount(to),
    publish: async (p) => publishToPlex({ ctx, repo, server: await server(p.account) }, p),
    unpublish: async (p) => {
      const s = await plexServerForAccount(ctx, p.account);
      if (s === null) {
        // A link that is gone and whose server token was never known: nothing can reach that playlist.
        ctx.log.warn('a Plex playlist of a removed link cannot be deleted there', { marker: p.marker });
        return;
      }
      try {
        await unpublishFromPlex({ ctx, repo, server: s }, p.remoteId, p.marker);
      } catch (err) {
        // The old identity lost access (token revoked, server unshared): that playlist is out of reach for good.
        if (!(err instanceof IntegrationError && err.kind === 'unauthorized' && p.account !== plexBaseAccount(p.account))) throw err;
        ctx.log.warn('a Plex playlist of a previous link cannot be deleted there: its token is refused', { marker: p.marker });
      }
    },
    released: () => void prunePlexIdentities(ctx),
    test,
  };
  return destination;
}
