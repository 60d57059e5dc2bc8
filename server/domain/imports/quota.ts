import { downloads } from '../../db/downloads.js';
import { ConflictError } from '../errors.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db'> & { settings: SettingsStore };

/**
 * Imports (playlist documents, URLs, Spotify, ListenBrainz and Last.fm lists) queue a download job
 * for every track the library lacks. `downloads.importQueueLimit` caps how many of a person's jobs
 * may wait or run at once after an import: one that would pass it is refused whole, before
 * anything is written, with a message saying how many it would add and what to do.
 */
export function checkImportQueue(ctx: Deps, userId: number, adding: number): void {
  const limit = ctx.settings.get().downloads.importQueueLimit;
  if (limit === 0 || adding === 0) return;
  const counts = downloads.countsByStatus(ctx.db, { userId });
  const open = counts.pending + counts.downloading + counts.blocked;
  if (open + adding <= limit) return;
  const room = Math.max(0, limit - open);
  throw new ConflictError(
    `This import would queue ${adding} downloads, and you may have at most ${limit} waiting or running (${open} are now). ` +
      (room > 0 ? `Import at most ${room} missing tracks, ` : 'Import again ') +
      'once some have finished, or ask an administrator to raise the limit (Settings → Downloads → import queue limit).',
    'IMPORT_QUEUE_LIMIT',
    { limit, open, adding },
  );
}
