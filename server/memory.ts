import v8 from 'node:v8';
import vm from 'node:vm';
import sharp from 'sharp';

/**
 * libvips keeps the operations it ran (up to 50 MB, 100 of them) in case the same one comes again;
 * each artwork resize here runs once and is stored on disk, so the cache only holds memory.
 */
export function limitImageMemory(): void {
  sharp.cache(false);
}

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
