import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { readFileTags } from './tags.js';
import { lowerThisThread } from '../priority.js';

/**
 * Worker side of tagThread.ts: reads one file's tags per message. Embedded pictures are dropped, so
 * only the facts cross back to the main thread.
 */
// Tag reading is background work: requests and streams on the main thread go first (priority.ts).
lowerThisThread();

parentPort?.on('message', (m: { id: number; file: string }) => {
  void readFileTags(m.file, path.dirname(m.file)).then(
    (tags) => parentPort?.postMessage({ id: m.id, tags: { ...tags, picture: null } }),
    (err: unknown) => parentPort?.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
