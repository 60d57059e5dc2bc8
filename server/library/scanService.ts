import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { watch, type FSWatcher } from 'chokidar';
import type { Db } from '../db/connection.js';
import { scanRuns, type ScanCounts, type ScanMode, type ScanRun } from '../db/libraryScanRuns.js';
import { isAudioFile, isIgnoredChange } from './audioFormats.js';
import type { ScanWorkerData, ScanWorkerMessage } from './scanWorker.js';

export interface ScanLog {
  info(msg: string, meta?: Record<string, unknown>): void;
  warn(msg: string, meta?: Record<string, unknown>): void;
}

export interface LibraryScanServiceOptions {
  db: Db;
  dbPath: string;
  imageDir: string;
  /** Effective music folders (environment ∪ settings), read at each scan. */
  roots: () => string[];
  broadcast?: (type: 'library_scan_started' | 'library_scan_progress' | 'library_scan_completed', payload: Record<string, unknown>) => void;
  log?: ScanLog;
  now?: () => number;
  /** Watch the folders and queue a quick scan after changes. */
  watch?: boolean;
  watchDebounceMs?: () => number;
  watchMaxWaitMs?: number;
}

const DEFAULT_DEBOUNCE_MS = 120_000;

/**
 * Main-thread side of scanning: queues runs in library_scan_runs (which double as refresh jobs),
 * runs them one at a time in a worker thread, relays progress to /ws, and watches the folders.
 * The main thread does no scanning work itself.
 */
export class LibraryScanService {
  private worker: Worker | null = null;
  private currentRunId: number | null = null;
  private watcher: FSWatcher | null = null;
  private debounceTimer: NodeJS.Timeout | null = null;
  private firstChangeAt: number | null = null;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: LibraryScanServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Closes runs a killed process left running, re-queues their work, resumes the queue, starts watching. */
  start(): void {
    const interrupted = scanRuns.closeInterrupted(this.options.db, this.now());
    if (interrupted.length > 0) {
      this.options.log?.warn('library scan interrupted by a restart; queued again', { runIds: interrupted });
      const mode = interrupted.some((id) => scanRuns.get(this.options.db, id)?.mode === 'full') ? 'full' : 'quick';
      this.requestScan(mode, 'resume after interruption');
    }
    this.pump();
    if (this.options.watch) this.startWatching();
  }

  /** Queues a scan (merging into an already queued one; full wins) and returns its job id. */
  requestScan(mode: ScanMode, reason: string): number {
    const db = this.options.db;
    const queued = scanRuns.queued(db);
    let id: number;
    if (queued) {
      if (mode === 'full' && queued.mode !== 'full') scanRuns.upgradeToFull(db, queued.id);
      id = queued.id;
    } else {
      id = scanRuns.enqueue(db, mode, reason, this.now());
    }
    queueMicrotask(() => this.pump());
    return id;
  }

  job(id: number): ScanRun | undefined {
    return scanRuns.get(this.options.db, id);
  }

  isScanning(): boolean {
    return this.worker !== null;
  }

  /** Resolves once nothing is running or queued. */
  whenIdle(): Promise<void> {
    if (!this.worker && !scanRuns.queued(this.options.db)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Restart the watcher (music folders or debounce changed). */
  refreshWatcher(): void {
    if (!this.options.watch || this.stopped) return;
    void this.watcher?.close();
    this.watcher = null;
    this.startWatching();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    await this.watcher?.close();
    this.watcher = null;
    const worker = this.worker;
    if (worker) {
      // Ask the worker to stop after its current batch; the run stays `running`, and the next start
      // closes it as interrupted and queues the rest. A worker that does not stop in time is terminated.
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ type: 'stop' });
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private pump(): void {
    if (this.worker || this.stopped) return;
    const db = this.options.db;
    const run = scanRuns.queued(db);
    if (!run) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    const roots = [...new Set(this.options.roots().map((r) => path.resolve(r)))];
    scanRuns.start(db, run.id, roots, this.now());
    this.currentRunId = run.id;
    this.options.broadcast?.('library_scan_started', { jobId: String(run.id), mode: run.mode });
    const data: ScanWorkerData = { dbPath: this.options.dbPath, runId: run.id, mode: run.mode, roots, imageDir: this.options.imageDir };
    const worker = spawnScanWorker(data);
    this.worker = worker;
    let finished = false;
    let failure = 'scan worker stopped';
    worker.on('message', (message: ScanWorkerMessage) => {
      if (message.type === 'progress') this.progress(run.id, message.counts);
      else finished = true;
    });
    worker.on('error', (err) => {
      failure = `scan worker failed: ${err.message}`;
      this.options.log?.warn('library scan worker failed', { runId: run.id, error: err.message });
    });
    worker.on('exit', () => {
      this.worker = null;
      this.currentRunId = null;
      if (this.stopped) return;
      if (!finished) {
        const current = scanRuns.get(db, run.id);
        if (current?.status === 'running') scanRuns.finish(db, run.id, 'failed', failure, this.now());
      }
      const final = scanRuns.get(db, run.id);
      this.options.broadcast?.('library_scan_completed', {
        jobId: String(run.id),
        status: final?.status ?? 'failed',
        ...countsOf(final),
      });
      this.pump();
    });
  }

  private progress(runId: number, counts: ScanCounts): void {
    this.options.broadcast?.('library_scan_progress', { jobId: String(runId), ...counts });
  }

  private startWatching(): void {
    const roots = this.options.roots().filter((r) => fs.existsSync(r));
    if (roots.length === 0) return;
    this.watcher = watch(roots, {
      ignoreInitial: true,
      ignored: (file: string) => path.basename(file).startsWith('.'),
    });
    this.watcher.on('all', (event, file) => {
      if ((event === 'add' || event === 'change' || event === 'unlink') && (isIgnoredChange(file) || !isAudioFile(file))) return;
      this.scheduleQuickScan();
    });
    this.watcher.on('error', (err) => this.options.log?.warn('music folder watcher error', { error: String(err) }));
  }

  private scheduleQuickScan(): void {
    const debounce = this.options.watchDebounceMs?.() ?? DEFAULT_DEBOUNCE_MS;
    const maxWait = this.options.watchMaxWaitMs ?? Math.max(debounce * 5, 600_000);
    const t = this.now();
    this.firstChangeAt ??= t;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    // Long bursts of changes still get scanned after maxWait.
    const wait = Math.max(0, Math.min(debounce, this.firstChangeAt + maxWait - t));
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      this.firstChangeAt = null;
      this.requestScan('quick', 'music folder changed');
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

/**
 * The worker runs the compiled .js next to this file; in development (tsx, vitest) it registers
 * tsx inside the worker first, since loader flags do not reach worker threads.
 */
export function spawnScanWorker(data: ScanWorkerData): Worker {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const js = path.join(here, 'scanWorker.js');
  if (fs.existsSync(js)) return new Worker(js, { workerData: data });
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = pathToFileURL(path.join(here, 'scanWorker.ts')).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: data });
}
