import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, openDatabase, type Db } from '../../server/db/connection.js';
import { LibraryReader } from '../../server/db/libraryReads.js';
import { recomputeSortKeysBatch } from '../../server/db/librarySortKeys.js';
import { foldText, sortName } from '../../server/db/libraryText.js';
import { LibraryWriter } from '../../server/db/libraryWrites.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-sortkeys-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('foldText', () => {
  it('folds plain ASCII exactly as the full Unicode path does', () => {
    const full = (value: string) => value.normalize('NFKD').replace(/[\u0300-\u036f]+/gu, '').normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
    const samples = ['', '  ', 'AC/DC', ' The   Beatles\t', 'Track 01\n(Remix)', 'a\u0000b\u001fc\u007f', 'MiXeD CaSe ~!@#$%^&*()_+'];
    for (let i = 0; i < 2000; i++) samples.push(Array.from({ length: i % 40 }, (_, j) => String.fromCharCode((i * 31 + j * 17) % 128)).join(''));
    for (const value of samples) expect(foldText(value)).toBe(full(value));
    expect(foldText('Björk  Guðmundsdóttir')).toBe('bjork guðmundsdottir');
    expect(foldText('ＡＢＣ')).toBe('abc');
  });
});

describe('sortName, the one sort key', () => {
  it('orders numbers naturally and drops a leading ignored article', () => {
    const names = ['Band 59', 'The Band 7', 'Band 6', 'band 10', 'Track 2', 'Track 10', 'Track 1', 'Los Lobos', 'Le Tigre', 'Zed', ''];
    const sorted = [...names].sort((a, b) => (sortName(a) < sortName(b) ? -1 : sortName(a) > sortName(b) ? 1 : 0));
    expect(sorted).toEqual(['Band 6', 'The Band 7', 'band 10', 'Band 59', 'Los Lobos', 'Le Tigre', 'Track 1', 'Track 2', 'Track 10', 'Zed', '']);
    expect(sortName('The Beatles')).toBe('beatles');
    expect(sortName('  THE   Beatles ')).toBe('beatles');
    expect(sortName('Björk')).toBe('bjork');
    // An article alone, or not followed by a word, is the name itself.
    expect(sortName('The')).toBe('the');
    expect(sortName('Theatre')).toBe('theatre');
    // Leading zeros do not matter; long numbers stay whole.
    expect(sortName('Track 007')).toBe(sortName('Track 7'));
    expect(sortName('1.5')).toBe('0000000001.0000000005');
    expect(sortName('Call 123456789012')).toBe('call 123456789012');
  });
});

/** What the previous build stored: folded text only. */
const oldKey = (value: string) => (foldText(value) === '' ? '\uffff' : foldText(value));

const ARTISTS = ['The Zebras', 'Band 10', 'Band 9', 'Band 59', 'Various Artists'];

/**
 * A database as the previous build left it (schema up to 035, keys by the old rule), with a
 * compilation whose track artists have no album of their own.
 */
function makeOldDatabase(file: string): void {
  const db = openDatabase(file, { migrations: loadMigrations().filter((m) => m.version < 36) });
  const w = new LibraryWriter(db);
  db.transaction(() => {
    const ids = new Map(ARTISTS.map((name, i) => [name, w.upsertArtist({ identityKey: `a:${name}`, name }, i)]));
    for (const name of ARTISTS.slice(0, 4)) {
      const albumId = w.upsertAlbum({ identityKey: `al:${name}`, artistId: ids.get(name)!, title: `${name} Live 2`, albumArtist: name }, 1);
      for (const t of [10, 2, 1]) {
        const trackId = w.upsertTrack({ identityKey: `t:${name}:${t}`, title: `Track ${t}`, artistName: name, artistId: ids.get(name)!, albumId, albumTitle: `${name} Live 2`, trackNumber: t, genres: ['The Genre 2'] }, 1);
        w.upsertMediaFile({ source: 'aurral', path: `/m/${name}/${t}.mp3`, trackId, albumId, size: 1, mtimeMs: 1 }, 1);
      }
    }
    const comp = w.upsertAlbum({ identityKey: 'al:comp', artistId: ids.get('Various Artists')!, title: 'Now 59', albumArtist: 'Various Artists' }, 1);
    for (const [i, name] of ['Guest 1', 'Guest 2', 'Band 9'].entries()) {
      const artistId = ids.get(name) ?? w.upsertArtist({ identityKey: `a:${name}`, name }, 9);
      w.upsertTrack({ identityKey: `t:comp:${i}`, title: `Song ${i}`, artistName: name, artistId, albumId: comp, albumTitle: 'Now 59', trackNumber: i + 1 }, 1);
    }
  })();
  db.function('old_key', { deterministic: true }, (v: unknown) => oldKey(String(v)));
  db.exec(`
    UPDATE library_artists SET sort_name = old_key(name);
    UPDATE library_genres SET sort_name = old_key(name);
    UPDATE library_albums SET sort_name = old_key(title), artist_sort_name = old_key(album_artist);
    UPDATE library_tracks SET sort_name = old_key(title), artist_sort_name = old_key(artist_name),
      album_sort_name = old_key((SELECT title FROM library_albums WHERE id = library_tracks.album_id));
    INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
      SELECT g.genre_id, 3, t.id, t.sort_name, 0, 1 FROM library_track_genres g JOIN library_tracks t ON t.id = g.track_id;
    ANALYZE;
  `);
  db.close();
}

/** Every index of the library tables with its definition, and the planner statistics of those over sort keys. */
/** Only the indexes the old database had: later migrations may add their own. */
function sameIndexes(after: ReturnType<typeof indexes>, before: ReturnType<typeof indexes>) {
  const names = new Set((before.defs as { name: string }[]).map((d) => d.name));
  return { ...after, defs: (after.defs as { name: string }[]).filter((d) => names.has(d.name)) };
}

function indexes(db: Db | Database.Database) {
  return {
    defs: db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'library_%' ORDER BY name").all(),
    stats: db.prepare("SELECT tbl, idx, stat FROM sqlite_stat1 WHERE idx LIKE '%by_name' OR idx LIKE '%by_artist' ORDER BY idx").all(),
  };
}

/** Rows whose stored keys differ from what sortName gives today. */
function staleKeys(db: Db): string[] {
  const out: string[] = [];
  for (const r of db.prepare('SELECT id, name, sort_name FROM library_artists').all() as { id: number; name: string; sort_name: string }[])
    if (r.sort_name !== sortName(r.name)) out.push(`artist ${r.name}`);
  for (const r of db.prepare('SELECT name, sort_name FROM library_genres').all() as { name: string; sort_name: string }[])
    if (r.sort_name !== sortName(r.name)) out.push(`genre ${r.name}`);
  for (const r of db.prepare('SELECT title, album_artist, sort_name, artist_sort_name FROM library_albums').all() as Record<string, string>[])
    if (r.sort_name !== sortName(r.title!) || r.artist_sort_name !== sortName(r.album_artist!)) out.push(`album ${r.title}`);
  for (const r of db.prepare(
    `SELECT t.title, t.artist_name, t.sort_name, t.artist_sort_name, t.album_sort_name, a.title AS album
     FROM library_tracks t LEFT JOIN library_albums a ON a.id = t.album_id`,
  ).all() as Record<string, string>[])
    if (r.sort_name !== sortName(r.title!) || r.artist_sort_name !== sortName(r.artist_name!) || r.album_sort_name !== sortName(r.album!))
      out.push(`track ${r.title}`);
  for (const r of db.prepare('SELECT l.sort_name, t.title FROM library_genre_links l JOIN library_tracks t ON t.id = l.entity_id WHERE l.kind = 3').all() as Record<string, string>[])
    if (r.sort_name !== sortName(r.title!)) out.push(`link ${r.title}`);
  return out;
}

describe('upgrading a database written by the previous build', () => {
  it('migration 036 counts appearances; the queued JS step recomputes every stored key', () => {
    const file = path.join(dir, 'upgrade.db');
    makeOldDatabase(file);
    const before = new Database(file, { readonly: true });
    expect(staleKeys(before).length).toBeGreaterThan(10);
    const indexesBefore = indexes(before);
    expect(indexesBefore.stats.length).toBeGreaterThan(4);
    before.close();

    const db = openDatabase(file);
    try {
      expect(staleKeys(db)).toEqual([]);
      // The indexes over sort keys were dropped for the rewrite and are back, exactly, with their statistics.
      expect(sameIndexes(indexes(db), indexesBefore)).toEqual(indexesBefore);
      expect(db.prepare("SELECT cursor, completed_at FROM schema_steps WHERE name = 'library-sort-keys-2'").get())
        .toEqual({ cursor: null, completed_at: expect.any(Number) });
      const counts = Object.fromEntries(
        (db.prepare('SELECT name, album_count, appears_on_count FROM library_artists').all() as { name: string; appears_on_count: number }[])
          .map((r) => [r.name, r.appears_on_count]),
      );
      expect(counts).toMatchObject({ 'Guest 1': 1, 'Guest 2': 1, 'Band 9': 1, 'Band 10': 0, 'Various Artists': 0 });
      const reader = new LibraryReader(db);
      const names = reader.canonicalPage({ kind: 'artists', page: 1, pageSize: 20, sort: 'name' }).rows.map((r) => (r as { name: string }).name);
      expect(names).toEqual(['Band 9', 'Band 10', 'Band 59', 'Guest 1', 'Guest 2', 'Various Artists', 'The Zebras']);
      const tracks = reader.canonicalPage({ kind: 'tracks', page: 1, pageSize: 3, sort: 'name', genre: 'The Genre 2' }).rows.map((r) => (r as { title: string }).title);
      expect(tracks).toEqual(['Track 1', 'Track 1', 'Track 1']);
    } finally {
      db.close();
    }
  });

  it('a step killed between batches resumes where it stopped, and then never runs again', () => {
    const file = path.join(dir, 'killed.db');
    makeOldDatabase(file);
    const old = new Database(file, { readonly: true });
    const indexesBefore = indexes(old);
    old.close();
    let batches = 0;
    const dying = {
      name: 'library-sort-keys-2',
      batch: (db: Db, cursor: string | null) => {
        if (++batches > 4) throw new Error('killed');
        return recomputeSortKeysBatch(db, cursor, 3);
      },
    };
    expect(() => openDatabase(file, { postSteps: [dying] })).toThrow('killed');

    const half = new Database(file, { readonly: true });
    const state = half.prepare("SELECT cursor, completed_at FROM schema_steps WHERE name = 'library-sort-keys-2'").get() as { cursor: string; completed_at: number | null };
    expect(state.completed_at).toBeNull();
    expect(JSON.parse(state.cursor)).toMatchObject({ table: expect.any(String), after: expect.any(Number) });
    expect(staleKeys(half).length).toBeGreaterThan(0);
    // Killed with the sort indexes dropped: their definitions wait in the cursor.
    expect(indexes(half).defs.length).toBeLessThan(indexesBefore.defs.length);
    expect(JSON.parse(state.cursor).indexes.map((i: { name: string }) => i.name)).toContain('library_tracks_by_name');
    // Migrations themselves committed: 036 and 037 are recorded once.
    expect(half.prepare('SELECT COUNT(*) FROM schema_migrations WHERE version IN (36, 37)').pluck().get()).toBe(2);
    half.close();

    let resumed: (string | null)[] = [];
    const watching = {
      name: 'library-sort-keys-2',
      batch: (db: Db, cursor: string | null) => {
        resumed.push(cursor);
        return recomputeSortKeysBatch(db, cursor);
      },
    };
    const reported: [string, Record<string, unknown>][] = [];
    const db = openDatabase(file, { postSteps: [watching], reportStep: (msg, fields) => reported.push([msg, fields]) });
    expect(resumed[0]).toBe(state.cursor);
    expect(reported).toEqual([
      ['database upgrade step started', { step: 'library-sort-keys-2', resumed: true }],
      ['database upgrade step done', { step: 'library-sort-keys-2', batches: resumed.length, ms: expect.any(Number) }],
    ]);
    expect(staleKeys(db)).toEqual([]);
    expect(sameIndexes(indexes(db), indexesBefore)).toEqual(indexesBefore);
    db.close();

    resumed = [];
    openDatabase(file, { postSteps: [watching] }).close();
    expect(resumed).toEqual([]);
  });

  it('a new database completes the step at once', () => {
    const db = openDatabase(path.join(dir, 'fresh.db'));
    expect(db.prepare('SELECT COUNT(*) FROM schema_steps WHERE completed_at IS NULL').pluck().get()).toBe(0);
    db.close();
  });
});
