import type { Db } from './connection.js';

/**
 * Upkeep of the `search` documents of metadata_cache: every distinct query (each keystroke of an
 * as-you-type search) leaves one, so old ones are deleted.
 */
export function pruneSearchCache(db: Db, olderThan: number): number {
  return db.prepare("DELETE FROM metadata_cache WHERE kind = 'search' AND fetched_at < ?").run(olderThan).changes;
}
