import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from './runWorker.js';
import type { ScanRead, ScanReadInput } from './scanRead.js';
import type { ScanReadReply, ScanReadRequest, ScanReadWorkerData } from './scanReadWorker.js';

/** Batches a read thread holds at once; beyond it the scan reads on its own thread meanwhile. */
const DEPTH = 4;

/** Where a scan hands batches of reads to another thread (see ScanOptions.readThread). */
export interface ScanReadOffload {
  /** Takes the batch, or returns null when it cannot now (not started yet, busy, failed). */
  take(files: ScanReadInput[]): Promise<ScanRead[]> | null;
}

/**
 * A second thread for a scan's reads (tag parse, fingerprint, embedded picture), so the scan worker's
 * own thread spends its time on the database writes: on two cores the two run side by side (issue
 * 25). Owned by the scan worker, started on first use (a scan with many files to read; a small scan
 * never needs it), ended with it. While the thread starts, or when it has DEPTH batches in hand,
 * take() declines and the scan reads the batch itself; a thread that fails declines from then on.
 */
export class ScanReadThread implements ScanReadOffload {
  private worker: Worker | null = null;
  private ready = false;
  private failed = false;
  private nextId = 1;
  private sent = 0;
  /**
   * Batches the thread has finished, counted by the thread itself: the scan's thread runs long
   * stretches of synchronous writes without taking messages, so the replies it has not taken yet
   * must not make the read thread look busy.
   */
  private finished: Int32Array | null = null;
  private readonly waiting = new Map<number, { resolve: (r: ScanRead[]) => void; reject: (e: Error) => void }>();

  constructor(private readonly data: ScanReadWorkerData, private readonly spawn: (data: ScanReadWorkerData) => Worker = spawnScanReadWorker) {}

  /** Whether start() was called (and the thread runs, or failed). */
  get started(): boolean {
    return this.worker !== null || this.failed;
  }

  /** Starts the thread if it is not running (it takes batches once it has loaded its modules). */
  start(): void {
    if (this.worker || this.failed) return;
    let w: Worker;
    const finished = new Int32Array(new SharedArrayBuffer(4));
    try {
      w = this.spawn({ ...this.data, finished });
    } catch {
      this.failed = true;
      return;
    }
    this.worker = w;
    this.finished = finished;
    this.sent = 0;
    w.on('message', (m: ScanReadReply) => {
      if (m.type === 'ready') {
        this.ready = true;
        return;
      }
      const waiting = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.type === 'read') waiting?.resolve(m.results);
      else waiting?.reject(new Error(m.error));
    });
    const fail = (why: string) => {
      this.failed = true;
      this.ready = false;
      if (this.worker === w) this.worker = null;
      for (const [id, waiting] of this.waiting) {
        this.waiting.delete(id);
        waiting.reject(new Error(why));
      }
    };
    w.on('error', (err) => fail(`scan read thread failed: ${err.message}`));
    w.on('exit', () => fail('scan read thread ended'));
  }

  take(files: ScanReadInput[]): Promise<ScanRead[]> | null {
    const w = this.worker;
    if (!w || !this.ready || this.sent - Atomics.load(this.finished!, 0) >= DEPTH) return null;
    const id = this.nextId++;
    this.sent++;
    return new Promise<ScanRead[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.postMessage({ id, files } satisfies ScanReadRequest);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.ready = false;
    if (w) await w.terminate();
  }
}

/**
 * TONEARM_SCAN_READ_THREAD (default off): large scans may read on a second thread. Off by default:
 * the thread is a second V8 instance with its own copy of the parser (about 40 MB resident, and a
 * 20,000-file scan peaked 78 MB higher with it), and under tsx its start costs about half a second
 * of CPU; it shortens a scan only where a core is idle (issue 25).
 */
export function readThreadEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes|on)$/i.test(env.TONEARM_SCAN_READ_THREAD?.trim() ?? '');
}

/**
 * Whether a core is free for a second scan thread: the load (1-minute average of runnable threads)
 * leaves one. Where every core is busy already (other work, a small machine), the read thread would
 * only add its start-up, its own compiled code and garbage collection to the same CPU time.
 */
export function coreToSpare(): boolean {
  return os.loadavg()[0]! <= os.availableParallelism() - 1;
}

export function spawnScanReadWorker(data: ScanReadWorkerData): Worker {
  return spawnModuleWorker(path.dirname(fileURLToPath(import.meta.url)), 'scanReadWorker', data);
}
