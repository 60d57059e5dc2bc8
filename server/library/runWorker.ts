import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { collectGarbage } from '../memory.js';
import { startThreadPoolHere } from '../priority.js';
import { prepareWorkerBundles, workerBundle } from './workerBundle.js';

/**
 * The young generation of a module worker, in MB. V8 lets it grow to 3 × 16 MB per thread on a
 * 64-bit machine, which a scan fills with short-lived tag objects and keeps while the thread lives;
 * 8 MB holds a batch's garbage just as well (more, cheaper scavenges), and keeps the peak of a
 * 20,000-file scan down (bench/memory.ts).
 */
export const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * Starts `<dir>/<name>.js` (compiled) or, run from the sources (npm start, vitest), `<dir>/<name>.ts`
 * bundled into one plain module (workerBundle.ts); where no bundle can be made, the `.ts` entry with
 * tsx registered inside the worker first, since loader flags do not reach worker threads.
 */
export function spawnModuleWorker(dir: string, name: string, workerData: unknown): Worker {
  // Background workers lower their priority (priority.ts); the thread pool must not inherit it.
  startThreadPoolHere();
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  const js = path.join(dir, `${name}.js`);
  if (fs.existsSync(js)) return plainWorker(js, { workerData, resourceLimits });
  const bundle = workerBundle(path.join(dir, `${name}.ts`));
  if (bundle) return plainWorker(bundle, { workerData, resourceLimits });
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = pathToFileURL(path.join(dir, `${name}.ts`)).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData, resourceLimits });
}

/**
 * The process's node flags without tsx's: a worker inherits them, and `--import tsx` (npm start runs
 * the server's sources so) registered tsx in every worker again, with module hooks of its own, though
 * a compiled file or a bundle is plain JavaScript. Measured here: a worker importing music-metadata
 * was ready after 115 ms and 175 ms of processor time with them, 70 ms and 80 ms without.
 */
export function withoutTsx(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    const [name, inline] = flag.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!['--import', '--loader', '--experimental-loader', '--require', '-r'].includes(name)) {
      out.push(flag);
      continue;
    }
    const value = inline ?? execArgv[i + 1];
    if (inline === undefined) i++;
    if (value !== undefined && isTsx(value)) continue;
    out.push(flag);
    if (inline === undefined && value !== undefined) out.push(value);
  }
  return out;
}

/** How plain-JavaScript workers get their flags, once known for the process's flags (see plainWorker). */
let plainFlags: { of: string; options: { execArgv?: string[] } } | null = null;

/**
 * Starts a worker on a plain JavaScript file with the process's flags minus tsx's (withoutTsx).
 * Flags given to a worker explicitly must be ones a worker accepts: V8's (npm start's
 * --max-semi-space-size, say) apply to every thread anyway and are refused, so the ones Node names
 * in its refusal are left out from then on; should it refuse again, workers inherit the flags.
 */
export function plainWorker(file: string, options: WorkerOptions): Worker {
  const of = process.execArgv.join('\0');
  if (plainFlags?.of === of) return new Worker(file, { ...options, ...plainFlags.options });
  let execArgv = withoutTsx(process.execArgv);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const worker = new Worker(file, { ...options, execArgv });
      plainFlags = { of, options: { execArgv } };
      return worker;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
      // "Initiated Worker with invalid execArgv flags: --a=1, --b"
      const refused = new Set(String((err as Error).message).replace(/^[^:]*:\s*/, '').split(/,\s*/));
      execArgv = execArgv.filter((flag) => !refused.has(flag));
    }
  }
  plainFlags = { of, options: {} };
  return new Worker(file, options);
}

const isTsx = (specifier: string) => /^tsx(\/|$)/.test(specifier) || /[\\/]node_modules[\\/]tsx[\\/]/.test(specifier);

/** The module workers of server/library, each started by spawnModuleWorker(this folder, name). */
export const MODULE_WORKERS = ['scanWorker', 'scanReadWorker', 'tagReaderWorker', 'lidarrIndexWorker'] as const;

/**
 * Run from the sources, makes the bundles of the module workers that are not current (workerBundle.ts),
 * so their first starts find them: the server awaits it before it starts its areas (a scan on start).
 * Costs a stat of each source file when they are current; never fails.
 */
export async function prepareModuleWorkers(): Promise<void> {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const entries = MODULE_WORKERS.filter((name) => !fs.existsSync(path.join(dir, `${name}.js`))).map((name) => path.join(dir, `${name}.ts`));
  if (entries.length > 0) await prepareWorkerBundles(entries);
}

/**
 * How long an idle run worker is kept for the next job. Short: a thread holds its own V8 heap, its
 * compiled modules and a database connection (tens of MB), while starting one again costs well under
 * the watcher's quiet time; a burst of jobs (a webhook per imported album) still finds it running.
 */
export const RUN_WORKER_IDLE_MS = 60_000;

export interface RunWorkerOptions<Message> {
  spawn: () => Worker;
  /** An idle worker ends after this long. */
  idleMs: number;
  onMessage: (message: Message) => void;
  /** The thread ended (or could not start); `failure` holds why when it crashed. Not called after stop() or an idle exit. */
  onExit: (failure: string | null) => void;
  onError?: (err: Error) => void;
  /**
   * The thread ended after its idle time: give back what the busy spell left behind (a database
   * connection's cache). A full garbage collection of this thread follows.
   */
  onIdleExit?: () => void;
}

/**
 * A long-lived worker thread that runs one job at a time: started on first use and kept for the
 * next, so a small job costs only its work. While idle it does not keep the process alive, and it
 * ends after a while without jobs, and then this thread's heap is collected, so an idle server gives
 * back what the work grew. Worker protocol: `{type:'exit'}` ends it when idle,
 * `{type:'stop'}` asks it to stop after its current batch.
 */
export class RunWorker<Command extends { type: string }, Message> {
  private worker: Worker | null = null;
  private failure: string | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The thread asked to exit because it was idle (no longer `worker`). */
  private idleExit: Worker | null = null;
  private stopping = false;

  constructor(private readonly options: RunWorkerOptions<Message>) {}

  get running(): boolean {
    return this.worker !== null;
  }

  /** The current thread's id, or null when none runs (a new thread gets a new id). */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }

  /**
   * Sends the command to the thread, starting one if none runs. A thread that cannot start (Node
   * refuses its options, the machine is out of threads) is reported as one that ended at once, so
   * the job waiting on the command fails instead of waiting for a thread that is not there.
   */
  send(command: Command): void {
    let worker: Worker;
    try {
      worker = this.thread();
    } catch (err) {
      this.options.onExit(`could not start: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    worker.postMessage(command);
  }

  /** No job is running: let the process exit, and end the thread after the idle time. */
  idle(): void {
    const worker = this.worker;
    if (!worker || this.idleTimer) return;
    worker.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker !== worker) return;
      // Retired: a job sent from now on starts a new thread instead of reaching one that is ending.
      this.worker = null;
      this.idleExit = worker;
      worker.postMessage({ type: 'exit' });
    }, this.options.idleMs);
    this.idleTimer.unref();
  }

  /** Asks the thread to stop after its current batch; terminates it if it does not within 2 s. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' });
    const timer = setTimeout(() => void worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }

  private thread(): Worker {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.worker) {
      this.worker.ref();
      return this.worker;
    }
    const worker = this.options.spawn();
    this.worker = worker;
    this.failure = null;
    worker.on('message', (message: Message) => this.options.onMessage(message));
    worker.on('error', (err) => {
      if (this.worker === worker) this.failure = err.message;
      this.options.onError?.(err);
    });
    worker.on('exit', () => {
      if (this.idleExit === worker) {
        this.idleExit = null;
        if (this.stopping) return;
        this.options.onIdleExit?.();
        collectGarbage();
        return;
      }
      if (this.worker === worker) this.worker = null;
      if (!this.stopping) this.options.onExit(this.failure);
    });
    return worker;
  }
}
