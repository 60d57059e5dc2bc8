import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type NodeID3 from 'node-id3';
import { RUN_WORKER_IDLE_MS, spawnModuleWorker } from './runWorker.js';
import type { FileTags } from './tags.js';
import type { TagThreadAsk } from './tagReaderWorker.js';

/**
 * Reads a file's tags and stream facts (music-metadata), and writes an MP3's ID3 frames (node-id3),
 * on a worker thread. Parsing an MP3 walks its frames in JavaScript and writing its tag rewrites the
 * file; done on the main thread for every verified download it delays requests and streams by tens
 * of milliseconds. One thread serves every caller; it does not keep the process alive while nothing
 * is asked, it ends after RUN_WORKER_IDLE_MS without a request (its heap and compiled modules are
 * tens of MB an idle server would keep for good), and a thread that dies fails only the requests in
 * flight.
 */

type Reply = { id: number; tags?: FileTags; ok?: true; error?: string; code?: string };

type Waiting = { resolve: (r: Reply) => void; reject: (e: Error) => void };

let worker: Worker | null = null;
let nextId = 1;
/** The requests in flight, per thread: a thread ending fails only its own (not those of its successor). */
const pendingOf = new WeakMap<Worker, Map<number, Waiting>>();
let idleMs = RUN_WORKER_IDLE_MS;
let idleTimer: NodeJS.Timeout | null = null;

/** How long an idle thread is kept (tests shorten it). */
export function setTagThreadIdleMs(ms: number): void {
  idleMs = ms;
}

/** Whether a tag thread is running. */
export function tagThreadRunning(): boolean {
  return worker !== null;
}

function endWhenIdle(w: Worker): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (worker !== w || (pendingOf.get(w)?.size ?? 0) > 0) return;
    worker = null;
    void w.terminate();
  }, idleMs);
  idleTimer.unref();
}

function thread(): Worker {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (worker) return worker;
  const w = spawnModuleWorker(path.dirname(fileURLToPath(import.meta.url)), 'tagReaderWorker', null);
  const pending = new Map<number, Waiting>();
  pendingOf.set(w, pending);
  w.on('message', (m: Reply) => {
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (pending.size === 0) {
      w.unref();
      endWhenIdle(w);
    }
    if (!waiting) return;
    if (m.error === undefined) waiting.resolve(m);
    else waiting.reject(Object.assign(new Error(m.error), m.code ? { code: m.code } : {}));
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

function ask(request: TagThreadAsk): Promise<Reply> {
  const id = nextId++;
  const w = thread();
  w.ref();
  return new Promise<Reply>((resolve, reject) => {
    pendingOf.get(w)!.set(id, { resolve, reject });
    w.postMessage({ ...request, id });
  });
}

/** readFileTags(file, dirname(file)) off the main thread (without the embedded picture). */
export async function readTagsOffThread(file: string): Promise<FileTags> {
  const r = await ask({ op: 'read', file });
  if (!r.tags) throw new Error('tag reader failed');
  return r.tags;
}

/**
 * Merges ID3 frames into an MP3's tag off the main thread. Rejects with the write's error (its
 * `code`, such as ENOSPC, kept).
 */
export async function writeId3OffThread(file: string, frames: NodeID3.Tags): Promise<void> {
  await ask({ op: 'writeId3', file, frames });
}

/** Ends the thread (tests, shutdown); the next read starts a new one. */
export async function stopTagThread(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}
