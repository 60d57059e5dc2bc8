import type { Db } from './connection.js';
import { sortName } from './libraryText.js';
import { KIND } from './libraryModel.js';

/**
 * Recomputes every stored sort key from the names with the current `sortName` rule, one batch of rows
 * per call: genres, then artists, albums, tracks in id order, with the copies the genre membership
 * index carries. Only rows whose keys change are written. A pure function of the names, so running a
 * batch twice is harmless.
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
const BATCH = 5000;
const TABLES = ['library_artists', 'library_albums', 'library_tracks', 'library_genres', 'library_genre_links'];

interface Cursor {
  table: Phase;
  after: number;
  /** The dropped indexes over sort keys, to recreate at the end. */
  indexes: { name: string; sql: string }[];
  /** Their sqlite_stat1 rows, restored with them. */
  stats: { tbl: string; idx: string; stat: string }[];
}

type Statements = ReturnType<typeof prepare>;
const cache = new WeakMap<Db, Statements>();

function prepare(db: Db) {
  return {
    genres: db.prepare('SELECT id, name, sort_name FROM library_genres WHERE id > ? ORDER BY id LIMIT ?'),
    setGenre: db.prepare('UPDATE library_genres SET sort_name = ? WHERE id = ?'),
    artists: db.prepare('SELECT id, name, sort_name FROM library_artists WHERE id > ? ORDER BY id LIMIT ?'),
    setArtist: db.prepare('UPDATE library_artists SET sort_name = ? WHERE id = ?'),
    albums: db.prepare(
      'SELECT id, title, album_artist, sort_name, artist_sort_name FROM library_albums WHERE id > ? ORDER BY id LIMIT ?',
    ),
    setAlbum: db.prepare('UPDATE library_albums SET sort_name = ?, artist_sort_name = ? WHERE id = ?'),
    tracks: db.prepare(
      `SELECT t.id, t.title, t.artist_name, t.sort_name, t.artist_sort_name, t.album_sort_name, al.title AS album_title
       FROM library_tracks t LEFT JOIN library_albums al ON al.id = t.album_id WHERE t.id > ? ORDER BY t.id LIMIT ?`,
    ),
    setTrack: db.prepare('UPDATE library_tracks SET sort_name = ?, artist_sort_name = ?, album_sort_name = ? WHERE id = ?'),
    setLinks: db.prepare('UPDATE library_genre_links SET sort_name = ? WHERE kind = ? AND entity_id = ?'),
  };
}

/** One batch from `cursor` (null: the start); returns the next cursor, or null when every key is current. */
export function recomputeSortKeysBatch(db: Db, cursorText: string | null, batch = BATCH): string | null {
  let s = cache.get(db);
  if (!s) {
    s = prepare(db);
    cache.set(db, s);
  }
  if (cursorText === null) return JSON.stringify(dropSortIndexes(db));
  let cursor = JSON.parse(cursorText) as Cursor;
  if (cursor.table === 'reindex') {
    restoreIndexes(db, cursor);
    return null;
  }
  for (;;) {
    const last = runTable(s, cursor as Cursor & { table: Table }, batch);
    if (last !== null) return JSON.stringify({ ...cursor, after: last } satisfies Cursor);
    const next = ORDER[ORDER.indexOf(cursor.table as Table) + 1];
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

/** Processes up to `batch` rows after the cursor; returns the last id done, or null when the table is done. */
function runTable(s: Statements, cursor: Cursor, batch: number): number | null {
  let last: number | null = null;
  switch (cursor.table) {
    case 'genres':
      for (const r of s.genres.all(cursor.after, batch) as { id: number; name: string; sort_name: string }[]) {
        const key = sortName(r.name);
        if (key !== r.sort_name) s.setGenre.run(key, r.id);
        last = r.id;
      }
      break;
    case 'artists':
      for (const r of s.artists.all(cursor.after, batch) as { id: number; name: string; sort_name: string }[]) {
        const key = sortName(r.name);
        if (key !== r.sort_name) {
          s.setArtist.run(key, r.id);
          s.setLinks.run(key, KIND.artist, r.id);
        }
        last = r.id;
      }
      break;
    case 'albums':
      for (const r of s.albums.all(cursor.after, batch) as {
        id: number; title: string; album_artist: string; sort_name: string; artist_sort_name: string;
      }[]) {
        const key = sortName(r.title);
        const artistKey = sortName(r.album_artist);
        if (key !== r.sort_name || artistKey !== r.artist_sort_name) s.setAlbum.run(key, artistKey, r.id);
        if (key !== r.sort_name) s.setLinks.run(key, KIND.album, r.id);
        last = r.id;
      }
      break;
    case 'tracks':
      for (const r of s.tracks.all(cursor.after, batch) as {
        id: number; title: string; artist_name: string; sort_name: string; artist_sort_name: string;
        album_sort_name: string; album_title: string | null;
      }[]) {
        const key = sortName(r.title);
        const artistKey = sortName(r.artist_name);
        // A track without an album keeps its (empty) album key, as the writer stores it.
        const albumKey = r.album_title === null ? r.album_sort_name : sortName(r.album_title);
        if (key !== r.sort_name || artistKey !== r.artist_sort_name || albumKey !== r.album_sort_name) {
          s.setTrack.run(key, artistKey, albumKey, r.id);
        }
        if (key !== r.sort_name) s.setLinks.run(key, KIND.track, r.id);
        last = r.id;
      }
      break;
  }
  return last;
}
