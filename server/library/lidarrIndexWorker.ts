import { parentPort, workerData } from 'node:worker_threads';
import { openWorkerConnection } from '../db/connection.js';
import { scanRuns } from '../db/libraryScanRuns.js';
import { LidarrClient } from '../integrations/lidarr/index.js';
import { indexLidarrLibrary, LidarrIndexStoppedError, type LidarrIndexCounts } from './lidarrIndexer.js';
import type { PathMapping } from './lidarrPaths.js';
import { lowerThisThread } from '../priority.js';

/**
 * Worker-thread entry: a long-lived Lidarr indexer on its own database connection. It runs one index
 * per `run` message (so a webhook's re-index pays no thread start), and ends on `stop` (at the next
 * check of a running index) or `exit` (when idle).
 */
export interface LidarrIndexWorkerData {
  dbPath: string;
}

export interface LidarrIndexRunRequest {
  type: 'run';
  runId: number;
  baseUrl: string;
  apiKey: string;
  pathMappings: PathMapping[];
  artistIds: number[] | null;
  force: boolean;
  timeoutMs?: number;
}

export type LidarrIndexWorkerCommand = LidarrIndexRunRequest | { type: 'stop' } | { type: 'exit' };

export type LidarrIndexWorkerMessage =
  | { type: 'progress'; runId: number; counts: LidarrIndexCounts }
  | { type: 'done'; runId: number; status: 'completed' | 'failed'; error: string | null; counts: LidarrIndexCounts | null };

const data = workerData as LidarrIndexWorkerData;
const post = (message: LidarrIndexWorkerMessage) => parentPort?.postMessage(message);
// Indexing is background work: requests and streams on the main thread go first (priority.ts).
lowerThisThread();
const db = openWorkerConnection(data.dbPath);
let stopRequested = false;
let running: Promise<void> = Promise.resolve();

parentPort?.on('message', (m: LidarrIndexWorkerCommand) => {
  if (m.type === 'run') running = running.then(() => run(m));
  else if (m.type === 'stop' || m.type === 'exit') {
    stopRequested = true;
    void running.then(() => {
      db.close();
      // HTTP keep-alive sockets would hold the thread open; nothing is left to do.
      process.exit(0);
    });
  }
});

async function run(request: LidarrIndexRunRequest): Promise<void> {
  if (stopRequested) return;
  const runId = request.runId;
  // A client per run: a circuit breaker opened by an earlier run does not carry over.
  const client = new LidarrClient({ baseUrl: request.baseUrl, apiKey: request.apiKey, timeoutMs: request.timeoutMs ?? 60_000, maxConcurrent: 6 });
  try {
    const result = await indexLidarrLibrary(db, client, {
      runId,
      pathMappings: request.pathMappings,
      artistIds: request.artistIds,
      force: request.force,
      onProgress: (counts) => {
        scanRuns.progress(db, runId, counts, []);
        post({ type: 'progress', runId, counts });
      },
      shouldStop: () => stopRequested,
    });
    scanRuns.progress(db, runId, result, result.errors);
    const { errors: _errors, ...counts } = result;
    // Every artist failing (Lidarr went away mid-run) fails the run; some failures are reported in errors.
    const allFailed = result.artistsFailed > 0 && result.artistsIndexed === 0;
    const error = allFailed ? (result.errors[0]?.reason ?? 'every artist failed') : null;
    scanRuns.finish(db, runId, allFailed ? 'failed' : 'completed', error, Date.now());
    post({ type: 'done', runId, status: allFailed ? 'failed' : 'completed', error, counts });
  } catch (err) {
    if (err instanceof LidarrIndexStoppedError) {
      post({ type: 'done', runId, status: 'failed', error: 'interrupted', counts: null });
    } else {
      const message = err instanceof Error ? err.message : String(err);
      scanRuns.finish(db, runId, 'failed', message, Date.now());
      post({ type: 'done', runId, status: 'failed', error: message, counts: null });
    }
  }
}
