import type { Db } from './connection.js';

export interface RemoteImageRow {
  cache_key: string;
  url: string;
  image_key: string | null;
  failed_at: number | null;
  failure: string | null;
}

export function remoteImagesRepository(db: Db) {
  const insert = db.prepare('INSERT OR IGNORE INTO remote_images (cache_key, url, created_at) VALUES (?, ?, ?)');
  const byKey = db.prepare('SELECT cache_key, url, image_key, failed_at, failure FROM remote_images WHERE cache_key = ?');
  const fetched = db.prepare('UPDATE remote_images SET image_key = ?, failed_at = NULL, failure = NULL WHERE cache_key = ?');
  const failed = db.prepare('UPDATE remote_images SET failed_at = ?, failure = ? WHERE cache_key = ?');
  const retry = db.prepare('UPDATE remote_images SET failed_at = NULL, failure = NULL WHERE cache_key = ? AND image_key IS NULL');
  return {
    register: (key: string, url: string, now: number) => void insert.run(key, url, now),
    get: (key: string) => byKey.get(key) as RemoteImageRow | undefined,
    fetched: (key: string, imageKey: string) => void fetched.run(imageKey, key),
    failed: (key: string, reason: string, now: number) => void failed.run(now, reason.slice(0, 500), key),
    /** Forgets a failed fetch so the next request tries the picture again. */
    retry: (key: string) => void retry.run(key),
  };
}
