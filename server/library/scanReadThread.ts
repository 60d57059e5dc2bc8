import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from './runWorker.js';
import type { ScanRead, ScanReadInput } from './scanRead.js';
import type { ScanReadReply, ScanReadRequest, ScanReadWorkerData } from './scanReadWorker.js';

/**
 * Batches a read thread holds at once (READ_BATCH files each, scanner.ts). Enough that it never runs
 * dry while the scan thread writes a batch of 250 files (npm run bench:scan: 4 left it idle a third
 * of the time, 16 keeps it reading); the results waiting are plain tag objects, a few MB at most.
 */
export const READ_THREAD_DEPTH = 16;

/** Where a scan hands batches of reads to another thread (see ScanOptions.readThread). */
export interface ScanReadOffload {
  /** Takes the batch, or returns null when it cannot now (not started yet, busy, failed). */
  take(files: ScanReadInput[]): Promise<ScanRead[]> | null;
  /**
   * The thread runs and declines only because it holds as many batches as it takes: the scan does
   * better to write what was read meanwhile than to read the batch itself on its own thread.
   */
  readonly busy?: boolean;
}

/**
 * A second thread for a scan's reads (tag parse, fingerprint, embedded picture), so the scan worker's
 * own thread spends its time on the database writes: on two cores the two run side by side (issue
 * 25). Owned by the scan worker, started on first use (a scan with many files to read; a small scan
 * never needs it), ended with it. While the thread starts, take() declines and the scan reads the batch itself; with
 * its depth of batches in hand it is `busy` and the scan writes meanwhile; a thread that fails
 * declines from then on.
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

  constructor(
    private readonly data: ScanReadWorkerData,
    private readonly spawn: (data: ScanReadWorkerData) => Worker = spawnScanReadWorker,
    private readonly depth = READ_THREAD_DEPTH,
  ) {}

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

  get busy(): boolean {
    return this.worker !== null && this.ready && this.sent - Atomics.load(this.finished!, 0) >= this.depth;
  }

  take(files: ScanReadInput[]): Promise<ScanRead[]> | null {
    const w = this.worker;
    if (!w || this.busy || !this.ready) return null;
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
 * TONEARM_SCAN_READ_THREAD (default on; `false` turns it off): a large scan reads on a second thread
 * while a core is idle beside it (SpareCore). npm run bench:scan, quiet 2-core machine, 10,000 files:
 * with it the first scan runs at about 4,000 files/s and a forced re-read in about 1.5 s, against
 * 3,400 files/s and 2.3 s without. It is a second V8 instance while the scan worker lives (a
 * 20,000-file scan peaked at 286 MB with it, within npm run bench:memory's 300).
 */
export function readThreadEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(0|false|no|off)$/i.test(env.TONEARM_SCAN_READ_THREAD?.trim() ?? '');
}

/** The machine's processor time over all cores, in ms, as the kernel counts it. */
export interface CpuTimes {
  idle: number;
  total: number;
}

export function cpuTimes(cpus: os.CpuInfo[] = os.cpus()): CpuTimes {
  let idle = 0;
  let total = 0;
  for (const { times } of cpus) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

/** Cores idle on average between two readings; 0 when no time was counted between them. */
export function idleCores(from: CpuTimes, to: CpuTimes, cores: number): number {
  const total = to.total - from.total;
  return total > 0 ? ((to.idle - from.idle) / total) * cores : 0;
}

/** Cores this process kept busy on average: `ownMs` of its processor time over `totalMs` counted on all cores. */
export function ownCores(ownMs: number, totalMs: number, cores: number): number {
  return totalMs > 0 ? (ownMs / totalMs) * cores : 0;
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Where a SpareCore's first window begins: the machine's and this process's processor time, and when. */
export interface SpareCoreStart {
  times: CpuTimes;
  ownMs: number;
  /** Date.now() then (threads do not share performance.now()'s origin). */
  wallMs: number;
}

/** The readings a SpareCore in another thread (a worker about to start) can begin its window from. */
export function spareCoreStartHere(): SpareCoreStart {
  return { times: cpuTimes(), ownMs: processCpuMs(), wallMs: Date.now() };
}

/** The window a SpareCore looks at before it answers (the kernel counts processor time in 10 ms ticks). */
export const SPARE_CORE_WINDOW_MS = 100;
/**
 * How much of a core must have been idle in that window. The read thread runs at a background
 * priority (priority.ts), so it takes only processor time nobody else wants: the check keeps it from
 * starting (and holding its memory) where there is none, not from sharing a core with other work.
 */
export const SPARE_CORE_IDLE = 0.35;

/**
 * Whether a core sits idle beside a scan, from the machine's idle processor time since the last scan
 * ended (reset()) or the worker started, or since the last answer: a read thread pays only where it
 * gets processor time of its own.
 * Where every core is busy (other work, the tests, a one-core machine) it would only add its start,
 * its own compiled code and garbage collection to the same processor time. Before, the 1-minute load
 * average decided, which counts the scan itself and so stayed above the threshold for a minute after
 * any scan on two cores.
 * This process's own time beyond one core (the scan's) counts as spare too: right after the scan
 * worker starts, its start, the compiler's threads and the main thread handling the request took
 * most of the other core (npm run bench:scan: 0.15-0.34 cores idle in the first window, so the read
 * thread started only 0.8 s into a 2.7 s scan), and that is work of this process that ends, not
 * another program's load.
 */
export class SpareCore {
  /** Where the current window began: the readings then, and when (this thread's performance.now()). */
  private since: { times: CpuTimes; ownMs: number; at: number };

  constructor(
    private readonly read: () => CpuTimes = () => cpuTimes(),
    private readonly now: () => number = () => performance.now(),
    private readonly cores: number = os.availableParallelism(),
    /** Processor time this process has used (all its threads), in ms. */
    private readonly own: () => number = processCpuMs,
  ) {
    this.since = this.readings();
  }

  private readings() {
    return { times: this.read(), ownMs: this.own(), at: this.now() };
  }

  reset(): void {
    this.since = this.readings();
  }

  /**
   * Begins the window from readings taken earlier (the main thread's, as it started this worker), so
   * the first answer needs no window of its own once the worker runs: its start counts, as this
   * process's own time.
   */
  beginAt(start: SpareCoreStart, wallNow: number = Date.now()): void {
    this.since = { times: start.times, ownMs: start.ownMs, at: this.now() - Math.max(0, wallNow - start.wallMs) };
  }

  /** Null while the window is shorter than SPARE_CORE_WINDOW_MS; else the answer, and a new window begins. */
  check(): boolean | null {
    if (this.cores < 2) return false;
    if (this.now() - this.since.at < SPARE_CORE_WINDOW_MS) return null;
    const from = this.since;
    const to = (this.since = this.readings());
    const own = ownCores(to.ownMs - from.ownMs, to.times.total - from.times.total, this.cores);
    return idleCores(from.times, to.times, this.cores) + Math.max(0, own - 1) >= SPARE_CORE_IDLE;
  }
}

export function spawnScanReadWorker(data: ScanReadWorkerData): Worker {
  return spawnModuleWorker(path.dirname(fileURLToPath(import.meta.url)), 'scanReadWorker', data);
}
