import { parentPort, workerData } from 'node:worker_threads';
import { openWorkerConnection } from '../db/connection.js';
import { scanRuns, type ScanMode } from '../db/libraryScanRuns.js';
import { scanLibrary, ScanStoppedError } from './scanner.js';

/** Worker-thread entry: one scan run on the worker's own database connection. */
export interface ScanWorkerData {
  dbPath: string;
  runId: number;
  mode: ScanMode;
  roots: string[];
  imageDir: string;
}

export type ScanWorkerMessage =
  | { type: 'progress'; counts: import('../db/libraryScanRuns.js').ScanCounts }
  | { type: 'done'; status: 'completed' | 'failed'; error: string | null };

const data = workerData as ScanWorkerData;
const post = (message: ScanWorkerMessage) => parentPort?.postMessage(message);
const db = openWorkerConnection(data.dbPath);
let stopRequested = false;
parentPort?.on('message', (m: { type?: string }) => {
  if (m.type === 'stop') stopRequested = true;
});
// Listening for "stop" must not keep the thread alive once the scan is done.
parentPort?.unref();
try {
  const result = await scanLibrary(db, {
    runId: data.runId,
    mode: data.mode,
    roots: data.roots,
    imageDir: data.imageDir,
    onProgress: (counts) => post({ type: 'progress', counts }),
    shouldStop: () => stopRequested,
  });
  scanRuns.progress(db, data.runId, result, result.errors);
  scanRuns.finish(db, data.runId, 'completed', null, Date.now());
  post({ type: 'done', status: 'completed', error: null });
} catch (err) {
  if (err instanceof ScanStoppedError) {
    // Shutdown: every committed batch stays; the next start closes this run as interrupted and resumes.
    post({ type: 'done', status: 'failed', error: 'interrupted' });
  } else {
    const message = err instanceof Error ? err.message : String(err);
    scanRuns.finish(db, data.runId, 'failed', message, Date.now());
    post({ type: 'done', status: 'failed', error: message });
  }
} finally {
  db.close();
}
