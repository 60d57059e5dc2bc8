import { parentPort, workerData } from 'node:worker_threads';
import { openWorkerConnection } from '../db/connection.js';
import { scanRuns, type ScanCounts, type ScanMode } from '../db/libraryScanRuns.js';
import { scanLibrary, ScanStoppedError, type ScanPhase } from './scanner.js';
import { lowerThisThread } from '../priority.js';
import { ScanReadThread, SpareCore, readThreadEnabled, type SpareCoreStart } from './scanReadThread.js';

/**
 * Worker-thread entry: a long-lived scanner on its own database connection. It runs one scan per
 * `run` message, so a scan after a file change pays no thread start, and ends on `stop` (between
 * batches of a running scan) or `exit` (when idle).
 */
export interface ScanWorkerData {
  dbPath: string;
  imageDir: string;
  /** The processor times as the thread was started (the read thread's first look for a spare core). */
  spawned?: SpareCoreStart;
}

export interface ScanRunRequest {
  type: 'run';
  runId: number;
  mode: ScanMode;
  roots: string[];
  /** Where links inside the roots may point besides the roots (see ScanOptions.linkRoots). */
  linkRoots?: string[];
  /** Scope: only these changed paths (see ScanOptions.paths). */
  paths?: string[];
}

export type ScanWorkerCommand = ScanRunRequest | { type: 'stop' } | { type: 'exit' };

export type ScanWorkerMessage =
  | { type: 'progress'; runId: number; counts: ScanCounts; phase: ScanPhase }
  | { type: 'done'; runId: number; status: 'completed' | 'failed' | 'stopped'; error: string | null };

const data = workerData as ScanWorkerData;
const post = (message: ScanWorkerMessage) => parentPort?.postMessage(message);
// Scans are background work: requests and streams on the main thread go first (priority.ts).
lowerThisThread();
const db = openWorkerConnection(data.dbPath);
// Reads of large scans go to a second thread (TONEARM_SCAN_READ_THREAD, on by default), started when
// a scan first needs it and a core is idle beside it, ended with this one.
const readThread = new ScanReadThread({ imageDir: data.imageDir });
const spareCore = new SpareCore();
if (data.spawned) spareCore.beginAt(data.spawned);
const readOffload = readThreadEnabled() ? {
  take: readThread.take.bind(readThread),
  get busy() {
    return readThread.busy;
  },
  start: () => {
    if (!readThread.started && spareCore.check()) readThread.start();
  },
} : undefined;
let stopRequested = false;
let running: Promise<void> = Promise.resolve();

parentPort?.on('message', (m: ScanWorkerCommand) => {
  if (m.type === 'run') running = running.then(() => run(m));
  else if (m.type === 'stop' || m.type === 'exit') {
    stopRequested = true;
    void running.then(async () => {
      db.close();
      await readThread.close();
      parentPort?.close();
    });
  }
});

async function run(request: ScanRunRequest): Promise<void> {
  if (stopRequested) return;
  try {
    const result = await scanLibrary(db, {
      runId: request.runId,
      mode: request.mode,
      roots: request.roots,
      ...(request.linkRoots && { linkRoots: request.linkRoots }),
      ...(request.paths && { paths: request.paths }),
      imageDir: data.imageDir,
      ...(readOffload && { readThread: readOffload }),
      onProgress: (counts, phase) => post({ type: 'progress', runId: request.runId, counts, phase }),
      shouldStop: () => stopRequested,
    });
    scanRuns.progress(db, request.runId, result, result.errors);
    scanRuns.finish(db, request.runId, 'completed', null, Date.now());
    post({ type: 'done', runId: request.runId, status: 'completed', error: null });
  } catch (err) {
    if (err instanceof ScanStoppedError) {
      // Shutdown: every committed batch stays; the next start closes this run as interrupted and resumes.
      post({ type: 'done', runId: request.runId, status: 'stopped', error: 'interrupted' });
    } else {
      const message = err instanceof Error ? err.message : String(err);
      scanRuns.finish(db, request.runId, 'failed', message, Date.now());
      post({ type: 'done', runId: request.runId, status: 'failed', error: message });
    }
  } finally {
    // The next scan's first look for an idle core covers the time from here (a scan's first files
    // come quickly: a window starting with the run would answer only after 100 ms of them).
    spareCore.reset();
  }
}
