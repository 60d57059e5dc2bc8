import sharp from 'sharp';

/**
 * libvips keeps the operations it ran (up to 50 MB, 100 of them) in case the same one comes again;
 * each artwork resize here runs once and is stored on disk, so the cache only holds memory.
 *
 * Apart from memory.ts, which the worker threads load (runWorker.ts): loading sharp costs a thread
 * about 80 ms and its own copy of the library's state, and a scan worker resizes nothing.
 */
export function limitImageMemory(): void {
  sharp.cache(false);
}
