import { parentPort, workerData } from 'node:worker_threads';
import { openWorkerConnection } from '../db/connection.js';
import { scanRuns } from '../db/libraryScanRuns.js';
import { LidarrClient } from '../integrations/lidarr/index.js';
import { indexLidarrLibrary, LidarrIndexStoppedError, type LidarrIndexCounts } from './lidarrIndexer.js';
import type { PathMapping } from './lidarrPaths.js';

/** Worker-thread entry: one Lidarr index run on the worker's own database connection and client. */
export interface LidarrIndexWorkerData {
  dbPath: string;
  runId: number;
  baseUrl: string;
  apiKey: string;
  pathMappings: PathMapping[];
  artistIds: number[] | null;
  force: boolean;
  timeoutMs?: number;
}

export type LidarrIndexWorkerMessage =
  | { type: 'progress'; counts: LidarrIndexCounts }
  | { type: 'done'; status: 'completed' | 'failed'; error: string | null; counts: LidarrIndexCounts | null };

const data = workerData as LidarrIndexWorkerData;
const post = (message: LidarrIndexWorkerMessage) => parentPort?.postMessage(message);
const db = openWorkerConnection(data.dbPath);
let stopRequested = false;
parentPort?.on('message', (m: { type?: string }) => {
  if (m.type === 'stop') stopRequested = true;
});
const client = new LidarrClient({ baseUrl: data.baseUrl, apiKey: data.apiKey, timeoutMs: data.timeoutMs ?? 60_000, maxConcurrent: 6 });
try {
  const result = await indexLidarrLibrary(db, client, {
    runId: data.runId,
    pathMappings: data.pathMappings,
    artistIds: data.artistIds,
    force: data.force,
    onProgress: (counts) => {
      scanRuns.progress(db, data.runId, counts, []);
      post({ type: 'progress', counts });
    },
    shouldStop: () => stopRequested,
  });
  scanRuns.progress(db, data.runId, result, result.errors);
  const { errors: _errors, ...counts } = result;
  // Every artist failing (Lidarr went away mid-run) fails the run; some failures are reported in errors.
  const allFailed = result.artistsFailed > 0 && result.artistsIndexed === 0;
  const error = allFailed ? (result.errors[0]?.reason ?? 'every artist failed') : null;
  scanRuns.finish(db, data.runId, allFailed ? 'failed' : 'completed', error, Date.now());
  post({ type: 'done', status: allFailed ? 'failed' : 'completed', error, counts });
} catch (err) {
  if (err instanceof LidarrIndexStoppedError) {
    post({ type: 'done', status: 'failed', error: 'interrupted', counts: null });
  } else {
    const message = err instanceof Error ? err.message : String(err);
    scanRuns.finish(db, data.runId, 'failed', message, Date.now());
    post({ type: 'done', status: 'failed', error: message, counts: null });
  }
} finally {
  db.close();
  parentPort?.removeAllListeners('message');
}
