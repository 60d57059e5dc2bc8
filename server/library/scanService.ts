import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { shrinkMemory, type Db } from '../db/connection.js';
import { scanRuns, type ScanCounts, type ScanMode, type ScanRun } from '../db/libraryScanRuns.js';
import { PermanentJobError, type Job, type JobQueue } from '../jobs/queue.js';
import { isAudioFile, isIgnoredChange } from './audioFormats.js';
import { FolderWatcher } from './folderWatcher.js';
import { RUN_WORKER_IDLE_MS, RunWorker, spawnModuleWorker } from './runWorker.js';
import type { ScanPhase } from './scanner.js';
import { spareCoreStartHere } from './scanReadThread.js';
import type { ScanWorkerCommand, ScanWorkerData, ScanWorkerMessage } from './scanWorker.js';

export interface ScanLog {
  info(msg: string, meta?: Record<string, unknown>): void;
  warn(msg: string, meta?: Record<string, unknown>): void;
}

export interface LibraryScanServiceOptions {
  db: Db;
  /** The durable job queue: each queued run has its job on SCAN_QUEUE, and the queue runs them one at a time. */
  jobs: JobQueue;
  /** The queue's name (default SCAN_QUEUE; a second service on one job queue needs its own). */
  queue?: string;
  dbPath: string;
  imageDir: string;
  /** Effective music folders (environment ∪ settings), read at each scan. */
  roots: () => string[];
  /** Folders links inside the music folders may point into (the downloads root), read at each scan. */
  linkRoots?: () => string[];
  broadcast?: (type: 'library_scan_started' | 'library_scan_progress' | 'library_scan_completed', payload: Record<string, unknown>) => void;
  log?: ScanLog;
  now?: () => number;
  /** Watch the folders and queue a quick scan after changes. */
  watch?: boolean;
  /** Quiet time after the last change before a watcher-triggered scan (default 10 s). */
  watchDebounceMs?: () => number;
  /** Longest wait after the first change of a burst (default max(60 s, 6 × the quiet time)). */
  watchMaxWaitMs?: number;
  /** An idle scan worker ends after this long (default: RUN_WORKER_IDLE_MS, one minute). */
  workerIdleMs?: number;
  /** Least time between the end of a scan and the start of a paced one (default PACED_GAP_MS). */
  pacedGapMs?: number;
  /** Starts the scan worker thread (default spawnScanWorker; a test makes it fail). */
  spawnWorker?: (data: ScanWorkerData) => Worker;
}

export interface ScanRequestOptions {
  /**
   * The scan may wait until PACED_GAP_MS after the previous one ended, gathering the paths requested
   * meanwhile (downloads filed one after another). Unpaced requests merged into it start it at once.
   */
  paced?: boolean;
}

const DEFAULT_DEBOUNCE_MS = 10_000;
const MIN_MAX_WAIT_MS = 60_000;
/** Past this many changed paths, a watcher-triggered scan walks the whole folders instead. */
const MAX_SCOPED_PATHS = 2000;
/**
 * Paced scans start at most this often. A scan's write transactions hold the database's write lock,
 * and every job update of the main thread waits for them (SQLite retries after 1, 2, 5, 10 ms…);
 * eight downloads filed each second would otherwise keep a scan running back to back.
 */
export const PACED_GAP_MS = 1000;

/** The job queue (and the on-demand task of the tasks screen) that runs library scans. */
export const SCAN_QUEUE = 'library-scan';

interface ScanJobPayload {
  runId: number;
}

/**
 * Main-thread side of scanning: queues runs in library_scan_runs (the refresh jobs of the API), each
 * with its job on the durable queue SCAN_QUEUE (written in one transaction), which runs them one at a
 * time in a long-lived worker thread; relays progress to /ws, and watches the folders. The main
 * thread does no scanning work itself; a watcher-triggered scan covers only the paths that changed.
 */
export class LibraryScanService {
  private readonly worker: RunWorker<ScanWorkerCommand, ScanWorkerMessage>;
  private currentRunId: number | null = null;
  /** Changed paths of queued watcher runs; a run without an entry covers every folder. */
  private readonly scopes = new Map<number, Set<string>>();
  private watcher: FolderWatcher | null = null;
  private watcherReady: Promise<void> = Promise.resolve();
  private debounceTimer: NodeJS.Timeout | null = null;
  private firstChangeAt: number | null = null;
  /** Paths changed since the last watcher-triggered request; null after too many. */
  private changedPaths: Set<string> | null = new Set();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly now: () => number;
  private readonly queue: string;
  /** Queued runs every request of which was paced. */
  private readonly paced = new Set<number>();
  /** When the last run ended (performance.now(), not the injectable clock: pacing is real time). */
  private lastEndedAt = -Infinity;
  /** Starts a run waiting out its pacing gap at once (an unpaced request joined it). */
  private paceWake: (() => void) | null = null;
  /** Ends the queue job of the run in the worker. */
  private runDone: ((runId: number) => void) | null = null;

  constructor(private readonly options: LibraryScanServiceOptions) {
    this.now = options.now ?? Date.now;
    this.worker = new RunWorker({
      spawn: () => (options.spawnWorker ?? spawnScanWorker)({ dbPath: options.dbPath, imageDir: options.imageDir, spawned: spareCoreStartHere() }),
      idleMs: options.workerIdleMs ?? RUN_WORKER_IDLE_MS,
      // The busy spell is over: this connection's cache goes back too (it refills on demand).
      onIdleExit: () => shrinkMemory(options.db),
      onMessage: (message) => {
        if (message.type === 'progress') this.progress(message.runId, message.counts, message.phase);
        else if (message.type === 'done' && message.status !== 'stopped') this.finished(message.runId);
      },
      onError: (err) => this.options.log?.warn('library scan worker failed', { runId: this.currentRunId, error: err.message }),
      onExit: (failure) => {
        const runId = this.currentRunId;
        if (this.stopped || runId === null) return;
        // The worker died mid-run: the run fails with the reason, and the queue goes on with a new worker.
        const current = scanRuns.get(this.options.db, runId);
        if (current?.status === 'running')
          scanRuns.finish(this.options.db, runId, 'failed', failure ? `scan worker failed: ${failure}` : 'scan worker stopped', this.now());
        this.finished(runId);
      },
    });
    this.queue = options.queue ?? SCAN_QUEUE;
    options.jobs.register<ScanJobPayload>(this.queue, {
      concurrency: 1,
      // A failed run stays failed (its job ends dead at once); further attempts are for the job of a
      // run a killed process left, which ends at once (start() closed the run and queued its work again).
      maxAttempts: 3,
      // A claim is renewed while the scan runs; a killed process's scan is taken back at the next start.
      visibilityTimeoutMs: 60_000,
      handler: (job) => this.runJob(job),
    });
  }

  /**
   * Closes runs a killed process left running and re-queues their work; every queued run gets its job
   * (one is missing only for runs queued before scans ran on the job queue); starts watching. The
   * queue takes the runs once it starts.
   */
  start(): void {
    const interrupted = scanRuns.closeInterrupted(this.options.db, this.now());
    if (interrupted.length > 0) {
      this.options.log?.warn('library scan interrupted by a restart; queued again', { runIds: interrupted });
      const mode = interrupted.some((id) => scanRuns.get(this.options.db, id)?.mode === 'full') ? 'full' : 'quick';
      this.requestScan(mode, 'resume after interruption');
    }
    for (const run of scanRuns.allQueued(this.options.db)) this.enqueueJob(run.id);
    if (this.options.watch) this.startWatching();
  }

  /** The run's job; its dedupe key makes this a no-op while the job is queued or running. */
  private enqueueJob(runId: number): void {
    this.options.jobs.enqueue<ScanJobPayload>(this.queue, { runId }, { name: this.queue, dedupeKey: `run:${runId}` });
  }

  /**
   * Queues a scan (merging into an already queued one; full wins, and so does a scan of every
   * folder over one scoped to changed `paths`) and returns its job id.
   */
  requestScan(mode: ScanMode, reason: string, paths?: string[], options: ScanRequestOptions = {}): number {
    const db = this.options.db;
    const paced = options.paced === true && mode === 'quick' && paths !== undefined;
    // The dedupe rule: a request while a run is queued joins it (full wins) instead of queueing
    // another; otherwise the new run and its job are written together.
    const { id, created } = this.options.jobs.enqueueWith(
      () => {
        const queued = scanRuns.queued(db);
        if (!queued) return { id: scanRuns.enqueue(db, mode, reason, this.now()), created: true };
        if (mode === 'full' && queued.mode !== 'full') scanRuns.upgradeToFull(db, queued.id);
        return { id: queued.id, created: false };
      },
      (run) => (run.created ? { queue: this.queue, payload: { runId: run.id }, options: { name: this.queue, dedupeKey: `run:${run.id}` } } : null),
    );
    if (!created) {
      const scope = this.scopes.get(id);
      if (scope && paths && mode === 'quick' && scope.size + paths.length <= MAX_SCOPED_PATHS) {
        for (const p of paths) scope.add(p);
      } else {
        this.scopes.delete(id);
      }
      if (!paced) {
        this.paced.delete(id);
        this.paceWake?.();
      }
    } else {
      if (paths && mode === 'quick') this.scopes.set(id, new Set(paths));
      if (paced) this.paced.add(id);
    }
    return id;
  }

  job(id: number): ScanRun | undefined {
    return scanRuns.get(this.options.db, id);
  }

  /** What the scans have in hand, in words, for the tasks screen; null when nothing is running or queued. */
  describe(): string | null {
    const running = this.currentRunId === null ? undefined : scanRuns.get(this.options.db, this.currentRunId);
    if (running) return `${running.mode} scan running: ${running.filesSeen} files seen, ${running.filesIndexed} indexed`;
    const queued = scanRuns.queued(this.options.db);
    return queued ? `${queued.mode} scan queued (${queued.reason ?? 'requested'})` : null;
  }

  isScanning(): boolean {
    return this.currentRunId !== null;
  }

  /** Resolves once nothing is running or queued. */
  whenIdle(): Promise<void> {
    if (this.currentRunId === null && !scanRuns.queued(this.options.db)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Resolves once the folder watcher has seen the folders (changes before that may be missed). */
  whenWatching(): Promise<void> {
    return this.watcherReady;
  }

  /** Whether a scan worker thread is running (it ends after RUN_WORKER_IDLE_MS without scans). */
  hasWorker(): boolean {
    return this.worker.running;
  }

  /** What the folder watcher holds an OS watch on (folders only; files are seen through them). */
  watchedPaths(): string[] {
    return this.watcher?.watched() ?? [];
  }

  /** Restart the watcher (music folders or debounce changed). */
  refreshWatcher(): void {
    if (!this.options.watch || this.stopped) return;
    this.watcher?.close();
    this.watcher = null;
    this.startWatching();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.paceWake?.();
    this.watcher?.close();
    this.watcher = null;
    // The worker stops after its current batch; the run stays `running`, and the next start closes
    // it as interrupted and queues the rest.
    await this.worker.stop();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /**
   * The queue job of one run: waits out the pacing gap, runs the scan in the worker thread and ends
   * with it. A run no longer queued (closed as interrupted at a start, its work queued again) ends
   * the job at once. At shutdown the job gives up (it is released); the worker stops after its batch.
   */
  private async runJob(job: Job<ScanJobPayload>): Promise<void> {
    const db = this.options.db;
    const { runId } = job.payload;
    try {
      if (scanRuns.get(db, runId)?.status !== 'queued' || this.stopped) return;
      if (this.paced.has(runId)) await this.paceGap(job.signal);
      if (job.signal.aborted || this.stopped) throw new Error('server stopping');
      const run = scanRuns.get(db, runId);
      if (run?.status !== 'queued') return;
      this.paced.delete(run.id);
      const roots = [...new Set(this.options.roots().map((r) => path.resolve(r)))];
      const scope = this.scopes.get(run.id);
      this.scopes.delete(run.id);
      const ended = new Promise<void>((resolve, reject) => {
        this.runDone = (id) => {
          if (id === runId) resolve();
        };
        job.signal.addEventListener('abort', () => reject(new Error('server stopping')), { once: true });
      });
      scanRuns.start(db, run.id, roots, this.now());
      this.currentRunId = run.id;
      this.options.broadcast?.('library_scan_started', { jobId: String(run.id), mode: run.mode });
      const linkRoots = (this.options.linkRoots?.() ?? []).filter((r) => r.trim() !== '').map((r) => path.resolve(r));
      this.worker.send({ type: 'run', runId: run.id, mode: run.mode, roots, linkRoots, ...(scope && { paths: [...scope] }) });
      await ended;
      const final = scanRuns.get(db, runId);
      if (final?.status === 'failed') throw new PermanentJobError(final.error ?? 'scan failed');
    } finally {
      if (!this.stopped && this.currentRunId === null && !scanRuns.queued(db)) {
        this.worker.idle();
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    }
  }

  /** Waits until PACED_GAP_MS after the previous run ended, or until an unpaced request joins the run. */
  private async paceGap(signal: AbortSignal): Promise<void> {
    const wait = this.lastEndedAt + (this.options.pacedGapMs ?? PACED_GAP_MS) - performance.now();
    if (wait <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.ceil(wait));
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      this.paceWake = () => {
        this.paceWake = null;
        done();
      };
      signal.addEventListener('abort', done, { once: true });
    });
    this.paceWake = null;
  }

  private finished(runId: number): void {
    if (this.currentRunId !== runId) return;
    this.currentRunId = null;
    this.lastEndedAt = performance.now();
    if (this.stopped) return;
    const final = scanRuns.get(this.options.db, runId);
    this.options.broadcast?.('library_scan_completed', {
      jobId: String(runId),
      status: final?.status ?? 'failed',
      ...countsOf(final),
    });
    const done = this.runDone;
    this.runDone = null;
    done?.(runId);
  }

  /** `phase` tells a progress bar whether filesSeen is still growing (walking) or final (reading). */
  private progress(runId: number, counts: ScanCounts, phase: ScanPhase): void {
    this.options.broadcast?.('library_scan_progress', { jobId: String(runId), phase, ...counts });
  }

  private startWatching(): void {
    const roots = this.options.roots().filter((r) => fs.existsSync(r));
    if (roots.length === 0) return;
    // One OS watch per folder (folderWatcher.ts); its first walk lists the folders, files are seen
    // through their folder's watch.
    const watcher = new FolderWatcher(roots, {
      // Folders always count (a moved-in album).
      folder: (dir) => this.changed(dir),
      // Files: when audio and not temporary.
      file: (file) => {
        if (!isIgnoredChange(file) && isAudioFile(file)) this.changed(file);
      },
      error: (err) => this.options.log?.warn('music folder watcher error', { error: String(err) }),
    });
    this.watcher = watcher;
    this.watcherReady = watcher.ready;
  }

  private changed(file: string): void {
    if (this.changedPaths && this.changedPaths.size < MAX_SCOPED_PATHS) this.changedPaths.add(file);
    else this.changedPaths = null;
    this.scheduleQuickScan();
  }

  private scheduleQuickScan(): void {
    const debounce = this.options.watchDebounceMs?.() ?? DEFAULT_DEBOUNCE_MS;
    const maxWait = this.options.watchMaxWaitMs ?? Math.max(debounce * 6, MIN_MAX_WAIT_MS);
    const t = this.now();
    this.firstChangeAt ??= t;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    // Long bursts of changes still get scanned after maxWait.
    const wait = Math.max(0, Math.min(debounce, this.firstChangeAt + maxWait - t));
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      this.firstChangeAt = null;
      const paths = this.changedPaths;
      this.changedPaths = new Set();
      this.requestScan('quick', 'music folder changed', paths ? [...paths] : undefined);
    }, wait);
    this.debounceTimer.unref?.();
  }

  get runningJobId(): number | null {
    return this.currentRunId;
  }
}

function countsOf(run: ScanRun | undefined): ScanCounts {
  return {
    filesSeen: run?.filesSeen ?? 0,
    filesIndexed: run?.filesIndexed ?? 0,
    filesSkipped: run?.filesSkipped ?? 0,
    filesFailed: run?.filesFailed ?? 0,
    filesMissing: run?.filesMissing ?? 0,
    filesMoved: run?.filesMoved ?? 0,
  };
}

/** The scan worker thread (compiled .js, or .ts through tsx in development). */
export function spawnScanWorker(data: ScanWorkerData) {
  return spawnModuleWorker(path.dirname(fileURLToPath(import.meta.url)), 'scanWorker', data);
}
