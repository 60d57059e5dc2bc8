import type { KnownMediaFile } from '../db/libraryWrites.js';
import type { ImageCache } from './imageCache.js';
import { readBatchHere, type ScanRead, type ScanReadInput } from './scanRead.js';
import type { ScanReadOffload } from './scanReadThread.js';

/** Files per batch of reads (handed to the read thread as one message). */
export const READ_BATCH = 32;
/**
 * Batches of reads under way with a read thread: its depth (READ_THREAD_DEPTH) and half as many
 * again that the scan thread reads or waits to hand over meanwhile.
 */
export const READS_AHEAD_WITH_THREAD = 24;
/** Files to read in one scan from which the read thread is worth starting (it costs a thread's start). */
export const READ_THREAD_FROM_FILES = 256;

/** A file a scan reads, with what the scan knows of it for writing the result. */
export interface QueuedRead {
  root: string;
  file: { path: string; size: number; mtimeMs: number };
  known: KnownMediaFile | undefined;
  folderImage: string | null;
}

export interface ScanReadsOptions {
  /** Another thread that takes batches when it can (see ScanOptions.readThread). */
  readThread?: ScanReadOffload & { start?: () => void };
  images: ImageCache;
  /** Batches that may be under way ahead of the one being applied. */
  readsAhead: number;
  /** Files queued from which the read thread is offered to start (and again with every batch after). */
  offerThreadFrom: number;
  /** Applies one batch's results (queues their writes), in the order the files were queued. */
  apply: (batch: QueuedRead[], reads: ScanRead[]) => Promise<void>;
}

/**
 * The reading side of a scan. Files are queued in batches of READ_BATCH; a batch goes to the read
 * thread when it takes it and is otherwise read on this thread, while the writes of earlier batches
 * go on here; each batch's results are applied in the order the files were found, and at most
 * `readsAhead` batches are under way.
 */
export class ScanReads {
  private toRead: QueuedRead[] = [];
  private queued = 0;
  private applied: Promise<void> = Promise.resolve();
  private readonly underWay: Promise<void>[] = [];

  constructor(private readonly options: ScanReadsOptions) {}

  /** Queues a file; a full batch is dispatched (which may wait for earlier batches). */
  async add(read: QueuedRead): Promise<void> {
    this.toRead.push(read);
    if (++this.queued >= this.options.offerThreadFrom && this.queued % READ_BATCH === 0) this.options.readThread?.start?.();
    if (this.toRead.length >= READ_BATCH) await this.dispatch();
  }

  /** Dispatches what is queued and waits until every batch is applied. */
  async drain(): Promise<void> {
    await this.dispatch();
    this.underWay.length = 0;
    await this.applied;
  }

  private async dispatch(): Promise<void> {
    if (this.toRead.length === 0) return;
    const { readThread, images, readsAhead, apply } = this.options;
    const batch = this.toRead;
    this.toRead = [];
    const inputs: ScanReadInput[] = batch.map((q) => ({ path: q.file.path, root: q.root, size: q.file.size }));
    let offloaded = readThread?.take(inputs) ?? null;
    // The read thread holds its fill: the oldest batch under way is applied (its writes queued and
    // flushed) meanwhile, then the batch is offered again; this thread reads only what the read
    // thread cannot take (not started yet, failed), so the two threads split reads and writes.
    while (!offloaded && readThread?.busy && this.underWay.length > 0) {
      await this.underWay.shift();
      offloaded = readThread.take(inputs);
    }
    const results = offloaded ? offloaded.catch(() => readBatchHere(inputs, images)) : readBatchHere(inputs, images);
    const done = (this.applied = this.applied.then(async () => apply(batch, await results)));
    // Awaited below or in drain; a failure (a stop) must not also surface as unhandled.
    done.catch(() => undefined);
    this.underWay.push(done);
    // Read here, the batch is read (and applied) before the next files are visited: batches read
    // side by side on this thread finish no sooner, and meanwhile no file is visited, so the read
    // thread was not even offered to start (npm run bench:scan: 24 local batches, 768 files, before
    // the first check, which started the read thread 0.45 s into the scan instead of 0.2).
    const ahead = offloaded ? readsAhead : 1;
    while (this.underWay.length >= ahead) await this.underWay.shift();
  }
}
