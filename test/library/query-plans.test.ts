import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { LibraryReader, type CanonicalQuery } from '../../server/db/libraryReads.js';
import { rebuildDerived, recountSnapshots, refreshDerived } from '../../server/db/libraryDerived.js';
import { LibraryWriter } from '../../server/db/libraryWrites.js';

let dir: string;
let db: Db;
let reader: LibraryReader;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-plans-'));
  db = openDatabase(path.join(dir, 'plans.db'));
  const w = new LibraryWriter(db);
  db.transaction(() => {
    for (let a = 0; a < 20; a++) {
      const artistId = w.upsertArtist({ identityKey: `a${a}`, name: `Artist ${a}` }, a);
      for (let b = 0; b < 5; b++) {
        const albumId = w.upsertAlbum({ identityKey: `b${a}-${b}`, artistId, title: `Album ${b}`, albumArtist: `Artist ${a}`, releaseDate: String(1990 + b) }, a);
        for (let t = 0; t < 10; t++) {
          const trackId = w.upsertTrack({ identityKey: `t${a}-${b}-${t}`, title: `Track ${t}`, artistName: `Artist ${a}`, artistId, albumId, albumTitle: `Album ${b}`, trackNumber: t, genres: [`G${t % 3}`] }, a);
          w.upsertMediaFile({ source: 'aurral', path: `/m/${a}/${b}/${t}`, trackId, albumId, size: 1, mtimeMs: 1 }, a * 100 + t);
        }
      }
    }
  })();
  refreshDerived(db);
  db.exec('ANALYZE');
  reader = new LibraryReader(db);
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function plan(q: CanonicalQuery): string {
  const sql = reader.explainPage(q).filter((s) => /ORDER BY/.test(s)).pop()!;
  const params = (sql.match(/\?/g) ?? []).map(() => 1);
  if (/MATCH \?/.test(sql)) params[params.length - 3] = '"' + q.query + '"' as unknown as number;
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
}

describe('canonical page query plans', () => {
  const cases: [string, CanonicalQuery, RegExp][] = [
    ['artists by name', { kind: 'artists', page: 1, pageSize: 50, sort: 'name' }, /library_artists_by_name/],
    ['albums by newest', { kind: 'albums', page: 1, pageSize: 50, sort: 'newest' }, /library_albums_by_newest/],
    ['albums by year', { kind: 'albums', page: 1, pageSize: 50, sort: 'year' }, /library_albums_by_year/],
    ['albums by artist', { kind: 'albums', page: 1, pageSize: 50, sort: 'artist' }, /library_albums_by_artist/],
    ['tracks by name', { kind: 'tracks', page: 1, pageSize: 50, sort: 'name' }, /library_tracks_by_name/],
    ['tracks by newest', { kind: 'tracks', page: 1, pageSize: 50, sort: 'newest' }, /library_tracks_by_newest/],
    ['tracks by album', { kind: 'tracks', page: 1, pageSize: 50, sort: 'album' }, /library_tracks_by_album/],
    ['available tracks by artist', { kind: 'tracks', page: 1, pageSize: 50, sort: 'artist', availableOnly: true }, /library_tracks_by_artist/],
    ['tracks of a genre by name', { kind: 'tracks', page: 1, pageSize: 50, genre: 'G1' }, /library_genre_links_by_name/],
    ['albums of an artist', { kind: 'albums', page: 1, pageSize: 50, artistId: 1, sort: 'year' }, /library_albums_of_artist/],
    ['tracks of an album', { kind: 'tracks', page: 1, pageSize: 50, albumId: 1 }, /library_album_tracks_order|sqlite_autoindex_library_album_tracks/],
    ['tracks of a common genre by artist', { kind: 'tracks', page: 1, pageSize: 50, genre: 'G1', sort: 'artist' }, /library_tracks_by_artist/],
    ['albums of a common genre by year, last page', { kind: 'albums', page: 2, pageSize: 50, genre: 'G1', sort: 'year' }, /library_albums_by_year/],
    ['tracks matching a common word by name', { kind: 'tracks', page: 1, pageSize: 50, query: 'track' }, /library_tracks_by_name/],
    ['albums matching a common word, newest first', { kind: 'albums', page: 1, pageSize: 50, query: 'album', sort: 'newest' }, /library_albums_by_newest/],
  ];
  for (const [label, q, index] of cases) {
    it(`walks an index without a sort step: ${label}`, () => {
      const p = plan(q);
      expect(p).toMatch(index);
      expect(p).not.toMatch(/TEMP B-TREE/);
    });
  }
});

describe('derived data', () => {
  it('rebuilds set-based to exactly what the entity-by-entity refresh computed', () => {
    const snapshot = () => ({
      artists: db.prepare('SELECT id, album_count, appears_on_count, track_count, available_track_count, size_on_disk, sources, available, latest_media_at, image_key FROM library_artists ORDER BY id').all(),
      albums: db.prepare('SELECT id, track_count, available_track_count, size_on_disk, duration_ms, sources, available, latest_media_at, image_key FROM library_albums ORDER BY id').all(),
      tracks: db.prepare('SELECT id, size_on_disk, sources, available, latest_media_at FROM library_tracks ORDER BY id').all(),
      links: db.prepare('SELECT * FROM library_genre_links ORDER BY kind, entity_id, genre_id').all(),
      genreStats: db.prepare('SELECT * FROM library_genre_stats ORDER BY genre_id').all(),
      stats: db.prepare('SELECT * FROM library_stats ORDER BY key').all(),
      search: ['Track 3', 'Album 2', 'Artist 1'].map((w) => reader.canonicalPage({ kind: 'tracks', page: 1, pageSize: 100, query: w }).rows.map((r) => r.id)),
    });
    const before = snapshot();
    expect(before.stats).toContainEqual({ key: 'tracks:all:1', value: 1000 });
    rebuildDerived(db);
    expect(snapshot()).toEqual(before);
    recountSnapshots(db);
    expect(snapshot()).toEqual(before);
  });
});

describe('appearance pages (an artist on other artists\' albums)', () => {
  beforeAll(() => {
    // A compilation by artist 20 with a track of artist 1 (after the derived-data checks above).
    const w = new LibraryWriter(db);
    db.transaction(() => {
      const comp = w.upsertAlbum({ identityKey: 'comp', artistId: 20, title: 'Hits 1', albumArtist: 'Artist 19' }, 1);
      const trackId = w.upsertTrack({ identityKey: 'comp-1', title: 'Guest', artistName: 'Artist 0', artistId: 1, albumId: comp, albumTitle: 'Hits 1', trackNumber: 1 }, 1);
      w.upsertMediaFile({ source: 'aurral', path: '/m/comp/1', trackId, albumId: comp, size: 1, mtimeMs: 1 }, 1);
    })();
    refreshDerived(db);
    expect(reader.artist(1)?.appears_on_count).toBe(1);
  });
  // Bounded by the artist's own tracks: found through its track index, never a walk of every album or track.
  for (const q of [
    { kind: 'albums', page: 1, pageSize: 50, appearsOn: 1, sort: 'year' },
    { kind: 'tracks', page: 1, pageSize: 50, appearsOn: 1, sort: 'album' },
  ] as CanonicalQuery[]) {
    it(`${q.kind} start from the artist's tracks`, () => {
      const p = plan(q);
      expect(p).toMatch(/library_tracks_of_artist/);
      expect(p).not.toMatch(/SCAN (e|t|al|al2|l|l2)\b(?! USING)/);
    });
  }
});

describe('as-you-type suggestions', () => {
  it('puts names starting with the words first, then other matches in name order, and reads no more than it needs', () => {
    // "Track 1" starts 20 × 5 track names; "album" starts none, it is only in their search documents.
    expect((reader.suggest('tracks', 'track 1', 3) as { title: string }[]).map((t) => t.title)).toEqual(['Track 1', 'Track 1', 'Track 1']);
    const byAlbum = reader.suggest('tracks', 'album', 4) as { title: string; album_title: string | null }[];
    expect(byAlbum).toHaveLength(4);
    expect(byAlbum.every((t) => t.album_title?.startsWith('Album '))).toBe(true);
    expect(byAlbum.map((t) => t.title)).toEqual([...byAlbum.map((t) => t.title)].sort());
    // Prefix hits first, then the full-text ones: "Artist 1" starts artist names, "rtist 1" only matches inside them.
    // (Sort keys pad numbers, so "artist 1" starts only "Artist 1"; then full-text matches holding a "1".)
    expect((reader.suggest('artists', 'artist 1', 3) as { name: string }[]).map((a) => a.name)).toEqual(['Artist 1', 'Artist 10', 'Artist 11']);
    expect((reader.suggest('artists', 'rtist', 3) as { name: string }[]).map((a) => a.name)).toEqual(['Artist 0', 'Artist 1', 'Artist 2']);
    expect(reader.suggest('albums', 'nothing like this', 5)).toEqual([]);
    expect(reader.suggest('albums', '  ', 5)).toEqual([]);
    // Neither query walks a whole table: the name index by prefix, the full-text index with a limit.
    const plans = ['SELECT id FROM library_tracks WHERE sort_name >= ? AND sort_name < ? AND flow_hidden = 0 ORDER BY sort_name, id LIMIT ?'].map((sql) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('a', 'b', 5) as { detail: string }[]).map((r) => r.detail).join(' | '),
    );
    expect(plans[0]).toMatch(/library_tracks_by_name \(sort_name>\? AND sort_name<\?\)/);
  });
});
