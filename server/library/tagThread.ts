import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from './runWorker.js';
import type { FileTags } from './tags.js';

/**
 * Reads a file's tags and stream facts (music-metadata) on a worker thread. Parsing an MP3 walks its
 * frames in JavaScript; done on the main thread for every verified download it delays requests and
 * streams by tens of milliseconds. One thread serves every caller; it does not keep the process
 * alive while nothing is asked, and a thread that dies fails only the reads in flight.
 */

type Reply = { id: number; tags?: FileTags; error?: string };

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, { resolve: (t: FileTags) => void; reject: (e: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  const w = spawnModuleWorker(path.dirname(fileURLToPath(import.meta.url)), 'tagReaderWorker', null);
  w.on('message', (m: Reply) => {
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    if (!waiting) return;
    if (m.tags) waiting.resolve(m.tags);
    else waiting.reject(new Error(m.error ?? 'tag reader failed'));
  });
  const fail = (why: string) => {
    if (worker === w) worker = null;
    for (const [id, waiting] of pending) {
      pending.delete(id);
      waiting.reject(new Error(why));
    }
  };
  w.on('error', (err) => fail(`tag reader thread failed: ${err.message}`));
  w.on('exit', () => fail('tag reader thread ended'));
  worker = w;
  return w;
}

/** readFileTags(file, dirname(file)) off the main thread (without the embedded picture). */
export function readTagsOffThread(file: string): Promise<FileTags> {
  const id = nextId++;
  const w = thread();
  w.ref();
  return new Promise<FileTags>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.postMessage({ id, file });
  });
}

/** Ends the thread (tests, shutdown); the next read starts a new one. */
export async function stopTagThread(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}
