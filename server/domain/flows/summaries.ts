import type { AppContext } from '../../context.js';
import { statement } from '../../db/statements.js';
import { downloadsOf } from '../downloads/service.js';
import { playlistsOf } from '../playlists/registry.js';

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

  constructor(private readonly ctx: AppContext) {}

  watch(): void {
    this.watched = true;
    const clear = () => this.cache.clear();
    downloadsOf(this.ctx).onEvent(clear);
    playlistsOf(this.ctx).onChange(clear);
  }

  /** The current runs of every flow (or of one owner's flows). */
  get(ownerUserId: number | undefined): Map<number, TrackSummary> {
    const key = String(ownerUserId ?? 'all');
    const hit = this.cache.get(key);
    if (this.watched && hit && performance.now() - hit.at < 2000) return hit.map;
    const map = new Map(
      (
        statement(
          this.ctx.db,
          `WITH ids AS MATERIALIZED (
             SELECT t.run_id AS runId, COALESCE(j.reused_track_id, (SELECT m.track_id FROM library_media_files m WHERE m.path = j.final_path LIMIT 1)) AS trackId
             FROM flow_tracks t JOIN download_jobs j ON j.id = t.job_id
             WHERE t.run_id IN (SELECT current_run_id FROM flows WHERE current_run_id IS NOT NULL AND (@owner IS NULL OR owner_user_id = @owner))
               AND t.state = 'queued' AND j.status = 'done'),
           counts AS (SELECT runId, count(trackId) AS songCount FROM ids GROUP BY runId),
           durations AS (
             SELECT d.runId, SUM(lt.duration_ms) AS durationMs
             FROM (SELECT DISTINCT runId, trackId FROM ids WHERE trackId IS NOT NULL) d JOIN library_tracks lt ON lt.id = d.trackId GROUP BY d.runId)
           SELECT c.runId, c.songCount, COALESCE(d.durationMs, 0) AS durationMs FROM counts c LEFT JOIN durations d ON d.runId = c.runId`,
        ).all({ owner: ownerUserId ?? null }) as { runId: number; songCount: number; durationMs: number }[]
      ).map((r) => [r.runId, { songCount: r.songCount, durationMs: r.durationMs }]),
    );
    if (this.watched) this.cache.set(key, { at: performance.now(), map });
    return map;
  }
}
