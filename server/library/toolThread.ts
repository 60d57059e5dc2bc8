import { Worker } from 'node:worker_threads';
import { backgroundNice, startThreadPoolHere, workerNice } from '../priority.js';

/**
 * Runs short command-line tools (ffmpeg tagging a download) from a worker thread. Starting a child
 * process forks this whole server; the fork of a process of a few hundred MB holds the calling
 * thread for tens of milliseconds (more on a busy machine), which on the main thread delays every
 * request and stream. From a worker thread only that thread waits.
 */

export interface ToolResult {
  /** Exit code; null when the tool was killed or could not start. */
  code: number | null;
  /** The last 4,000 characters the tool wrote to stderr. */
  stderr: string;
  /** Why it could not start (ENOENT, EACCES...), if it could not. */
  startError: string | null;
}

const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
// Background work (priority.ts): this thread, and the tools it starts, give way to the main thread.
const os = require('node:os');
if (workerData.nice > 0) {
  try { if (os.getPriority(0) < workerData.nice) os.setPriority(0, workerData.nice); } catch {}
}
const running = new Map();
parentPort.on('message', (m) => {
  if (m.kill !== undefined) {
    const child = running.get(m.kill);
    if (child) child.kill('SIGKILL');
    return;
  }
  let stderr = '';
  let startError = null;
  let child;
  try {
    child = spawn(m.cmd, m.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    parentPort.postMessage({ id: m.id, code: null, stderr: '', startError: String(err && err.message || err) });
    return;
  }
  // Where the thread could not be lowered (outside Linux), the tool itself is.
  if (workerData.childNice > 0 && child.pid !== undefined) {
    try { if (os.getPriority(child.pid) < workerData.childNice) os.setPriority(child.pid, workerData.childNice); } catch {}
  }
  running.set(m.id, child);
  child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  child.on('error', (err) => (startError = String(err && err.message || err)));
  child.on('close', (code) => {
    running.delete(m.id);
    parentPort.postMessage({ id: m.id, code: startError ? null : code, stderr, startError });
  });
});
`;

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, (r: ToolResult) => void>();

function thread(): Worker {
  if (worker) return worker;
  startThreadPoolHere();
  const w = new Worker(SCRIPT, { eval: true, workerData: { nice: workerNice(), childNice: backgroundNice() } });
  // A server's listener keeps the process alive; this thread must not.
  w.unref();
  w.on('message', (m: ToolResult & { id: number }) => {
    const done = pending.get(m.id);
    pending.delete(m.id);
    done?.({ code: m.code, stderr: m.stderr, startError: m.startError });
  });
  const fail = (why: string) => {
    if (worker === w) worker = null;
    for (const [id, done] of pending) {
      pending.delete(id);
      done({ code: null, stderr: '', startError: why });
    }
  };
  w.on('error', (err) => fail(`tool thread failed: ${err.message}`));
  w.on('exit', () => fail('tool thread ended'));
  worker = w;
  return w;
}

/** Runs `cmd args` to completion off the main thread; an abort kills it and rejects with an AbortError. */
export function runTool(cmd: string, args: string[], signal?: AbortSignal): Promise<ToolResult> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const id = nextId++;
  const w = thread();
  return new Promise<ToolResult>((resolve, reject) => {
    const onAbort = () => {
      pending.delete(id);
      w.postMessage({ kill: id });
      reject(abortError(signal!));
    };
    pending.set(id, (r) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    w.postMessage({ id, cmd, args });
  });
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}
