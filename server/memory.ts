import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * A full garbage collection of this thread's heap, for the moment the server goes idle after a big
 * job (a scan's worker ended). V8 keeps a heap grown during busy minutes (32 MB of young generation,
 * old garbage) until it happens to collect with memory reduction, which on an idle server may be
 * never. Node exposes `gc` only with --expose-gc; without it, the flag is set for one new context
 * to take its `gc` (as Jest does), then unset. Returns false when no collector could be had.
 */
export function collectGarbage(): boolean {
  if (gc === undefined) gc = findGc();
  if (!gc) return false;
  gc();
  return true;
}

function findGc(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    v8.setFlagsFromString('--expose-gc');
    const found = vm.runInNewContext('gc') as unknown;
    return typeof found === 'function' ? (found as () => void) : null;
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Decides when a server that was busy has gone quiet: fed the event loop's utilization every few
 * seconds, it answers true once per busy spell, after `quietMs` without a busy interval. A busy
 * spell (a burst of requests, a big page, a scan's bookkeeping) grows the heap, and V8 keeps the
 * grown young generation and old-space pages of an idle process for as long as it stays idle.
 */
export class QuietAfterWork {
  private busySince: number | null = null;
  private lastBusy = 0;

  constructor(private readonly options: { quietMs: number; busyUtilization: number }) {}

  /** `utilization` of the event loop over the interval that ends at `now` (ms). */
  tick(utilization: number, now: number): boolean {
    if (utilization >= this.options.busyUtilization) {
      this.busySince ??= now;
      this.lastBusy = now;
      return false;
    }
    if (this.busySince === null || now - this.lastBusy < this.options.quietMs) return false;
    this.busySince = null;
    return true;
  }
}

/**
 * Gives memory back once the server has gone quiet after work (QuietAfterWork over the main
 * thread's event-loop utilization, looked at every `checkMs`): `release` (a database connection's
 * page cache), then one full collection of this thread's heap. The timer does not keep the process
 * alive. Returns a stop function.
 */
export function reclaimWhenQuiet(release: () => void, options: { checkMs?: number; quietMs?: number; busyUtilization?: number } = {}): () => void {
  const quiet = new QuietAfterWork({ quietMs: options.quietMs ?? 30_000, busyUtilization: options.busyUtilization ?? 0.02 });
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const interval = performance.eventLoopUtilization(now, last);
    last = now;
    if (!quiet.tick(interval.utilization, performance.now())) return;
    release();
    collectGarbage();
  }, options.checkMs ?? 5_000);
  timer.unref();
  return () => clearInterval(timer);
}
