import type { Db } from './connection.js';
import { trackHiddenSql } from './flowVisibility.js';
import { KIND } from './libraryWrites.js';

/** Dirty entities per set-based refresh transaction, by kind. */
const CHUNK: Record<number, number> = { [KIND.track]: 2000, [KIND.album]: 1000, [KIND.artist]: 250 };

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
  // Tracks first (they mark their albums and artists dirty), then albums (they mark their artists).
  for (const kind of [KIND.track, KIND.album, KIND.artist]) {
    const steps = s.steps[kind]!;
    for (;;) {
      // Asked outside a transaction: with nothing dirty, no write lock is taken (other writers, such
      // as the main thread's job updates, never wait for an empty refresh).
      if ((s.countDirty.get(kind) as number) === 0) break;
      let n = 0;
      db.transaction(() => {
        s.clearIds.run();
        n = s.takeIds.run(kind, CHUNK[kind]!).changes;
        if (n === 0) return;
        for (const step of steps) step.run();
        s.clearTaken.run(kind);
      }).immediate();
      if (n === 0) break;
      if (kind === KIND.track) result.tracks += n;
      else if (kind === KIND.album) result.albums += n;
      else result.artists += n;
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
    // Only tracks hidden now or with a file a flow filed can be hidden: the rule runs for those alone.
    hidden: db.prepare(
      `UPDATE library_tracks SET flow_hidden = ${trackHiddenSql('library_tracks.id')}
       WHERE id BETWEEN @lo AND @hi AND (flow_hidden = 1 OR id IN (
         SELECT m.track_id FROM download_jobs j JOIN library_media_files m ON m.path = j.final_path
         WHERE j.playlist_type = 'flow' AND m.track_id BETWEEN @lo AND @hi))`,
    ),
    unlink: db.prepare('DELETE FROM library_genre_links WHERE kind = 3 AND entity_id BETWEEN ? AND ?'),
    link: db.prepare(
      `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
       SELECT g.genre_id, 3, t.id, t.sort_name, t.latest_media_at, t.available
       FROM library_track_genres g JOIN library_tracks t ON t.id = g.track_id WHERE g.track_id BETWEEN ? AND ? AND t.flow_hidden = 0`,
    ),
    docs: db.prepare(
      `INSERT INTO library_tracks_fts (rowid, doc)
       SELECT t.id, t.title || ' • ' || t.artist_name || ' • ' || COALESCE(a.title, '')
       FROM library_tracks t LEFT JOIN library_albums a ON a.id = t.album_id WHERE t.id BETWEEN ? AND ? AND t.flow_hidden = 0`,
    ),
  };
  chunks('library_tracks', 50_000, (lo, hi) => {
    t.clear.run(lo, hi);
    t.update.run(lo, hi);
    t.hidden.run({ lo, hi });
    t.unlink.run(lo, hi);
    t.link.run(lo, hi);
    t.docs.run(lo, hi);
  });

  const a = {
    clear: db.prepare(
      `UPDATE library_albums SET track_count = 0, available_track_count = 0, size_on_disk = 0, duration_ms = 0,
         sources = 0, available = 0, latest_media_at = 0, flow_hidden = 0
       WHERE id BETWEEN ? AND ? AND NOT EXISTS (SELECT 1 FROM library_album_tracks l WHERE l.album_id = library_albums.id)`,
    ),
    update: db.prepare(
      `UPDATE library_albums SET track_count = x.n, available_track_count = x.av, size_on_disk = x.size,
         duration_ms = x.duration, sources = x.sources, available = x.av > 0, latest_media_at = x.latest,
         flow_hidden = x.n = 0
       FROM (SELECT l.album_id, COUNT(t.id) AS n, COALESCE(SUM(t.available), 0) AS av, COALESCE(SUM(t.size_on_disk), 0) AS size,
               COALESCE(SUM(t.duration_ms), 0) AS duration, COALESCE(MAX(t.sources & 1), 0) | COALESCE(MAX(t.sources & 2), 0) AS sources,
               COALESCE(MAX(t.latest_media_at), 0) AS latest
             FROM library_album_tracks l LEFT JOIN library_tracks t ON t.id = l.track_id AND t.flow_hidden = 0
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
       JOIN library_tracks t ON t.id = l.track_id AND t.flow_hidden = 0
       JOIN library_albums a ON a.id = l.album_id WHERE l.album_id BETWEEN ? AND ?`,
    ),
    docs: db.prepare(
      `INSERT INTO library_albums_fts (rowid, doc)
       SELECT id, title || ' • ' || album_artist FROM library_albums WHERE id BETWEEN ? AND ? AND flow_hidden = 0`,
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

  const idRange = 'BETWEEN @lo AND @hi';
  const r = {
    update: db.prepare(artistRollupSql(idRange)),
    unlink: db.prepare('DELETE FROM library_genre_links WHERE kind = 1 AND entity_id BETWEEN @lo AND @hi'),
    link: db.prepare(artistGenreLinksSql(idRange)),
    docs: db.prepare(
      'INSERT INTO library_artists_fts (rowid, doc) SELECT id, name FROM library_artists WHERE id BETWEEN @lo AND @hi AND flow_hidden = 0',
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
           FROM ${table} WHERE flow_hidden = 0`,
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

/** The ids of one refresh chunk, in a temporary table of the connection. */
const IDS = 'SELECT id FROM temp.library_refresh_ids';

function build(db: Db) {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS library_refresh_ids (id INTEGER PRIMARY KEY)');
  const chunk = `IN (${IDS})`;
  const track = [
    // Flow visibility first: a hidden track gets no genre membership and no search document.
    `UPDATE library_tracks SET flow_hidden = x.hidden
     FROM (SELECT d.id AS track_id, ${trackHiddenSql('d.id')} AS hidden FROM temp.library_refresh_ids d) x
     WHERE library_tracks.id = x.track_id AND library_tracks.flow_hidden != x.hidden`,
    `DELETE FROM library_genre_links WHERE kind = 3 AND entity_id IN (${IDS})`,
    // Only rows whose values change are written (and so only they touch indexes and count triggers).
    `UPDATE library_tracks SET size_on_disk = x.size, available = x.available, sources = x.sources,
       latest_media_at = x.latest
     FROM (SELECT d.id AS track_id, COALESCE(SUM(CASE WHEN m.available THEN m.size ELSE 0 END), 0) AS size,
             COALESCE(MAX(m.available), 0) AS available,
             COALESCE(MAX(m.source = 'aurral'), 0) | (COALESCE(MAX(m.source = 'lidarr'), 0) * 2) AS sources,
             COALESCE(MAX(m.created_at), 0) AS latest
           FROM temp.library_refresh_ids d LEFT JOIN library_media_files m ON m.track_id = d.id GROUP BY d.id) x
     WHERE library_tracks.id = x.track_id
       AND (library_tracks.size_on_disk, library_tracks.available, library_tracks.sources,
         library_tracks.latest_media_at) IS NOT (x.size, x.available, x.sources, x.latest)`,
    `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
     SELECT g.genre_id, 3, t.id, t.sort_name, t.latest_media_at, t.available
     FROM library_track_genres g JOIN library_tracks t ON t.id = g.track_id WHERE g.track_id IN (${IDS}) AND t.flow_hidden = 0`,
    `DELETE FROM library_tracks_fts WHERE rowid IN (${IDS})`,
    `INSERT INTO library_tracks_fts (rowid, doc)
     SELECT t.id, t.title || ' \u2022 ' || t.artist_name || ' \u2022 ' || COALESCE(a.title, '')
     FROM library_tracks t LEFT JOIN library_albums a ON a.id = t.album_id WHERE t.id IN (${IDS}) AND t.flow_hidden = 0`,
    `INSERT OR IGNORE INTO library_dirty (kind, entity_id)
     SELECT 2, album_id FROM library_tracks WHERE id IN (${IDS}) AND album_id IS NOT NULL
     UNION SELECT 2, album_id FROM library_album_tracks WHERE track_id IN (${IDS})
     UNION SELECT 1, artist_id FROM library_tracks WHERE id IN (${IDS}) AND artist_id IS NOT NULL`,
  ];
  const album = [
    `DELETE FROM library_genre_links WHERE kind = 2 AND entity_id IN (${IDS})`,
    // Counts of the tracks the library shows; an album whose tracks are all hidden is hidden.
    `UPDATE library_albums SET track_count = x.n, available_track_count = x.av, size_on_disk = x.size,
       duration_ms = x.duration, sources = x.sources, available = x.av > 0, latest_media_at = x.latest,
       flow_hidden = x.n = 0 AND x.linked > 0,
       image_key = (SELECT m.image_key FROM library_media_files m WHERE m.album_id = library_albums.id
         AND m.image_key IS NOT NULL ORDER BY m.available DESC, m.id LIMIT 1)
     FROM (SELECT d.id AS album_id, COUNT(t.id) AS n, COUNT(l.track_id) AS linked, COALESCE(SUM(t.available), 0) AS av,
             COALESCE(SUM(t.size_on_disk), 0) AS size, COALESCE(SUM(t.duration_ms), 0) AS duration,
             COALESCE(MAX(t.sources & 1), 0) | COALESCE(MAX(t.sources & 2), 0) AS sources,
             COALESCE(MAX(t.latest_media_at), 0) AS latest
           FROM temp.library_refresh_ids d LEFT JOIN library_album_tracks l ON l.album_id = d.id
           LEFT JOIN library_tracks t ON t.id = l.track_id AND t.flow_hidden = 0 GROUP BY d.id) x
     WHERE library_albums.id = x.album_id`,
    `INSERT INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
     SELECT DISTINCT g.genre_id, 2, a.id, a.sort_name, a.latest_media_at, a.available
     FROM library_album_tracks l JOIN library_track_genres g ON g.track_id = l.track_id
     JOIN library_tracks t ON t.id = l.track_id AND t.flow_hidden = 0
     JOIN library_albums a ON a.id = l.album_id WHERE l.album_id IN (${IDS})`,
    `DELETE FROM library_albums_fts WHERE rowid IN (${IDS})`,
    `INSERT INTO library_albums_fts (rowid, doc)
     SELECT id, title || ' \u2022 ' || album_artist FROM library_albums WHERE id IN (${IDS}) AND flow_hidden = 0`,
    `INSERT OR IGNORE INTO library_dirty (kind, entity_id) SELECT 1, artist_id FROM library_albums WHERE id IN (${IDS})`,
  ];
  const artist = [
    `DELETE FROM library_genre_links WHERE kind = 1 AND entity_id IN (${IDS})`,
    artistRollupSql(chunk),
    artistGenreLinksSql(chunk),
    `DELETE FROM library_artists_fts WHERE rowid IN (${IDS})`,
    `INSERT INTO library_artists_fts (rowid, doc) SELECT id, name FROM library_artists WHERE id IN (${IDS}) AND flow_hidden = 0`,
  ];
  return {
    countDirty: db.prepare('SELECT COUNT(*) FROM library_dirty WHERE kind = ?').pluck(),
    maxTrackId: db.prepare('SELECT MAX(id) FROM library_tracks').pluck(),
    clearIds: db.prepare('DELETE FROM temp.library_refresh_ids'),
    takeIds: db.prepare('INSERT INTO temp.library_refresh_ids (id) SELECT entity_id FROM library_dirty WHERE kind = ? LIMIT ?'),
    clearTaken: db.prepare(`DELETE FROM library_dirty WHERE kind = ? AND entity_id IN (${IDS})`),
    steps: {
      [KIND.track]: track.map((sql) => db.prepare(sql)),
      [KIND.album]: album.map((sql) => db.prepare(sql)),
      [KIND.artist]: artist.map((sql) => db.prepare(sql)),
    } as Record<number, { run(): unknown }[]>,
  };
}

/** Own tracks and album tracks of the artists whose id matches `artistIn` (e.g. `BETWEEN @lo AND @hi`). */
const tracksOfArtistsSql = (artistIn: string, hidden = 0) => `
  SELECT artist_id, id AS track_id FROM library_tracks WHERE artist_id ${artistIn} AND flow_hidden = ${hidden}
  UNION SELECT al.artist_id, l.track_id FROM library_albums al JOIN library_album_tracks l ON l.album_id = al.id
  JOIN library_tracks t ON t.id = l.track_id AND t.flow_hidden = ${hidden}
  WHERE al.artist_id ${artistIn}`;

/**
 * How many albums of other artists carry a track of the artist (compilations, features): the albums
 * linked to its tracks whose album artist is someone else. Walks the artist's tracks by index.
 */
function appearsOnCountSql(artistId: string): string {
  return `SELECT COUNT(DISTINCT l.album_id) FROM library_tracks t
    JOIN library_album_tracks l ON l.track_id = t.id JOIN library_albums al ON al.id = l.album_id
    WHERE t.artist_id = ${artistId} AND al.artist_id != ${artistId} AND t.flow_hidden = 0 AND al.flow_hidden = 0`;
}

/** Recomputes counts, size, sources, availability, newest media and image of the matching artists. */
function artistRollupSql(artistIn: string): string {
  return `WITH ids AS (${tracksOfArtistsSql(artistIn)}),
     agg AS (SELECT ids.artist_id, COUNT(*) AS n, SUM(t.available) AS av, SUM(t.size_on_disk) AS size,
               MAX(t.sources & 1) | MAX(t.sources & 2) AS sources, MAX(t.latest_media_at) AS latest
             FROM ids JOIN library_tracks t ON t.id = ids.track_id GROUP BY ids.artist_id)
     UPDATE library_artists SET
       album_count = (SELECT COUNT(*) FROM library_albums WHERE artist_id = library_artists.id AND flow_hidden = 0),
       appears_on_count = (${appearsOnCountSql('library_artists.id')}),
       track_count = COALESCE(y.n, 0), available_track_count = COALESCE(y.av, 0),
       size_on_disk = COALESCE(y.size, 0), sources = COALESCE(y.sources, 0),
       available = COALESCE(y.av, 0) > 0, latest_media_at = COALESCE(y.latest, 0),
       flow_hidden = y.n IS NULL
         AND NOT EXISTS (SELECT 1 FROM library_albums WHERE artist_id = library_artists.id AND flow_hidden = 0)
         AND (EXISTS (SELECT 1 FROM library_tracks WHERE artist_id = library_artists.id AND flow_hidden = 1)
           OR EXISTS (SELECT 1 FROM library_albums al JOIN library_album_tracks l ON l.album_id = al.id
             JOIN library_tracks t ON t.id = l.track_id WHERE al.artist_id = library_artists.id AND t.flow_hidden = 1)),
       image_key = (SELECT image_key FROM library_albums WHERE artist_id = library_artists.id AND image_key IS NOT NULL
         AND flow_hidden = 0 ORDER BY available DESC, year DESC, id LIMIT 1)
     FROM (SELECT e.id AS artist_id, x.n, x.av, x.size, x.sources, x.latest
           FROM library_artists e LEFT JOIN agg x ON x.artist_id = e.id WHERE e.id ${artistIn}) y
     WHERE library_artists.id = y.artist_id`;
}

/** Genre memberships of the matching artists, from their tracks' genres. */
function artistGenreLinksSql(artistIn: string): string {
  return `WITH ids AS (${tracksOfArtistsSql(artistIn)})
     INSERT OR IGNORE INTO library_genre_links (genre_id, kind, entity_id, sort_name, latest_media_at, available)
     SELECT DISTINCT g.genre_id, 1, a.id, a.sort_name, a.latest_media_at, a.available
     FROM ids JOIN library_track_genres g ON g.track_id = ids.track_id JOIN library_artists a ON a.id = ids.artist_id`;
}
