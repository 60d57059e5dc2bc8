import { currentRunSummaries } from '../../db/flowQueries.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';
import type { PlaylistRegistry } from '../playlists/registry.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db'> & { downloads: DownloadService; playlists: PlaylistRegistry };

export interface TrackSummary {
  songCount: number;
  durationMs: number;
}

/**
 * Track counts and durations of the flows' current runs, by run id. Walking every done job of every
 * flow is the one costly part of the status, so once `watch` runs the answer is kept per audience
 * until a download event or playlist change (a flow's file joining the library is one), and at most
 * 2 s in any case (a library track removed without a playlist change).
 */
export class FlowTrackSummaries {
  private cache = new Map<string, { at: number; map: Map<number, TrackSummary> }>();
  private watched = false;

  constructor(private readonly ctx: Deps) {}

  watch(): void {
    this.watched = true;
    const clear = () => this.cache.clear();
    this.ctx.downloads.onEvent(clear);
    this.ctx.playlists.onChange(clear);
  }

  /** The current runs of every flow (or of one owner's flows). */
  get(ownerUserId: number | undefined): Map<number, TrackSummary> {
    const key = String(ownerUserId ?? 'all');
    const hit = this.cache.get(key);
    if (this.watched && hit && performance.now() - hit.at < 2000) return hit.map;
    const map = new Map(
      currentRunSummaries(this.ctx.db, ownerUserId ?? null).map((r) => [r.runId, { songCount: r.songCount, durationMs: r.durationMs }]),
    );
    if (this.watched) this.cache.set(key, { at: performance.now(), map });
    return map;
  }
}
