import fs from 'node:fs';
import os from 'node:os';
import { isMainThread } from 'node:worker_threads';

/**
 * CPU priority of background work. The main thread answers requests, streams and the /ws pushes;
 * scans, tag reading and the tools that tag downloads (ffmpeg) only need to finish eventually. On a
 * home PC with two cores, eight downloads being tagged at once would otherwise take turns with the
 * main thread and delay every answer by tens of milliseconds. Background threads and the processes
 * they start therefore run at a higher nice value (TONEARM_BACKGROUND_NICE, default 10; 0 turns it
 * off). Only where the OS sets the priority of a single thread (Linux); elsewhere setting it from a
 * worker thread would lower the whole server, so nothing is changed there.
 */

const DEFAULT_NICE = 10;

/** The nice value for background work, 0–19 (from TONEARM_BACKGROUND_NICE; also read inside worker threads). */
export function backgroundNice(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TONEARM_BACKGROUND_NICE;
  if (raw === undefined || raw.trim() === '') return DEFAULT_NICE;
  const n = Number(raw);
  if (!Number.isInteger(n)) return DEFAULT_NICE;
  return Math.min(19, Math.max(0, n));
}

/** Whether this platform sets the priority of one thread with setpriority(…, 0, …). */
const perThread = process.platform === 'linux';

/** The nice value a worker thread should give itself: 0 where that would lower the whole process. */
export function workerNice(): number {
  return perThread ? backgroundNice() : 0;
}

/**
 * Lowers the calling worker thread (and every process it starts afterwards, which inherit it). Does
 * nothing on the main thread, outside Linux, or when switched off. Returns the nice value now in effect.
 */
export function lowerThisThread(): number {
  const nice = workerNice();
  if (isMainThread || nice === 0) return 0;
  try {
    // pid 0 is the calling task; on Linux that is this thread, not the process. Never raised.
    if (os.getPriority(0) < nice) os.setPriority(0, nice);
    return os.getPriority(0);
  } catch {
    return 0;
  }
}

/** Lowers a child process started for background work (a download tool). Safe on every platform. */
export function lowerChild(pid: number | undefined): void {
  const nice = backgroundNice();
  if (pid === undefined || nice === 0) return;
  try {
    if (os.getPriority(pid) < nice) os.setPriority(pid, nice);
  } catch {
    // The process may have ended already; its priority no longer matters.
  }
}

let poolStarted = false;

/**
 * Starts libuv's thread pool from the main thread before a worker lowers itself. The pool's threads
 * are created by whichever thread first queues work and inherit that thread's priority; the main
 * thread's file reads (streams, artwork) must not land on lowered threads.
 */
export function startThreadPoolHere(): void {
  if (poolStarted || !isMainThread) return;
  poolStarted = true;
  fs.stat(process.execPath, () => undefined);
}
