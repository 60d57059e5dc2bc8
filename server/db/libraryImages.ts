import type { Db } from './connection.js';

export interface ImageRow {
  cache_key: string;
  mime: string;
  bytes: number;
  origin: string;
  created_at: number;
}

/** Index of the artwork cache (the bytes live in files named by the key). */
export function recordImage(db: Db, image: Omit<ImageRow, 'created_at'>, now: number): void {
  db.prepare('INSERT OR IGNORE INTO library_images (cache_key, mime, bytes, origin, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(image.cache_key, image.mime, image.bytes, image.origin, now);
}

export function findImage(db: Db, cacheKey: string): ImageRow | undefined {
  return db.prepare('SELECT * FROM library_images WHERE cache_key = ?').get(cacheKey) as ImageRow | undefined;
}
