import type { LibraryScanService } from '../../server/library/scanService.js';

/**
 * Holds the scan a test just started: the run is marked running, but its worker thread gets the run
 * only once `release()` is called. Requests made meanwhile meet a scan that is running and cannot end
 * yet, whatever the machine's speed, so "a request while one is queued joins it" is tested as such.
 */
export function holdScans(scans: LibraryScanService): () => void {
  const worker = (scans as unknown as { worker: { send: (msg: unknown) => void } }).worker;
  const send = worker.send;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  worker.send = (msg: unknown) => void held.then(() => send.call(worker, msg));
  return () => {
    worker.send = send;
    release();
  };
}
