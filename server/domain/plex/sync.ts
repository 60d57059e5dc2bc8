import { libraryTrackIdByPath, plexTracks, type PlexTrackRow } from '../../db/plex.js';
import { mapLidarrPath } from '../../library/lidarrPaths.js';
import { PermanentJobError } from '../../jobs/queue.js';
import { NotConfiguredError } from '../errors.js';
import { plexServerOf, plexSettings, type PlexServerConnection, type Deps as PlexConnectionDeps } from './connection.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'scheduler'>
  & { plexSyncListeners: Set<(result: PlexSyncResult) => void | Promise<void>> } & PlexConnectionDeps;

/**
 * `POST /api/settings/plex/sync`: reads every track of the chosen Plex music library (page by page)
 * and records which library track has the same file (Plex's path through the path mappings). Plex
 * playlists are made of Plex's own items (ratingKeys), so publishing a playlist there needs this map;
 * whoever publishes registers `onPlexSynced` to run right after it. A sync is a job on PLEX_SYNC_QUEUE
 * (one pending or running at a time), so one a stopped or killed server left runs at the next start.
 */
export interface PlexSyncResult {
  success: true;
  sectionId: string;
  plexTracks: number;
  matched: number;
  unmatched: number;
  syncedAt: number;
}


/** The job queue (and the on-demand task of the tasks screen) of Plex library syncs. */
export const PLEX_SYNC_QUEUE = 'plex-sync';

/** Registers the sync's queue and its line on the tasks screen. */
export function startPlexSync(ctx: Deps): void {
  ctx.jobs.register(PLEX_SYNC_QUEUE, {
    concurrency: 1,
    // Attempts beyond the first are for a sync a killed process left running; a failed sync stays failed.
    maxAttempts: 3,
    handler: async () => {
      try {
        return await syncOnce(ctx);
      } catch (err) {
        throw new PermanentJobError(err instanceof Error ? err.message : String(err), { cause: err });
      }
    },
  });
  ctx.scheduler.define({ name: PLEX_SYNC_QUEUE, queue: PLEX_SYNC_QUEUE, onDemand: true });
}

/** Runs after each completed sync (publishing Plex playlists, for one); a failing listener is logged, never fails the sync. */
export function onPlexSynced(ctx: Deps, listener: (result: PlexSyncResult) => void | Promise<void>): () => void {
  const set = ctx.plexSyncListeners;
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Queues a sync and resolves with its result. One sync at a time: a second call while one is queued
 * or runs gets the same result. Settings that make a sync impossible are refused before queueing.
 */
export async function syncPlex(ctx: Deps): Promise<PlexSyncResult> {
  syncTarget(ctx);
  const { id } = ctx.jobs.enqueue(PLEX_SYNC_QUEUE, {}, { name: PLEX_SYNC_QUEUE, dedupeKey: 'sync' });
  return ctx.jobs.whenDone<PlexSyncResult>(id);
}

function syncTarget(ctx: Deps): PlexServerConnection & { librarySectionId: string } {
  const server = plexServerOf(ctx);
  if (!server.librarySectionId) throw new NotConfiguredError('integrations.plex.librarySectionId', 'Choose the Plex music library to sync first: Settings → Library → Plex');
  return { ...server, librarySectionId: server.librarySectionId };
}

async function syncOnce(ctx: Deps): Promise<PlexSyncResult> {
  const { client, librarySectionId } = syncTarget(ctx);
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
  for (const listener of ctx.plexSyncListeners) {
    try {
      await listener(result);
    } catch (err) {
      ctx.log.warn('a step after the Plex sync failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}
