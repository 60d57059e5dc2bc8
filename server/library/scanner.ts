import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/connection.js';
import { inTransaction } from '../db/connection.js';
import { refreshDerived } from '../db/libraryDerived.js';
import { recordImage } from '../db/libraryImages.js';
import { scanRuns, type ScanCounts, type ScanError, type ScanMode } from '../db/libraryScanRuns.js';
import { LibraryWriter } from '../db/libraryWrites.js';
import { FOLDER_IMAGE, isAudioFile } from './audioFormats.js';
import { ImageCache, imageMimeOf } from './imageCache.js';
import { OUTSIDE_ROOTS, isWithin, realPathWithin, realRoots } from './libraryRoots.js';
import type { ScanRead } from './scanRead.js';
import { READ_BATCH, READ_THREAD_FROM_FILES, READS_AHEAD_WITH_THREAD, ScanReads, type QueuedRead } from './scanReads.js';
import { writeScannedFile } from './scanWrite.js';
import type { ScanReadOffload } from './scanReadThread.js';
import { walkMusicFolder } from './walk.js';
import { walkAhead, type FolderListing } from './walkAhead.js';

/**
 * `walking`: folders are still being listed, so the number of files (`filesSeen`) still grows;
 * `reading`: every file is found, and indexed + unchanged + failed counts towards `filesSeen`.
 */
export type ScanPhase = 'walking' | 'reading';

export interface ScanOptions {
  runId: number;
  mode: ScanMode;
  roots: string[];
  /**
   * Folders besides the roots that links inside the roots may point into (the downloads root). A
   * file whose real path is in none of them is skipped and reported.
   */
  linkRoots?: string[];
  imageDir: string;
  now?: () => number;
  /** Called at most every `progressMs` with the running counts, and at once when the phase changes. */
  onProgress?: (counts: ScanCounts, phase: ScanPhase) => void;
  progressMs?: number;
  /**
   * Files whose writes are queued before they are written (default 250; the first batch at most 50).
   * A batch is written in transactions of at most TRANSACTION_MS each, so the write lock is never
   * held long: a main-thread writer (the job queue's pump, say) that meets it waits in SQLite's busy
   * handler, blocking its event loop meanwhile.
   */
  batchSize?: number;
  /**
   * Batches of reads (READ_BATCH files each) that may be under way ahead of the writes (default
   * READS_AHEAD_WITH_THREAD with a read thread, else 1).
   */
  concurrency?: number;
  /**
   * Another thread that takes batches of reads when it can (the scan worker's ScanReadThread); the
   * rest are read on this thread. Results are written in the order the files were found either way.
   * `start` is called once READ_THREAD_FROM_FILES files are waiting to be read (READ_BATCH in a full
   * scan or the first index), and again with every batch after (it may decline to start the thread
   * until a core is free).
   */
  readThread?: ScanReadOffload & { start?: () => void };
  /** Checked between batches; true stops the scan (the run stays `running` for the next start). */
  shouldStop?: () => boolean;
  /**
   * Scope the scan to these changed paths (files or folders, existing or deleted) inside the roots,
   * instead of walking every root.
   */
  paths?: string[];
  /** Test hook: called after each committed batch (a test kills the scan here). */
  afterBatch?: (counts: ScanCounts) => void;
}

export interface ScanResult extends ScanCounts {
  errors: ScanError[];
}

const MAX_ERRORS = 200;
/** How many walked files may wait for their tag read; the walk pauses beyond it (bounded memory). */
const WALK_AHEAD_FILES = 50_000;
/** Files in the first write batch (see ScanOptions.batchSize). */
const FIRST_BATCH = 50;
/**
 * How long one write transaction of a scan runs before it commits (the rest of the batch goes on in
 * the next): a main-thread writer meeting the scan's lock waits in SQLite's busy handler with its
 * event loop blocked (issue 25: with 250 files a transaction, its event-loop p99 went past 50 ms).
 */
const TRANSACTION_MS = 10;
/** Files a transaction writes however long they take (a thread that loses its core meanwhile). */
const MIN_TRANSACTION_FILES = 50;

/**
 * Walking, reading and writing make synchronous calls on the scan's thread (walk.ts, audioFile.ts,
 * the database): a turn of the event loop after each written batch lets the worker take its
 * messages (stop).
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ScanStoppedError extends Error {
  constructor() {
    super('scan stopped');
  }
}

/**
 * Scans the music folders into the canonical store (source `aurral`). Quick mode skips files whose
 * size and mtime are unchanged; full mode re-reads everything. Writes go in batched transactions;
 * files not seen under a readable root are marked unavailable at the end, never deleted. Runs on
 * the connection it is given (the scan worker's own).
 */
export async function scanLibrary(db: Db, options: ScanOptions): Promise<ScanResult> {
  const now = options.now ?? Date.now;
  const writer = new LibraryWriter(db);
  const images = new ImageCache(options.imageDir);
  const batchSize = options.batchSize ?? 250;
  let flushes = 0;
  /** The first batch is small, so a scan's first files show up (and count) early. */
  const due = () => pending.length >= (flushes === 0 ? Math.min(batchSize, FIRST_BATCH) : batchSize);
  // Reading ahead pays only when another thread reads meanwhile; otherwise it only holds more.
  const readsAhead = Math.max(1, options.concurrency ?? (options.readThread ? READS_AHEAD_WITH_THREAD : 1));
  const counts: ScanCounts = { filesSeen: 0, filesIndexed: 0, filesSkipped: 0, filesFailed: 0, filesMissing: 0, filesMoved: 0 };
  const errors: ScanError[] = [];
  const pending: (() => void)[] = [];
  let lastProgress = 0;
  let phase: ScanPhase = 'walking';
  let walksLeft = 0;
  const report = (force = false) => {
    const t = Date.now();
    if (!options.onProgress || (!force && t - lastProgress < (options.progressMs ?? 250))) return;
    lastProgress = t;
    options.onProgress({ ...counts }, phase);
  };
  /** The scan lists `n` folders before everything is found; with none left, it only reads. */
  const expectWalks = (n: number) => {
    walksLeft = n;
    if (n === 0) walkDone();
  };
  const walkDone = () => {
    walksLeft = Math.max(0, walksLeft - 1);
    if (walksLeft > 0 || phase === 'reading') return;
    phase = 'reading';
    report(true);
  };
  /** The library had no tracks before this scan: no file is known to it yet. */
  const firstIndex = !writer.hasTracks();
  /**
   * A scan that reads whole folders (full, or the first index) offers the read thread its first batch:
   * it is usually large, and the first reads on this thread load the tag parser (256 files took 0.2
   * s). Other scans (a quick one, one scoped to a download's files) offer it once
   * READ_THREAD_FROM_FILES files are to be read.
   */
  const readThreadFrom = !options.paths && (options.mode === 'full' || firstIndex) ? READ_BATCH : READ_THREAD_FROM_FILES;
  const allowedRoots = [...options.roots, ...(options.linkRoots ?? [])];
  const allowed = realRoots(allowedRoots);

  const relative = (root: string, file: string) => path.relative(root, file) || path.basename(file);
  const addError = (root: string, file: string, reason: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ path: relative(root, file), reason });
  };
  const flush = () => {
    if (pending.length === 0) return;
    const ops = pending.splice(0, pending.length);
    // As many files a transaction as fit in TRANSACTION_MS (at least MIN_TRANSACTION_FILES): the
    // write lock is held briefly, and when the writes are quick a commit (and the pages it writes
    // to the WAL) serves many files.
    let i = 0;
    while (i < ops.length) {
      inTransaction(db, () =>
        writer.inBatch(() => {
          const until = performance.now() + TRANSACTION_MS;
          const least = i + MIN_TRANSACTION_FILES;
          do ops[i++]!();
          while (i < ops.length && (i < least || performance.now() < until));
          scanRuns.progress(db, options.runId, counts, errors);
        }),
      );
    }
    flushes++;
    flushedSinceYield = true;
    options.afterBatch?.(counts);
    if (options.shouldStop?.()) throw new ScanStoppedError();
    report();
  };

  const listings: FolderListing[] = [];
  /** Starts listing a folder at once (ahead of the reads), counting its files into filesSeen. */
  const listFolder = (root: string, folder: string): FolderListing => {
    let failed = false;
    const walker = walkMusicFolder(folder, allowed, (problem) => {
      counts.filesFailed++;
      addError(root, problem.path, problem.reason);
      if (problem.path === folder) failed = true;
    });
    const ahead = walkAhead(walker, WALK_AHEAD_FILES, (n) => (counts.filesSeen += n), walkDone);
    const listing = { root, folder, failed: () => failed, ...ahead };
    listings.push(listing);
    return listing;
  };

  const scanFolder = async (listing: FolderListing): Promise<void> => {
    const { root, folder } = listing;
    for await (const directory of listing.directories) {
      for (const file of directory.files) {
        await visitFile(root, file, directory.folderImage);
      }
    }
    await reads.drain();
    flush();
    if (!listing.failed()) {
      inTransaction(db, () => {
        counts.filesMissing +=
          folder === root
            ? writer.markMissingUnder('aurral', root, options.runId, now())
            : writer.markMissingInFolder('aurral', folder, options.runId, now());
      });
    }
  };

  let flushedSinceYield = false;
  /** The scan is over (or failed): reads still arriving are dropped, not written. */
  let ended = false;
  const reads = new ScanReads({
    readThread: options.readThread,
    images,
    readsAhead,
    offerThreadFrom: readThreadFrom,
    apply: async (batch, results) => {
      if (ended) return;
      for (let i = 0; i < batch.length; i++) {
        applyRead(batch[i]!, results[i]!);
        if (due()) {
          flush();
          flushedSinceYield = false;
          await turn();
          if (ended) return;
        }
      }
    },
  });

  const visitFile = async (
    root: string,
    file: { path: string; size: number; mtimeMs: number },
    folderImage: string | null,
  ): Promise<void> => {
    // The first index of a library knows no file yet (a path met twice, through overlapping
    // folders, is then read twice: its rows are the same).
    const known = firstIndex ? undefined : writer.knownMediaFile('aurral', file.path);
    if (options.mode === 'quick' && known && known.size === file.size && known.mtimeMs === file.mtimeMs) {
      counts.filesSkipped++;
      pending.push(() => writer.markSeen(known, options.runId, now()));
      if (due()) flush();
    } else {
      await reads.add({ root, file, known, folderImage });
    }
    if (flushedSinceYield) {
      flushedSinceYield = false;
      await turn();
    }
  };

  const folderImageKeys = new Map<string, string | null>();
  const folderImageKey = (file: string | null): string | null => {
    if (!file) return null;
    if (folderImageKeys.has(file)) return folderImageKeys.get(file)!;
    let key: string | null = null;
    try {
      const real = realPathWithin(file, allowedRoots);
      if (!real) throw new Error(OUTSIDE_ROOTS);
      const bytes = fs.readFileSync(real);
      key = images.store(bytes);
      const stored = key;
      pending.push(() => recordImage(db, { cache_key: stored, mime: imageMimeOf(bytes), bytes: bytes.length, origin: 'folder' }, now()));
    } catch {
      key = null;
    }
    folderImageKeys.set(file, key);
    return key;
  };

  function applyRead({ root, file, known, folderImage }: QueuedRead, read: ScanRead): void {
    if ('error' in read) {
      counts.filesFailed++;
      addError(root, file.path, read.error);
      // Indexed before and unreadable now: no longer offered for playing.
      if (known) pending.push(() => writer.markPathUnavailable('aurral', file.path, now()) && counts.filesMissing++);
      return;
    }
    const { tags, fingerprint, picture } = read;
    if (tags.error) {
      counts.filesFailed++;
      addError(root, file.path, tags.error);
    }
    const imageKey = picture?.key ?? folderImageKey(folderImage);
    pending.push(() => {
      const t = now();
      if (picture) recordImage(db, { cache_key: picture.key, mime: picture.mime, bytes: picture.bytes, origin: 'embedded' }, t);
      if (!known && fingerprint) {
        const moved = writer.moveIfSameContent('aurral', fingerprint, file.path, root, (p) => fs.existsSync(p), t);
        if (moved !== null) counts.filesMoved++;
      }
      writeScannedFile(writer, tags, file, root, fingerprint, imageKey, options.runId, t);
      counts.filesIndexed++;
    });
  }

  const readableRoots = options.roots.filter((root) => {
    if (fs.existsSync(root) && fs.statSync(root).isDirectory()) return true;
    // An unmounted or removed folder is reported; its files keep their state until it is back.
    addError(root, root, 'music folder not found');
    return false;
  });

  try {
    if (options.paths) await scanChangedPaths(readableRoots, options.paths);
    else {
      expectWalks(readableRoots.length);
      // Every root is listed from the start, so the total is known before the first root is read.
      for (const listing of readableRoots.map((root) => listFolder(root, root))) await scanFolder(listing);
    }
  } catch (err) {
    ended = true;
    throw err;
  } finally {
    // A stopped or failed scan leaves no listing running in the long-lived worker.
    for (const listing of listings) listing.abandon();
  }

  /**
   * A scan scoped to what the watcher saw change: folders are walked (their vanished files marked
   * unavailable), files re-read when their size or mtime changed, and paths that no longer exist
   * marked unavailable, with everything below them when they were folders.
   */
  async function scanChangedPaths(roots: string[], paths: string[]): Promise<void> {
    const rootOf = (p: string) => roots.find((r) => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
    const folders: { root: string; path: string }[] = [];
    const files: { root: string; path: string; stat: fs.Stats }[] = [];
    const gone: string[] = [];
    for (const changed of [...new Set(paths.map((p) => path.resolve(p)))].sort()) {
      const root = rootOf(changed);
      if (!root) continue;
      // Inside a folder walked already (sorted: parents come first).
      if (folders.some((f) => changed.startsWith(f.path + path.sep))) continue;
      let stat: fs.Stats | null = null;
      try {
        stat = fs.statSync(changed);
      } catch {
        stat = null;
      }
      if (!stat) gone.push(changed);
      else if (stat.isDirectory()) folders.push({ root, path: changed });
      else if (stat.isFile() && isAudioFile(changed)) {
        if (realPathWithin(changed, allowedRoots)) files.push({ root, path: changed, stat });
        else {
          // Swapped for a link to elsewhere: reported, and no longer available.
          counts.filesFailed++;
          addError(root, changed, OUTSIDE_ROOTS);
          gone.push(changed);
        }
      }
    }
    const direct = files.filter((file) => !folders.some((f) => file.path.startsWith(f.path + path.sep)));
    counts.filesSeen += direct.length;
    expectWalks(folders.length);
    for (const listing of folders.map((f) => listFolder(f.root, f.path))) await scanFolder(listing);
    for (const file of direct) {
      const folderImage = findFolderImage(path.dirname(file.path), allowed);
      await visitFile(file.root, { path: file.path, size: file.stat.size, mtimeMs: Math.round(file.stat.mtimeMs) }, folderImage);
    }
    await reads.drain();
    flush();
    if (gone.length > 0) {
      inTransaction(db, () => {
        const t = now();
        for (const p of gone) {
          if (writer.markPathUnavailable('aurral', p, t)) counts.filesMissing++;
          counts.filesMissing += writer.markMissingInFolder('aurral', p, options.runId, t);
        }
      });
    }
  }
  flush();
  refreshDerived(db);
  optimizeAfterScan(db, counts);
  options.onProgress?.({ ...counts }, phase);
  return { ...counts, errors };
}

/** Files a scan must have changed for the planner statistics to be refreshed at once. */
const OPTIMIZE_AFTER_FILES = 1000;
/** Otherwise they are refreshed at most this often (a download files a track and scans it, often). */
const OPTIMIZE_EVERY_MS = 3600_000;
const lastOptimized = new WeakMap<Db, number>();

/**
 * Refreshes the query planner's statistics (PRAGMA optimize) after a scan that changed much, and
 * otherwise at most once an hour. Its ANALYZE holds the database's write lock, and a scan per filed
 * download would make every other writer (the main thread's job updates) wait for it.
 */
function optimizeAfterScan(db: Db, counts: ScanCounts): void {
  const changed = counts.filesIndexed + counts.filesMissing + counts.filesMoved;
  const last = lastOptimized.get(db);
  if (changed < OPTIMIZE_AFTER_FILES && last !== undefined && Date.now() - last < OPTIMIZE_EVERY_MS) return;
  if (changed === 0 && last !== undefined) return;
  lastOptimized.set(db, Date.now());
  // Bounded: an unbounded optimize may re-analyze million-row tables (seconds) after a modest scan.
  db.pragma('analysis_limit = 1000');
  db.pragma('optimize');
}

/** The cover/folder/front image beside a file, if any (and inside the allowed folders). */
function findFolderImage(dir: string, allowed: readonly string[]): string | null {
  try {
    const name = fs.readdirSync(dir).find((n) => FOLDER_IMAGE.test(n));
    return name && isWithin(fs.realpathSync.native(path.join(dir, name)), allowed) ? path.join(dir, name) : null;
  } catch {
    return null;
  }
}
