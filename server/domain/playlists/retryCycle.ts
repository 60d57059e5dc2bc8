import { retryPauses } from '../../db/playlistQueries.js';
import { downloads } from '../../db/downloads.js';
import type { Principal } from '../auth/principal.js';
import { restart, type Deps as DownloadsControlDeps } from '../downloads/control.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { type PlaylistKind, type PlaylistRegistry } from './registry.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'log' | 'scheduler'>
  & {
    settings: SettingsStore;
    playlists: PlaylistRegistry;
  }
  & DownloadsControlDeps;

/**
 * The retry cycle of static and shared playlists: every hour, failed tracks of their download jobs
 * are searched again once the worker's retry pause has passed since they failed. A playlist's
 * cycle can be paused (PUT /api/playlists/playlists/:playlistId/retry-cycle); cancelled tracks are
 * never retried by the cycle, only by an explicit research.
 */

export const RETRY_CYCLE_TASK = 'playlist-retry-cycle';
const CYCLED_KINDS = ['static', 'shared'] as const;

export function isRetryPaused(ctx: Deps, kind: PlaylistKind, id: string): boolean {
  return retryPauses.isPaused(ctx.db, kind, id);
}

/** Paused playlists by API id, for the status answer's retry-cycle maps. */
export function pausedRetryCycles(ctx: Deps): Record<string, boolean> {
  const rows = retryPauses.pausedIds(ctx.db);
  return Object.fromEntries(rows.map((id) => [id, true]));
}

/** Pauses or resumes the cycle of a playlist the caller may edit. */
export function setRetryCycle(ctx: Deps, principal: Principal, playlistId: string, paused: boolean) {
  const registry = ctx.playlists;
  const viewer = { id: principal.userId, role: principal.role };
  const ref = registry.findFor(playlistId, viewer);
  if (!ref) throw new NotFoundError('Playlist not found', `No playlist ${playlistId}`);
  if (!registry.canEdit(ref, viewer)) throw new ForbiddenError('Only the owner of this playlist or an administrator can change it');
  if (paused) retryPauses.pause(ctx.db, ref.kind, ref.id, ctx.clock.now());
  else retryPauses.resume(ctx.db, ref.kind, ref.id);
  registry.changed(registry.find(ref.id) ?? ref);
  return { success: true as const, playlistId: ref.id, kind: ref.kind, paused };
}

/** One pass of the cycle: failed jobs of static and shared playlists that are not paused; returns how many restarted. */
export function runRetryCycle(ctx: Deps): number {
  const pauseMs = ctx.settings.get().downloads.worker.retryPauseMinutes * 60_000;
  const before = ctx.clock.now() - pauseMs;
  const ids = retryPauses.failedJobsToRetry(ctx.db, CYCLED_KINDS, before);
  let n = 0;
  for (const id of ids) {
    const job = downloads.get(ctx.db, id);
    if (job && restart(ctx, job)) n++;
  }
  return n;
}

export function startRetryCycle(ctx: Deps): void {
  // A deleted playlist leaves no pause behind (a static id could otherwise be paused for a later list).
  ctx.playlists.onChange((change) => {
    if (change.type === 'deleted')
      retryPauses.resume(ctx.db, change.ref.kind, change.ref.id);
  });
  ctx.scheduler.define({
    name: RETRY_CYCLE_TASK,
    every: 3600_000,
    handler: () => {
      const n = runRetryCycle(ctx);
      if (n > 0) ctx.log.info('playlist retry cycle searched failed tracks again', { count: n });
    },
  });
}
