import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shrinkMemory, type Db } from '../db/connection.js';
import { scanRuns, type ScanRun } from '../db/libraryScanRuns.js';
import type { LidarrIndexCounts } from './lidarrIndexer.js';
import type { PathMapping } from './lidarrPaths.js';
import type { LidarrIndexWorkerCommand, LidarrIndexWorkerData, LidarrIndexWorkerMessage } from './lidarrIndexWorker.js';
import { RUN_WORKER_IDLE_MS, RunWorker, spawnModuleWorker } from './runWorker.js';
import { PermanentJobError, type Job, type JobQueue } from '../jobs/queue.js';

export const LIDARR_SOURCE = 'lidarr';
/** The job queue (and the on-demand task of the tasks screen) that runs Lidarr index runs. */
export const LIDARR_INDEX_QUEUE = 'lidarr-index';

export interface LidarrTarget {
  baseUrl: string;
  apiKey: string;
  pathMappings: PathMapping[];
}

export interface LidarrIndexServiceOptions {
  db: Db;
  /** The durable job queue: each queued run has its job on LIDARR_INDEX_QUEUE, run one at a time. */
  jobs: JobQueue;
  /** The queue's name (default LIDARR_INDEX_QUEUE; a second service on one job queue needs its own). */
  queue?: string;
  dbPath: string;
  /** The configured Lidarr, read when a run starts; null when Lidarr is not configured. */
  target: () => LidarrTarget | null;
  broadcast?: (type: 'library_scan_started' | 'library_scan_progress' | 'library_scan_completed', payload: Record<string, unknown>) => void;
  log?: { info(msg: string, meta?: Record<string, unknown>): void; warn(msg: string, meta?: Record<string, unknown>): void };
  now?: () => number;
  /** Called after a run completed, with the Lidarr artist ids it covered (null = the whole library). */
  onIndexed?: (artistIds: number[] | null) => void;
  /** An idle index worker ends after this long (default: RUN_WORKER_IDLE_MS, one minute). */
  workerIdleMs?: number;
}

interface Pending {
  runId: number;
  /** null: every artist. */
  artistIds: Set<number> | null;
  force: boolean;
}

/**
 * Main-thread side of Lidarr indexing: runs are rows of library_scan_runs (source `lidarr`, so
 * GET /api/library/refresh/:jobId reads them too), each with its job on LIDARR_INDEX_QUEUE (written
 * in one transaction); the queue runs them one at a time in a worker thread.
 * Requests arriving while a run is queued merge into it: artist scopes add up, a full request
 * widens it to everything. A request during a run queues the next one. The worker is started on first
 * use and kept (like the folder scan worker) until it has been idle for a minute, so a burst of webhook
 * re-indexes costs only the work, not a thread start each.
 */
export class LidarrIndexService {
  private readonly worker: RunWorker<LidarrIndexWorkerCommand, LidarrIndexWorkerMessage>;
  /** The run the worker is on, with what its completion needs. */
  private current: { runId: number; artistIds: number[] | null } | null = null;
  private pending: Pending | null = null;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly now: () => number;
  private readonly queue: string;
  /** Ends the queue job of the run in the worker. */
  private runDone: ((runId: number) => void) | null = null;

  constructor(private readonly options: LidarrIndexServiceOptions) {
    this.now = options.now ?? Date.now;
    this.worker = new RunWorker({
      spawn: () => spawnModuleWorker(path.dirname(fileURLToPath(import.meta.url)), 'lidarrIndexWorker', { dbPath: options.dbPath } satisfies LidarrIndexWorkerData),
      idleMs: options.workerIdleMs ?? RUN_WORKER_IDLE_MS,
      // The busy spell is over: this connection's cache goes back too (it refills on demand).
      onIdleExit: () => shrinkMemory(options.db),
      onMessage: (message) => {
        if (message.type === 'progress') {
          this.options.broadcast?.('library_scan_progress', { jobId: String(message.runId), source: LIDARR_SOURCE, ...message.counts });
        } else {
          this.finished(message.runId);
        }
      },
      onError: (err) => this.options.log?.warn('Lidarr index worker failed', { runId: this.current?.runId, error: err.message }),
      onExit: (failure) => {
        const runId = this.current?.runId;
        if (this.stopped || runId === undefined) return;
        // The worker died mid-run: the run fails with the reason, and the queue goes on with a new worker.
        const current = scanRuns.get(this.options.db, runId);
        if (current?.status === 'running') {
          const reason = failure ? `Lidarr index worker failed: ${failure}` : 'Lidarr index worker stopped';
          scanRuns.finish(this.options.db, runId, 'failed', reason, this.now());
        }
        this.finished(runId);
      },
    });
    this.queue = options.queue ?? LIDARR_INDEX_QUEUE;
    options.jobs.register<{ runId: number }>(this.queue, {
      concurrency: 1,
      // As for library scans: a failed run ends its job dead at once; a killed process's job ends at once.
      maxAttempts: 3,
      visibilityTimeoutMs: 60_000,
      handler: (job) => this.runJob(job),
    });
  }

  start(): void {
    const interrupted = scanRuns.closeInterrupted(this.options.db, this.now(), LIDARR_SOURCE);
    // Queued rows of a previous process have no scope in memory any more: one full run covers them.
    const stale = scanRuns.supersedeQueued(this.options.db, this.now(), LIDARR_SOURCE);
    if (interrupted.length > 0 || stale.length > 0) this.requestFull('resume after restart');
  }

  /** Queues an incremental (or forced) run over the whole library; returns its job id. */
  requestFull(reason: string, force = false): number {
    if (this.pending) {
      this.pending.artistIds = null;
      if (force && !this.pending.force) {
        this.pending.force = true;
        scanRuns.upgradeToFull(this.options.db, this.pending.runId);
      }
      return this.pending.runId;
    }
    return this.enqueue({ artistIds: null, force }, reason);
  }

  /** Queues a run over some Lidarr artists (never skipped as unchanged); returns its job id. */
  requestArtists(artistIds: number[], reason: string): number {
    if (this.pending) {
      if (this.pending.artistIds) for (const id of artistIds) this.pending.artistIds.add(id);
      return this.pending.runId;
    }
    return this.enqueue({ artistIds: new Set(artistIds), force: false }, reason);
  }

  job(id: number): ScanRun | undefined {
    const run = scanRuns.get(this.options.db, id);
    return run?.source === LIDARR_SOURCE ? run : undefined;
  }

  isIndexing(): boolean {
    return this.current !== null || this.pending !== null;
  }

  whenIdle(): Promise<void> {
    if (!this.isIndexing()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.worker.stop();
    if (this.pending) scanRuns.finish(this.options.db, this.pending.runId, 'failed', 'server stopped', this.now());
    this.pending = null;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The run and its job, in one transaction. */
  private enqueue(scope: Omit<Pending, 'runId'>, reason: string): number {
    const mode = scope.force ? 'full' : 'quick';
    const runId = this.options.jobs.enqueueWith(
      () => scanRuns.enqueue(this.options.db, mode, reason, this.now(), LIDARR_SOURCE),
      (id) => ({ queue: this.queue, payload: { runId: id }, options: { name: this.queue, dedupeKey: `run:${id}` } }),
    );
    this.pending = { runId, ...scope };
    return runId;
  }

  /** What the index has in hand, in words, for the tasks screen; null when nothing runs or waits. */
  describe(): string | null {
    if (this.current) {
      const run = scanRuns.get(this.options.db, this.current.runId);
      const scope = this.current.artistIds ? `${this.current.artistIds.length} artist(s)` : 'the whole library';
      return `indexing ${scope}: ${run?.filesSeen ?? 0} files seen`;
    }
    if (this.pending) return `a run over ${this.pending.artistIds ? `${this.pending.artistIds.size} artist(s)` : 'the whole library'} is queued`;
    return null;
  }

  /**
   * The queue job of one run. A run that is not the one waiting in this process (queued by a process
   * that stopped; start() superseded it with a full run) ends at once. At shutdown the job gives up
   * (it is released) and the worker stops after its batch.
   */
  private async runJob(job: Job<{ runId: number }>): Promise<void> {
    const db = this.options.db;
    const { runId } = job.payload;
    try {
      const next = this.pending;
      if (!next || next.runId !== runId || this.stopped) return;
      this.pending = null;
      const target = this.options.target();
      if (!target) {
        scanRuns.finish(db, next.runId, 'failed', 'Lidarr is not configured', this.now());
        throw new PermanentJobError('Lidarr is not configured');
      }
      const artistIds = next.artistIds ? [...next.artistIds] : null;
      const ended = new Promise<void>((resolve, reject) => {
        this.runDone = (id) => {
          if (id === runId) resolve();
        };
        job.signal.addEventListener('abort', () => reject(new Error('server stopping')), { once: true });
      });
      scanRuns.start(db, next.runId, artistIds ? artistIds.map((id) => `lidarr:artist/${id}`) : ['lidarr:all'], this.now());
      this.options.broadcast?.('library_scan_started', { jobId: String(next.runId), mode: next.force ? 'full' : 'quick', source: LIDARR_SOURCE });
      this.current = { runId: next.runId, artistIds };
      this.worker.send({
        type: 'run',
        runId: next.runId,
        baseUrl: target.baseUrl,
        apiKey: target.apiKey,
        pathMappings: target.pathMappings,
        artistIds,
        force: next.force,
      });
      await ended;
      const final = scanRuns.get(db, runId);
      if (final?.status === 'failed') throw new PermanentJobError(final.error ?? 'Lidarr index failed');
    } finally {
      if (!this.stopped && !this.current && !this.pending) {
        this.worker.idle();
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    }
  }

  private finished(runId: number): void {
    const run = this.current;
    if (!run || run.runId !== runId) return;
    this.current = null;
    if (this.stopped) return;
    const final = scanRuns.get(this.options.db, runId);
    if (final?.status === 'failed') this.options.log?.warn('Lidarr index failed', { runId, error: final.error });
    else this.options.onIndexed?.(run.artistIds);
    this.options.broadcast?.('library_scan_completed', {
      jobId: String(runId),
      source: LIDARR_SOURCE,
      status: final?.status ?? 'failed',
      filesSeen: final?.filesSeen ?? 0,
      filesIndexed: final?.filesIndexed ?? 0,
      filesMissing: final?.filesMissing ?? 0,
    });
    const done = this.runDone;
    this.runDone = null;
    done?.(runId);
  }

  /** Whether an index worker thread is running (started and not yet ended). */
  hasWorker(): boolean {
    return this.worker.running;
  }

  /** The index worker thread's id (null when none runs), to tell a kept thread from a new one. */
  workerThreadId(): number | null {
    return this.worker.threadId;
  }
}

export type { LidarrIndexCounts };
