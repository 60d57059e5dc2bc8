import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../priority.js';
import { ImageCache } from './imageCache.js';
import { readBatchHere, type ScanRead, type ScanReadInput } from './scanRead.js';

/**
 * Worker side of scanReadThread.ts: reads a batch of files per message (tags, fingerprint, embedded
 * picture into the image cache) and answers with the results in the same order.
 */
export interface ScanReadWorkerData {
  imageDir: string;
  /** Batches finished so far, counted here (see ScanReadThread); set by the thread's owner. */
  finished?: Int32Array;
}
export type ScanReadRequest = { id: number; files: ScanReadInput[] };
export type ScanReadReply = { type: 'ready' } | { type: 'read'; id: number; results: ScanRead[] } | { type: 'failed'; id: number; error: string };

// Background work, like the scan worker that started it (priority.ts).
lowerThisThread();
const data = workerData as ScanReadWorkerData;
const images = new ImageCache(data.imageDir);
const post = (reply: ScanReadReply) => parentPort?.postMessage(reply);

/**
 * Batches are read one after the other, in the order they came: the scan applies results in that
 * order, so the oldest batch finishing first is what lets it go on writing (read side by side, all
 * the batches in hand would finish late together).
 */
let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (m: ScanReadRequest) => {
  queue = queue.then(() => readBatch(m));
});

function readBatch(m: ScanReadRequest): Promise<void> {
  return readBatchHere(m.files, images).then(
    (results) => {
      post({ type: 'read', id: m.id, results });
      if (data.finished) Atomics.add(data.finished, 0, 1);
    },
    (err: unknown) => {
      post({ type: 'failed', id: m.id, error: err instanceof Error ? err.message : String(err) });
      if (data.finished) Atomics.add(data.finished, 0, 1);
    },
  );
}
// The tag parser's modules are loaded before the thread says it is ready (not on its first batch).
void import('./metadataParser.js').then((m) => m.metadataFastPathActive()).finally(() => post({ type: 'ready' }));
