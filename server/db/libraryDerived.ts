import type { Db } from './connection.js';
import { KIND } from './libraryWrites.js';

const CHUNK = 500;

export interface DerivedResult {
  tracks: number;
  albums: number;
  artists: number;
}

/** Past this many dirty tracks (and half the library), one set-based rebuild beats entity-by-entity work. */
const REBUILD_THRESHOLD = 50_000;

/**
 * Recomputes everything derived from the entities marked in library_dirty: per-entity counts, sizes,
 * availability, source bits and `latest_media_at`; genre memberships; search documents. Whole-library
 * counts and genre statistics follow through triggers (migration 015). Runs in short transactions so
 * other writers never wait long. Meant for the scan worker (or any other writer's thread), not for
 * request handlers.
 */
export function refreshDerived(db: Db): DerivedResult {
  const s = statements(db);
  const dirtyTracks = s.countDirty.get(KIND.track) as number;
  if (dirtyTracks > REBUILD_THRESHOLD && dirtyTracks * 2 > ((s.maxTrackId.get() as number | null) ?? 0)) {
    return rebuildDerived(db);
  }
  const result = { tracks: 0, albums: 0, artists: 0 };
  for (const kind of [KIND.track, KIND.album, KIND.artist]) {
    for (;;) {
      const ids = (s.takeDirty.all(kind, CHUNK) as { entity_id: number }[]).map((r) => r.entity_id);
      if (ids.length === 0) break;
      db.transaction(() => {
        for (const id of ids) {
          if (kind === KIND.track) refreshTrack(s, id);
          else if (kind === KIND.album) refreshAlbum(s, id);
          else refreshArtist(s, id);
          s.clearDirty.run(kind, id);
        }
      }).immediate();
      if (kind === KIND.track) result.tracks += ids.length;
      else if (kind === KIND.album) result.albums += ids.length;
      else result.artists += ids.length;
    }
  }
  return result;
}

/**
 * Recomputes the derived data of every entity with set-based statements over id ranges (one short
 * transaction per range), rebuilds the search indexes in bulk and recounts the snapshots. For the
 * first index of a large library and for seeding; search answers only what is rebuilt so far.
 */
export function rebuildDerived(db: Db): DerivedResult {
  const range = (table: string) =>
    db.prepare(`SELECT COALESCE(MIN(id), 0) AS lo, COALESCE(MAX(id), -1) AS hi FROM ${table}`).get() as { lo: number; hi: number };
  const chunks = (table: string, size: number, fn: (lo: number, hi: number) => void) => {
    const { lo, hi } = range(table);
    for (let start = lo; start <= hi; start += size) {
      const end = Math.min(hi, start + size - 1);
      db.transaction(() => fn(start, end)).immediate();
    }
  };
  db.transaction(() => {
    for (const fts of ['library_artists_fts', 'library_albums_fts', 'library_tracks_fts']) {
      db.prepare(`INSERT INTO ${fts} (${fts}) VALUES ('delete-all')`).run();
    }
  }).immediate();

  const t = {
    clear: db.prepare(
      `UPDATE library_tracks SET size_on_disk = 0, available = 0, sources = 0, latest_media_at = 0
       WHERE id BETWEEN ? AND ? AND NOT EXISTS (SELECT 1 FROM library_media_files m WHERE m.track_id = library_tracks.id)`,
    ),
    update: db.prepare(
      `UPDATE library_tracks SET size_on_disk = m.size, available = m.available, sources = m.sources, latest_media_at = m.latest
       FROM (SELECT track_id, SUM(CASE WHEN available THEN size ELSE 0 END) AS size, MAX(available) AS available,
               MAX(source = 'aurral') | (MAX(source = 'lidarr') * 2) AS sources, MAX(created_at) AS latest
             FROM library_media_files WHERE track_id BETWEEN ? AND ? GROUP BY track_id) m
       WHERE library_tracks.id = m.track_id`,
    ),
    unlink: db.prepare('DELETE FROM library_genre_links WHERE kind = 3 AND entity_id BETWEEN ? AND ?'),
    link: db.prepare(
      `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT g.genre_id, 3, t.id, t.sort_name, t.latest_media_at, t.available
       FROM library_track_genres g JOIN library_tracks t ON t.id = g.track_id WHERE g.track_id BETWEEN ? AND ?`,
    ),
    docs: db.prepare(
      `INSERT INTO library_tracks_fts (rowid, doc)
       SELECT t.id, t.title || ' • ' || t.artist_name || ' • ' || COALESCE(a.title, '')
       FROM library_tracks t LEFT JOIN library_albums a ON a.id = t.album_id WHERE t.id BETWEEN ? AND ?`,
    ),
  };
  chunks('library_tracks', 50_000, (lo, hi) => {
    t.clear.run(lo, hi);
    t.update.run(lo, hi);
    t.unlink.run(lo, hi);
    t.link.run(lo, hi);
    t.docs.run(lo, hi);
  });

  const a = {
    clear: db.prepare(
      `UPDATE library_albums SET track_count = 0, available_track_count = 0, size_on_disk = 0, duration_ms = 0,
         sources = 0, available = 0, latest_media_at = 0
       WHERE id BETWEEN ? AND ? AND NOT EXISTS (SELECT 1 FROM library_album_tracks l WHERE l.album_id = library_albums.id)`,
    ),
    update: db.prepare(
      `UPDATE library_albums SET track_count = x.n, available_track_count = x.av, size_on_disk = x.size,
         duration_ms = x.duration, sources = x.sources, available = x.av > 0, latest_media_at = x.latest
       FROM (SELECT l.album_id, COUNT(*) AS n, SUM(t.available) AS av, SUM(t.size_on_disk) AS size,
               SUM(t.duration_ms) AS duration, MAX(t.sources & 1) | MAX(t.sources & 2) AS sources,
               MAX(t.latest_media_at) AS latest
             FROM library_album_tracks l JOIN library_tracks t ON t.id = l.track_id
             WHERE l.album_id BETWEEN ? AND ? GROUP BY l.album_id) x
       WHERE library_albums.id = x.album_id`,
    ),
    image: db.prepare(
      `UPDATE library_albums SET image_key = (SELECT m.image_key FROM library_media_files m
         WHERE m.album_id = library_albums.id AND m.image_key IS NOT NULL ORDER BY m.available DESC, m.id LIMIT 1)
       WHERE id BETWEEN ? AND ?`,
    ),
    unlink: db.prepare('DELETE FROM library_genre_links WHERE kind = 2 AND entity_id BETWEEN ? AND ?'),
    link: db.prepare(
      `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT DISTINCT g.genre_id, 2, a.id, a.sort_name, a.latest_media_at, a.available
       FROM library_album_tracks l JOIN library_track_genres g ON g.track_id = l.track_id
       JOIN library_albums a ON a.id = l.album_id WHERE l.album_id BETWEEN ? AND ?`,
    ),
    docs: db.prepare(
      `INSERT INTO library_albums_fts (rowid, doc)
       SELECT id, title || ' • ' || album_artist FROM library_albums WHERE id BETWEEN ? AND ?`,
    ),
  };
  chunks('library_albums', 20_000, (lo, hi) => {
    a.clear.run(lo, hi);
    a.update.run(lo, hi);
    a.image.run(lo, hi);
    a.unlink.run(lo, hi);
    a.link.run(lo, hi);
    a.docs.run(lo, hi);
  });

  const tracksOfArtists = `
    SELECT artist_id, id AS track_id FROM library_tracks WHERE artist_id BETWEEN @lo AND @hi
    UNION SELECT al.artist_id, l.track_id FROM library_albums al JOIN library_album_tracks l ON l.album_id = al.id
    WHERE al.artist_id BETWEEN @lo AND @hi`;
  const r = {
    update: db.prepare(
      `WITH ids AS (${tracksOfArtists}),
       agg AS (SELECT ids.artist_id, COUNT(*) AS n, SUM(t.available) AS av, SUM(t.size_on_disk) AS size,
                 MAX(t.sources & 1) | MAX(t.sources & 2) AS sources, MAX(t.latest_media_at) AS latest
               FROM ids JOIN library_tracks t ON t.id = ids.track_id GROUP BY ids.artist_id)
       UPDATE library_artists SET
         album_count = (SELECT COUNT(*) FROM library_albums WHERE artist_id = library_artists.id),
         track_count = COALESCE(y.n, 0), available_track_count = COALESCE(y.av, 0),
         size_on_disk = COALESCE(y.size, 0), sources = COALESCE(y.sources, 0),
         available = COALESCE(y.av, 0) > 0, latest_media_at = COALESCE(y.latest, 0),
         image_key = (SELECT image_key FROM library_albums WHERE artist_id = library_artists.id AND image_key IS NOT NULL
           ORDER BY available DESC, year DESC, id LIMIT 1)
       FROM (SELECT e.id AS artist_id, x.n, x.av, x.size, x.sources, x.latest
             FROM library_artists e LEFT JOIN agg x ON x.artist_id = e.id WHERE e.id BETWEEN @lo AND @hi) y
       WHERE library_artists.id = y.artist_id`,
    ),
    unlink: db.prepare('DELETE FROM library_genre_links WHERE kind = 1 AND entity_id BETWEEN @lo AND @hi'),
    link: db.prepare(
      `WITH ids AS (${tracksOfArtists})
       INSERT OR IGNORE INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT DISTINCT g.genre_id, 1, a.id, a.sort_name, a.latest_media_at, a.available
       FROM ids JOIN library_track_genres g ON g.track_id = ids.track_id JOIN library_artists a ON a.id = ids.artist_id`,
    ),
    docs: db.prepare(
      'INSERT INTO library_artists_fts (rowid, doc) SELECT id, name FROM library_artists WHERE id BETWEEN @lo AND @hi',
    ),
  };
  chunks('library_artists', 2_000, (lo, hi) => {
    r.update.run({ lo, hi });
    r.unlink.run({ lo, hi });
    r.link.run({ lo, hi });
    r.docs.run({ lo, hi });
  });

  // One segment per index: later small commits then merge small segments only, not the bulk-built ones.
  for (const fts of ['library_artists_fts', 'library_albums_fts', 'library_tracks_fts']) {
    db.prepare(`INSERT INTO ${fts} (${fts}) VALUES ('optimize')`).run();
  }
  const result = {
    tracks: db.prepare('DELETE FROM library_dirty WHERE kind = 3').run().changes,
    albums: db.prepare('DELETE FROM library_dirty WHERE kind = 2').run().changes,
    artists: db.prepare('DELETE FROM library_dirty WHERE kind = 1').run().changes,
  };
  recountSnapshots(db);
  return result;
}

const COUNT_TABLES = [['artists', 'library_artists'], ['albums', 'library_albums'], ['tracks', 'library_tracks']] as const;

/**
 * Recounts the whole-library counts and genre statistics from scratch (the triggers of migration 015
 * keep them current otherwise): after a bulk rebuild, or to repair drift.
 */
export function recountSnapshots(db: Db): void {
  db.transaction(() => {
    db.prepare('DELETE FROM library_genre_stats').run();
    db.prepare(
      `INSERT INTO library_genre_stats (genre_id, artist_count, album_count, track_count, available_artist_count,
         available_album_count, available_track_count)
       SELECT genre_id, SUM(kind = 1), SUM(kind = 2), SUM(kind = 3), SUM(kind = 1 AND available),
         SUM(kind = 2 AND available), SUM(kind = 3 AND available)
       FROM library_genre_links GROUP BY genre_id`,
    ).run();
    const put = db.prepare('INSERT OR REPLACE INTO library_stats (key, value) VALUES (?, ?)');
    for (const [kind, table] of COUNT_TABLES) {
      const row = db
        .prepare(
          `SELECT COUNT(*) AS total, COALESCE(SUM(available), 0) AS avail,
             COALESCE(SUM(sources & 1 != 0), 0) AS aurral, COALESCE(SUM(sources & 1 != 0 AND available), 0) AS aurralAvail,
             COALESCE(SUM(sources & 2 != 0), 0) AS lidarr, COALESCE(SUM(sources & 2 != 0 AND available), 0) AS lidarrAvail
           FROM ${table}`,
        )
        .get() as Record<string, number>;
      put.run(`${kind}:all:0`, row.total ?? 0);
      put.run(`${kind}:all:1`, row.avail ?? 0);
      put.run(`${kind}:aurral:0`, row.aurral ?? 0);
      put.run(`${kind}:aurral:1`, row.aurralAvail ?? 0);
      put.run(`${kind}:lidarr:0`, row.lidarr ?? 0);
      put.run(`${kind}:lidarr:1`, row.lidarrAvail ?? 0);
    }
    put.run('genres:all:0', db.prepare('SELECT COUNT(*) FROM library_genre_stats').pluck().get() as number);
    put.run(
      'genres:all:1',
      db.prepare('SELECT COUNT(*) FROM library_genre_stats WHERE available_track_count > 0').pluck().get() as number,
    );
  }).immediate();
}

type Statements = ReturnType<typeof build>;
const cache = new WeakMap<Db, Statements>();

function statements(db: Db): Statements {
  const found = cache.get(db);
  if (found) return found;
  const s = build(db);
  cache.set(db, s);
  return s;
}

function build(db: Db) {
  return {
    takeDirty: db.prepare('SELECT entity_id FROM library_dirty WHERE kind = ? LIMIT ?'),
    countDirty: db.prepare('SELECT COUNT(*) FROM library_dirty WHERE kind = ?').pluck(),
    maxTrackId: db.prepare('SELECT MAX(id) FROM library_tracks').pluck(),
    clearDirty: db.prepare('DELETE FROM library_dirty WHERE kind = ? AND entity_id = ?'),
    markDirty: db.prepare('INSERT OR IGNORE INTO library_dirty (kind, entity_id) VALUES (?, ?)'),
    trackRow: db.prepare(
      `SELECT t.id, t.title, t.artist_name, t.artist_id, t.album_id, a.title AS album_title
       FROM library_tracks t LEFT JOIN library_albums a ON a.id = t.album_id WHERE t.id = ?`,
    ),
    trackAgg: db.prepare(
      `SELECT COALESCE(SUM(CASE WHEN available THEN size ELSE 0 END), 0) AS size,
         COALESCE(MAX(available), 0) AS available,
         COALESCE(MAX(source = 'aurral'), 0) | (COALESCE(MAX(source = 'lidarr'), 0) * 2) AS sources,
         COALESCE(MAX(created_at), 0) AS latest
       FROM library_media_files WHERE track_id = ?`,
    ),
    updateTrack: db.prepare(
      'UPDATE library_tracks SET size_on_disk = ?, available = ?, sources = ?, latest_media_at = ? WHERE id = ?',
    ),
    trackAlbums: db.prepare('SELECT album_id FROM library_album_tracks WHERE track_id = ?'),
    trackGenreLinks: db.prepare(
      `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT g.genre_id, 3, t.id, t.sort_name, t.latest_media_at, t.available
       FROM library_track_genres g JOIN library_tracks t ON t.id = g.track_id WHERE g.track_id = ?`,
    ),
    clearLinks: db.prepare('DELETE FROM library_genre_links WHERE kind = ? AND entity_id = ?'),
    albumRow: db.prepare('SELECT id, title, album_artist, artist_id FROM library_albums WHERE id = ?'),
    albumAgg: db.prepare(
      `SELECT COUNT(*) AS trackCount, COALESCE(SUM(t.available), 0) AS availableCount,
         COALESCE(SUM(t.size_on_disk), 0) AS size, COALESCE(SUM(t.duration_ms), 0) AS duration,
         COALESCE(MAX(t.sources & 1), 0) | COALESCE(MAX(t.sources & 2), 0) AS sources,
         COALESCE(MAX(t.latest_media_at), 0) AS latest
       FROM library_album_tracks l JOIN library_tracks t ON t.id = l.track_id WHERE l.album_id = ?`,
    ),
    albumImage: db.prepare(
      `SELECT image_key FROM library_media_files WHERE album_id = ? AND image_key IS NOT NULL
       ORDER BY available DESC, id LIMIT 1`,
    ),
    updateAlbum: db.prepare(
      `UPDATE library_albums SET track_count = ?, available_track_count = ?, size_on_disk = ?, duration_ms = ?,
         sources = ?, available = ?, latest_media_at = ?, image_key = ? WHERE id = ?`,
    ),
    albumGenreLinks: db.prepare(
      `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT DISTINCT g.genre_id, 2, a.id, a.sort_name, a.latest_media_at, a.available
       FROM library_album_tracks l JOIN library_track_genres g ON g.track_id = l.track_id
       JOIN library_albums a ON a.id = l.album_id WHERE l.album_id = ?`,
    ),
    artistRow: db.prepare('SELECT id, name FROM library_artists WHERE id = ?'),
    artistAgg: db.prepare(
      `WITH ids AS (
         SELECT id FROM library_tracks WHERE artist_id = @id
         UNION SELECT l.track_id FROM library_albums a JOIN library_album_tracks l ON l.album_id = a.id
         WHERE a.artist_id = @id)
       SELECT COUNT(*) AS trackCount, COALESCE(SUM(t.available), 0) AS availableCount,
         COALESCE(SUM(t.size_on_disk), 0) AS size,
         COALESCE(MAX(t.sources & 1), 0) | COALESCE(MAX(t.sources & 2), 0) AS sources,
         COALESCE(MAX(t.latest_media_at), 0) AS latest
       FROM ids JOIN library_tracks t ON t.id = ids.id`,
    ),
    artistAlbums: db.prepare(
      `SELECT COUNT(*) AS n, (SELECT image_key FROM library_albums WHERE artist_id = @id AND image_key IS NOT NULL
         ORDER BY available DESC, year DESC, id LIMIT 1) AS image
       FROM library_albums WHERE artist_id = @id`,
    ),
    updateArtist: db.prepare(
      `UPDATE library_artists SET album_count = ?, track_count = ?, available_track_count = ?, size_on_disk = ?,
         sources = ?, available = ?, latest_media_at = ?, image_key = ? WHERE id = ?`,
    ),
    artistGenreLinks: db.prepare(
      `INSERT OR IGNORE INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT DISTINCT g.genre_id, 1, a.id, a.sort_name, a.latest_media_at, a.available
       FROM library_artists a
       JOIN (SELECT id AS track_id FROM library_tracks WHERE artist_id = @id
             UNION SELECT l.track_id FROM library_albums al JOIN library_album_tracks l ON l.album_id = al.id
             WHERE al.artist_id = @id) ids
       JOIN library_track_genres g ON g.track_id = ids.track_id
       WHERE a.id = @id`,
    ),
    ftsDelete: {
      [KIND.artist]: db.prepare('DELETE FROM library_artists_fts WHERE rowid = ?'),
      [KIND.album]: db.prepare('DELETE FROM library_albums_fts WHERE rowid = ?'),
      [KIND.track]: db.prepare('DELETE FROM library_tracks_fts WHERE rowid = ?'),
    } as Record<number, { run(...args: unknown[]): unknown }>,
    ftsInsert: {
      [KIND.artist]: db.prepare('INSERT INTO library_artists_fts (rowid, doc) VALUES (?, ?)'),
      [KIND.album]: db.prepare('INSERT INTO library_albums_fts (rowid, doc) VALUES (?, ?)'),
      [KIND.track]: db.prepare('INSERT INTO library_tracks_fts (rowid, doc) VALUES (?, ?)'),
    } as Record<number, { run(...args: unknown[]): unknown }>,
  };
}

function setDoc(s: Statements, kind: number, id: number, doc: string | null): void {
  s.ftsDelete[kind]!.run(id);
  if (doc !== null) s.ftsInsert[kind]!.run(id, doc);
}

function refreshTrack(s: Statements, id: number): void {
  const t = s.trackRow.get(id) as
    | { id: number; title: string; artist_name: string; artist_id: number | null; album_id: number | null; album_title: string | null }
    | undefined;
  s.clearLinks.run(KIND.track, id);
  if (!t) {
    setDoc(s, KIND.track, id, null);
    return;
  }
  const agg = s.trackAgg.get(id) as { size: number; available: number; sources: number; latest: number };
  s.updateTrack.run(agg.size, agg.available, agg.sources, agg.latest, id);
  s.trackGenreLinks.run(id);
  setDoc(s, KIND.track, id, [t.title, t.artist_name, t.album_title ?? ''].join(' \u2022 '));
  if (t.artist_id !== null) s.markDirty.run(KIND.artist, t.artist_id);
  if (t.album_id !== null) s.markDirty.run(KIND.album, t.album_id);
  for (const l of s.trackAlbums.all(id) as { album_id: number }[]) s.markDirty.run(KIND.album, l.album_id);
}

function refreshAlbum(s: Statements, id: number): void {
  const a = s.albumRow.get(id) as { id: number; title: string; album_artist: string; artist_id: number } | undefined;
  s.clearLinks.run(KIND.album, id);
  if (!a) {
    setDoc(s, KIND.album, id, null);
    return;
  }
  const agg = s.albumAgg.get(id) as {
    trackCount: number; availableCount: number; size: number; duration: number; sources: number; latest: number;
  };
  const image = (s.albumImage.get(id) as { image_key: string } | undefined)?.image_key ?? null;
  s.updateAlbum.run(
    agg.trackCount, agg.availableCount, agg.size, agg.duration, agg.sources, agg.availableCount > 0 ? 1 : 0,
    agg.latest, image, id,
  );
  s.albumGenreLinks.run(id);
  setDoc(s, KIND.album, id, `${a.title} \u2022 ${a.album_artist}`);
  s.markDirty.run(KIND.artist, a.artist_id);
}

function refreshArtist(s: Statements, id: number): void {
  const a = s.artistRow.get(id) as { id: number; name: string } | undefined;
  s.clearLinks.run(KIND.artist, id);
  if (!a) {
    setDoc(s, KIND.artist, id, null);
    return;
  }
  const agg = s.artistAgg.get({ id }) as {
    trackCount: number; availableCount: number; size: number; sources: number; latest: number;
  };
  const albums = s.artistAlbums.get({ id }) as { n: number; image: string | null };
  s.updateArtist.run(
    albums.n, agg.trackCount, agg.availableCount, agg.size, agg.sources, agg.availableCount > 0 ? 1 : 0, agg.latest,
    albums.image, id,
  );
  s.artistGenreLinks.run({ id });
  setDoc(s, KIND.artist, id, a.name);
}
