import { downloads, type DownloadJobPatch, type DownloadJobRow, type DownloadStatus, type NewDownloadJob } from '../../db/downloads.js';
import type { JobLinks } from '../../jobs/links.js';
import { hasPermission, type Principal } from '../auth/principal.js';
import { presentJob } from './present.js';
import type { DownloadSource, SourceFactory } from './types.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'scheduler'> & { hub: Broadcaster; settings: SettingsStore };

/** The durable queue that runs one track job per queue job (phases search → download → verify → file). */
export const TRACK_QUEUE = 'track-download';

export type DownloadEventType = 'job_updated' | 'job_blocked';
export interface DownloadEvent {
  type: DownloadEventType;
  job: DownloadJobRow;
  previousStatus: DownloadStatus | null;
}

/**
 * Self-managed downloads: the job rows, their transitions and the events they raise. The pipeline
 * (the queue handler), the review routes, album requests and notifications all go through here so
 * every change of a job is seen once by the WebSocket and by notifications.
 */
export class DownloadService {
  private readonly factories: SourceFactory[] = [];
  private readonly listeners = new Set<(e: DownloadEvent) => void>();
  /** Jobs this process is working on outside the queue (an approve filing a held file). */
  private readonly inHand = new Set<number>();
  /**
   * Each pending or downloading job row and its queue job: written together, and a row left without
   * a live queue job (a stopped worker started again, a job the queue gave up on mid-run) gets one
   * from the repair (at start, when the worker settings change, and the scheduler's repair task).
   */
  readonly links: JobLinks<DownloadJobRow>;

  constructor(private readonly ctx: Deps) {
    this.links = ctx.scheduler.link<DownloadJobRow>({
      name: 'download jobs',
      queue: TRACK_QUEUE,
      orphans: () => downloads.orphaned(ctx.db),
      job: (row) => ({
        payload: { jobId: row.id },
        options: { dedupeKey: `download:${row.id}`, priority: row.upgrade ? 10 : 0, name: `download ${row.id}` },
      }),
      link: (row, jobId) => void this.transition(row.id, { queueJobId: jobId }),
      // An approve filing the job outside the queue: not an orphan (a kill leaves it to the repair after the restart).
      busy: (row) => this.isInHand(row.id),
      active: () => ctx.settings.get().downloads.worker.running,
    });
  }

  /** Sources register once at start-up; `sources()` builds them from the settings of the moment. */
  registerSource(factory: SourceFactory): void {
    this.factories.push(factory);
  }

  /** The usable sources, lowest priority number first. */
  sources(): DownloadSource[] {
    const built: DownloadSource[] = [];
    for (const f of this.factories) {
      try {
        const s = f();
        if (s) built.push(s);
      } catch (err) {
        this.ctx.log.warn('download source could not be built', { error: err instanceof Error ? err.message : String(err) });
      }
    }
    return built.sort((a, b) => a.priority - b.priority);
  }

  onEvent(listener: (e: DownloadEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: number): DownloadJobRow | undefined {
    return downloads.get(this.ctx.db, id);
  }

  /**
   * Runs `work` on a job taken out of the queue's sight: while it runs, the sweep does not mistake
   * the job (downloading, with no queue job) for an orphan and run it a second time. A kill in the
   * middle leaves it to the sweep after the restart, which is the recovery wanted.
   */
  async inHandOf<T>(id: number, work: () => Promise<T>): Promise<T> {
    this.inHand.add(id);
    try {
      return await work();
    } finally {
      this.inHand.delete(id);
    }
  }

  isInHand(id: number): boolean {
    return this.inHand.has(id);
  }

  /** Creates the job and queues its first run, in one transaction. */
  create(input: NewDownloadJob, options: { priority?: number } = {}): DownloadJobRow {
    return this.ctx.jobs.transaction(() => {
      const row = downloads.insert(this.ctx.db, input, this.ctx.clock.now());
      return this.schedule(row, options) ?? row;
    });
  }

  /** Queues a run of a pending job (a new one, a denied one, a retried one). */
  schedule(row: DownloadJobRow, options: { priority?: number; delayMs?: number } = {}): DownloadJobRow | undefined {
    this.links.attach(row, { ...(options.priority !== undefined && { priority: options.priority }), ...(options.delayMs !== undefined && { delayMs: options.delayMs }) });
    return this.get(row.id);
  }

  /**
   * Applies a change; with `from`, only while the job is still in one of those statuses. Emits
   * `job_updated` (and `job_blocked` when the job became blocked) to listeners and on /ws.
   */
  transition(id: number, patch: DownloadJobPatch, from?: DownloadStatus[]): DownloadJobRow | undefined {
    const before = downloads.get(this.ctx.db, id);
    if (!before) return undefined;
    const after = downloads.update(this.ctx.db, id, patch, this.ctx.clock.now(), from);
    if (!after) return undefined;
    const statusChanged = after.status !== before.status;
    if (statusChanged || patch.progress !== undefined || patch.phase !== undefined || patch.error !== undefined) {
      this.emit({ type: 'job_updated', job: after, previousStatus: before.status });
    }
    if (statusChanged && after.status === 'blocked') this.emit({ type: 'job_blocked', job: after, previousStatus: before.status });
    return after;
  }

  private emit(event: DownloadEvent): void {
    const owner = event.job.userId;
    this.ctx.hub.broadcast(
      'playlists',
      event.type,
      { job: presentJob(event.job) },
      { audience: (p) => p.userId === owner || canSeeAllJobs(p) },
    );
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.ctx.log.warn('download event listener failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}

/** Administrators see and review every job; other users their own (reference §3.10). */
export function canSeeAllJobs(p: Principal): boolean {
  return p.role === 'admin';
}

/** Review needs accessFlow (api.md §3). */
export function canReview(p: Principal): boolean {
  return hasPermission(p, 'accessFlow');
}


