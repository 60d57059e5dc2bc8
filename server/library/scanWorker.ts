import { parentPort, workerData } from 'node:worker_threads';
import { openWorkerConnection } from '../db/connection.js';
import { scanRuns, type ScanMode } from '../db/libraryScanRuns.js';
import { scanLibrary } from './scanner.js';

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
try {
  const result = await scanLibrary(db, {
    runId: data.runId,
    mode: data.mode,
    roots: data.roots,
    imageDir: data.imageDir,
    onProgress: (counts) => post({ type: 'progress', counts }),
  });
  scanRuns.progress(db, data.runId, result, result.errors);
  scanRuns.finish(db, data.runId, 'completed', null, Date.now());
  post({ type: 'done', status: 'completed', error: null });
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  scanRuns.finish(db, data.runId, 'failed', message, Date.now());
  post({ type: 'done', status: 'failed', error: message });
} finally {
  db.close();
}
