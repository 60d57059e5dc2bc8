import type { Db } from './db.js';
import { sortName } from './libraryText.js';

/**
 * Recomputes every stored sort key from the names with the current `sortName` rule, one id range per
 * call: genres, then artists, albums, tracks, with the copies the genre membership index carries.
 * Set-based: `sortName` is a SQL function of the connection, and only rows whose keys change are
 * written. A pure function of the names, so running a batch twice is harmless.
 *
 * Rewriting keys under their indexes costs a random B-tree update per index and row (minutes at a
 * million tracks), so the first batch drops the indexes over sort keys, keeping their exact SQL and
 * planner statistics in the cursor, and the last one recreates them (a sorted build) and restores the
 * statistics. The step runs before the server serves anything, and a killed run resumes from the
 * cursor with the definitions still at hand.
 */

type Table = 'genres' | 'artists' | 'albums' | 'tracks';
type Phase = Table | 'reindex';
const ORDER: Table[] = ['genres', 'artists', 'albums', 'tracks'];
/** Ids per batch (one transaction each). */
const BATCH = 20_000;
const TABLES = ['library_artists', 'library_albums', 'library_tracks', 'library_genres', 'library_genre_links'];

interface Cursor {
  table: Phase;
  /** Ids up to this one are done. */
  after: number;
  /** The dropped indexes over sort keys, to recreate at the end. */
  indexes: { name: string; sql: string }[];
  /** Their sqlite_stat1 rows, restored with them. */
  stats: { tbl: string; idx: string; stat: string }[];
}

const RANGE = 'BETWEEN @lo AND @hi';
/** Per table: the id range's key updates, in order (the genre links copy the entity's new key). */
const UPDATES: Record<Table, string[]> = {
  genres: [
    `UPDATE library_genres SET sort_name = library_sort_key(name) WHERE id ${RANGE} AND sort_name IS NOT library_sort_key(name)`,
  ],
  artists: [
    `UPDATE library_artists SET sort_name = library_sort_key(name) WHERE id ${RANGE} AND sort_name IS NOT library_sort_key(name)`,
    linksSql(1, 'library_artists'),
  ],
  albums: [
    `UPDATE library_albums SET sort_name = k.s, artist_sort_name = k.a
     FROM (SELECT id, library_sort_key(title) AS s, library_sort_key(album_artist) AS a FROM library_albums WHERE id ${RANGE}) k
     WHERE library_albums.id = k.id AND (library_albums.sort_name, library_albums.artist_sort_name) IS NOT (k.s, k.a)`,
    linksSql(2, 'library_albums'),
  ],
  tracks: [
    // A track without an album keeps its (empty) album key, as the writer stores it.
    `UPDATE library_tracks SET sort_name = k.s, artist_sort_name = k.a, album_sort_name = k.al
     FROM (SELECT t.id, library_sort_key(t.title) AS s, library_sort_key(t.artist_name) AS a,
             CASE WHEN al.title IS NULL THEN t.album_sort_name ELSE library_sort_key(al.title) END AS al
           FROM library_tracks t LEFT JOIN library_albums al ON al.id = t.album_id WHERE t.id ${RANGE}) k
     WHERE library_tracks.id = k.id
       AND (library_tracks.sort_name, library_tracks.artist_sort_name, library_tracks.album_sort_name) IS NOT (k.s, k.a, k.al)`,
    linksSql(3, 'library_tracks'),
  ],
};

function linksSql(kind: number, table: string): string {
  return `UPDATE library_genre_links SET sort_name = e.sort_name FROM ${table} e
    WHERE library_genre_links.kind = ${kind} AND library_genre_links.entity_id = e.id AND e.id ${RANGE}
      AND library_genre_links.sort_name IS NOT e.sort_name`;
}

const TABLE_OF: Record<Table, string> = {
  genres: 'library_genres', artists: 'library_artists', albums: 'library_albums', tracks: 'library_tracks',
};

const withKeyFunction = new WeakSet<Db>();

/** One batch from `cursor` (null: the start); returns the next cursor, or null when every key is current. */
export function recomputeSortKeysBatch(db: Db, cursorText: string | null, batch = BATCH): string | null {
  if (!withKeyFunction.has(db)) {
    db.function('library_sort_key', { deterministic: true }, (value: unknown) => sortName(String(value ?? '')));
    withKeyFunction.add(db);
  }
  if (cursorText === null) return JSON.stringify(dropSortIndexes(db));
  let cursor = JSON.parse(cursorText) as Cursor;
  if (cursor.table === 'reindex') {
    restoreIndexes(db, cursor);
    return null;
  }
  for (;;) {
    const table = cursor.table as Table;
    const max = (db.prepare(`SELECT COALESCE(MAX(id), 0) FROM ${TABLE_OF[table]}`).pluck().get() as number);
    if (cursor.after < max) {
      const range = { lo: cursor.after + 1, hi: cursor.after + batch };
      for (const sql of UPDATES[table]) db.prepare(sql).run(range);
      return JSON.stringify({ ...cursor, after: range.hi } satisfies Cursor);
    }
    const next = ORDER[ORDER.indexOf(table) + 1];
    if (!next) return JSON.stringify({ ...cursor, table: 'reindex', after: 0 } satisfies Cursor);
    cursor = { ...cursor, table: next, after: 0 };
  }
}

/** Drops every index of the library tables that has a sort-key column; returns the starting cursor. */
function dropSortIndexes(db: Db): Cursor {
  const indexes = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
       AND tbl_name IN (SELECT value FROM json_each(?)) ORDER BY name`,
    )
    .all(JSON.stringify(TABLES)) as { name: string; sql: string }[];
  const columns = db.prepare('SELECT name FROM pragma_index_info(?)').pluck();
  const sortIndexes = indexes.filter((i) => (columns.all(i.name) as string[]).some((c) => c.endsWith('sort_name')));
  const hasStats = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'").get();
  const stats = hasStats
    ? (db.prepare('SELECT tbl, idx, stat FROM sqlite_stat1 WHERE idx IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(sortIndexes.map((i) => i.name))) as Cursor['stats'])
    : [];
  for (const i of sortIndexes) db.exec(`DROP INDEX ${i.name}`);
  return { table: ORDER[0]!, after: 0, indexes: sortIndexes, stats };
}

/** Recreates the dropped indexes (those still missing) with their statistics. */
function restoreIndexes(db: Db, cursor: Cursor): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").pluck();
  for (const i of cursor.indexes) if (!exists.get(i.name)) db.exec(i.sql);
  if (cursor.stats.length === 0) return;
  const put = db.prepare('INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)');
  db.prepare('DELETE FROM sqlite_stat1 WHERE idx IN (SELECT value FROM json_each(?))').run(JSON.stringify(cursor.stats.map((r) => r.idx)));
  for (const r of cursor.stats) put.run(r.tbl, r.idx, r.stat);
  db.exec('ANALYZE sqlite_schema');
}
