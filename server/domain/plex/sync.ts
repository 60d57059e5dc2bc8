import type { AppContext } from '../../context.js';
import { libraryTrackIdByPath, plexTracks, type PlexTrackRow } from '../../db/plex.js';
import { mapLidarrPath } from '../../library/lidarrPaths.js';
import { NotConfiguredError } from '../errors.js';
import { plexServerOf, plexSettings } from './connection.js';

/**
 * `POST /api/settings/plex/sync`: reads every track of the chosen Plex music library (page by page)
 * and records which library track has the same file (Plex's path through the path mappings). Plex
 * playlists are made of Plex's own items (ratingKeys), so publishing a playlist there needs this map;
 * whoever publishes registers `onPlexSynced` to run right after it.
 */
export interface PlexSyncResult {
  success: true;
  sectionId: string;
  plexTracks: number;
  matched: number;
  unmatched: number;
  syncedAt: number;
}

const listeners = new WeakMap<AppContext, Set<(result: PlexSyncResult) => void | Promise<void>>>();
const running = new WeakMap<AppContext, Promise<PlexSyncResult>>();

/** Runs after each completed sync (publishing Plex playlists, for one); a failing listener is logged, never fails the sync. */
export function onPlexSynced(ctx: AppContext, listener: (result: PlexSyncResult) => void | Promise<void>): () => void {
  let set = listeners.get(ctx);
  if (!set) listeners.set(ctx, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** One sync at a time: a second call while one runs gets the same result. */
export function syncPlex(ctx: AppContext): Promise<PlexSyncResult> {
  const current = running.get(ctx);
  if (current) return current;
  const run = syncOnce(ctx).finally(() => running.delete(ctx));
  running.set(ctx, run);
  return run;
}

async function syncOnce(ctx: AppContext): Promise<PlexSyncResult> {
  const { client, librarySectionId } = plexServerOf(ctx);
  if (!librarySectionId) throw new NotConfiguredError('integrations.plex.librarySectionId', 'Choose the Plex music library to sync first: Settings → Library → Plex');
  const mappings = plexSettings(ctx).pathMappings;
  const trackIdOf = libraryTrackIdByPath(ctx.db);
  const rows: PlexTrackRow[] = [];
  await client.eachTrackPage(librarySectionId, (page) => {
    for (const t of page.tracks) {
      let trackId: number | null = null;
      let file: string | null = null;
      for (const f of t.files) {
        const local = mapLidarrPath(f, mappings);
        file ??= local;
        const id = trackIdOf(local);
        if (id !== undefined) {
          trackId = id;
          file = local;
          break;
        }
      }
      rows.push({ ratingKey: t.ratingKey, trackId, file });
    }
  });
  const syncedAt = ctx.clock.now();
  plexTracks.replaceSection(ctx.db, librarySectionId, rows, syncedAt);
  const matched = rows.filter((r) => r.trackId !== null).length;
  const result: PlexSyncResult = { success: true, sectionId: librarySectionId, plexTracks: rows.length, matched, unmatched: rows.length - matched, syncedAt };
  ctx.log.info('Plex library synced', { sectionId: librarySectionId, plexTracks: rows.length, matched });
  for (const listener of listeners.get(ctx) ?? []) {
    try {
      await listener(result);
    } catch (err) {
      ctx.log.warn('a step after the Plex sync failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}
