import { hiddenTrackIds, markVisibilityDirty, releasedFlowTrackIds } from '../../db/flowVisibility.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';
import type { LibraryService } from '../library/service.js';
import type { PlaylistRegistry } from '../playlists/registry.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'db' | 'log'>
  & {
    downloads: DownloadService;
    library: LibraryService;
    playlists: PlaylistRegistry;
  };

/**
 * Keeps `showInLibrary` true to its word (the rule is in db/flowVisibility.ts): whenever something
 * may change whether a flow's track belongs in the library, the tracks concerned are marked dirty and
 * a scan scoped to their files runs the derived refresh on the scan thread (counts, search documents
 * and genre memberships follow). A file a flow files joins the library through the scan its filing
 * requests, which computes its visibility the same way.
 */
export function refreshFlowVisibility(ctx: Deps, sel: { flowId?: string; trackIds?: number[]; paths?: string[] }): void {
  const paths = markVisibilityDirty(ctx.db, sel);
  if (paths.length === 0) return;
  try {
    ctx.library.scans.requestScan('quick', 'flow library visibility', paths);
  } catch (err) {
    ctx.log.warn('library scan request failed', { error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * What makes a hidden track wanted elsewhere: a finished job that is not a hiding flow's (a normal
 * request or a playlist download reaching the same file, a job reusing the track), and a static or
 * shared playlist taking the track. A playlist letting a track go (removed from it, or the playlist
 * deleted) hides it again when nothing else wants it.
 */
export function startFlowVisibility(ctx: Deps): void {
  ctx.downloads.onEvent((e) => {
    if (e.type !== 'job_updated' || e.job.status !== 'done' || e.previousStatus === 'done') return;
    const j = e.job;
    if (j.reusedTrackId !== null) refreshFlowVisibility(ctx, { trackIds: [j.reusedTrackId] });
    else if (j.finalPath && j.playlistType !== 'flow') refreshFlowVisibility(ctx, { paths: [j.finalPath] });
  });
  const registry = ctx.playlists;
  registry.onChange((change) => {
    if (change.ref.kind === 'flow') return;
    const taken = change.type === 'changed' ? hiddenTrackIds(ctx.db, registry.trackIds(change.ref)) : [];
    const released = releasedFlowTrackIds(ctx.db);
    if (taken.length + released.length > 0) refreshFlowVisibility(ctx, { trackIds: [...taken, ...released] });
  });
}
