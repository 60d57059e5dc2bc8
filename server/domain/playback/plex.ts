import type { AppContext } from '../../context.js';
import type { PlaybackRepository } from '../../db/playback.js';
import { plexTracks } from '../../db/plex.js';
import { IntegrationError } from '../../integrations/errors.js';
import type { PlexPlaylist } from '../../integrations/plex/index.js';
import { plexServerOf, type PlexServerConnection } from '../plex/connection.js';
import { syncPlex } from '../plex/sync.js';
import { planUpdate } from './subsonic.js';

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
  ctx: AppContext;
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
