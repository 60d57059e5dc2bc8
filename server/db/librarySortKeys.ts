import type { Db } from './connection.js';
import { sortName } from './libraryText.js';
import { KIND } from './libraryModel.js';

/**
 * Recomputes every stored sort key from the names with the current `sortName` rule, one batch of rows
 * per call: genres, then artists, albums, tracks in id order, with the copies the genre membership
 * index carries. Only rows whose keys change are written (each write touches the page indexes).
 * A pure function of the names, so running a batch twice is harmless.
 */

type Table = 'genres' | 'artists' | 'albums' | 'tracks';
const ORDER: Table[] = ['genres', 'artists', 'albums', 'tracks'];
const BATCH = 2000;

interface Cursor {
  table: Table;
  after: number;
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
  let cursor: Cursor = cursorText ? (JSON.parse(cursorText) as Cursor) : { table: ORDER[0]!, after: 0 };
  for (;;) {
    const last = runTable(s, cursor, batch);
    if (last !== null) return JSON.stringify({ table: cursor.table, after: last } satisfies Cursor);
    const next = ORDER[ORDER.indexOf(cursor.table) + 1];
    if (!next) return null;
    cursor = { table: next, after: 0 };
  }
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
