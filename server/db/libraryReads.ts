import type { Db } from './connection.js';
import { statement } from './libraryStatements.js';
import { foldText, prefixUpperBound, sortName } from './libraryText.js';
import { KIND, type MediaSource } from './libraryWrites.js';

export type CanonicalKind = 'artists' | 'albums' | 'tracks' | 'genres';
export type SourceFilter = 'all' | MediaSource;
export type Direction = 'asc' | 'desc';

export interface CanonicalQuery {
  kind: CanonicalKind;
  page: number;
  pageSize: number;
  source?: SourceFilter;
  availableOnly?: boolean;
  query?: string;
  genre?: string;
  sort?: string;
  direction?: Direction;
  artistId?: number;
  albumId?: number;
  /**
   * Albums of other artists on which this artist has tracks (compilations), or this artist's tracks
   * on such albums; bounded by the artist's own tracks, walked by index.
   */
  appearsOn?: number;
}

/** Sort orders per kind: index columns, walked forward for asc and backward for desc. */
export const SORTS = {
  artists: { name: ['sort_name', 'id'], newest: ['latest_media_at', 'id'], added: ['created_at', 'id'] },
  albums: {
    name: ['sort_name', 'id'],
    newest: ['latest_media_at', 'id'],
    year: ['year', 'sort_name', 'id'],
    artist: ['artist_sort_name', 'year', 'sort_name', 'id'],
  },
  tracks: {
    name: ['sort_name', 'id'],
    newest: ['latest_media_at', 'id'],
    artist: ['artist_sort_name', 'album_sort_name', 'disc_number', 'track_number', 'id'],
    album: ['album_sort_name', 'disc_number', 'track_number', 'id'],
  },
  genres: { name: ['sort_name', 'id'], count: ['track_count', 'id'] },
} as const;

export const DEFAULT_DIRECTION: Record<string, Direction> = { newest: 'desc', added: 'desc', count: 'desc' };

const TABLE = { artists: 'library_artists', albums: 'library_albums', tracks: 'library_tracks' } as const;
const FTS = { artists: 'library_artists_fts', albums: 'library_albums_fts', tracks: 'library_tracks_fts' } as const;
const KIND_OF = { artists: KIND.artist, albums: KIND.album, tracks: KIND.track } as const;

export interface ArtistRow {
  id: number; identity_key: string; mbid: string | null; name: string; sort_name: string; metadata_json: string | null;
  created_at: number; updated_at: number; album_count: number; track_count: number; available_track_count: number;
  size_on_disk: number; sources: number; available: number; latest_media_at: number; image_key: string | null;
  appears_on_count: number;
}
export interface AlbumRow {
  id: number; identity_key: string; mbid: string | null; release_mbid: string | null; artist_id: number; title: string;
  sort_name: string; album_artist: string; release_date: string | null; year: number; album_type: string | null;
  secondary_types: string; metadata_json: string | null; monitored: number; created_at: number; updated_at: number;
  track_count: number; available_track_count: number; size_on_disk: number; duration_ms: number; sources: number;
  available: number; latest_media_at: number; image_key: string | null;
}
export interface TrackRow {
  id: number; identity_key: string; mbid: string | null; title: string; artist_name: string; artist_id: number | null;
  album_id: number | null; album_title: string | null; album_mbid: string | null; disc_number: number;
  track_number: number; year: number; duration_ms: number; lyrics: string | null; monitored: number;
  created_at: number; size_on_disk: number; sources: number; available: number; latest_media_at: number;
  image_key: string | null;
}
export interface MediaFileRow {
  id: number; track_id: number; album_id: number | null; source: MediaSource; path: string; root: string | null;
  format: string | null; mime: string | null; codec: string | null; size: number; mtime_ms: number;
  duration_ms: number; bitrate: number | null; sample_rate: number | null; bit_depth: number | null;
  channels: number | null; lossless: number; fingerprint: string | null; image_key: string | null;
  tag_error: string | null; available: number; created_at: number; updated_at: number;
}
export interface GenreRow {
  id: number; name: string; artist_count: number; album_count: number; track_count: number;
  available_artist_count: number; available_album_count: number; available_track_count: number;
}

export type CanonicalRows =
  | { kind: 'artists'; rows: ArtistRow[]; total: number }
  | { kind: 'albums'; rows: AlbumRow[]; total: number }
  | { kind: 'tracks'; rows: TrackRow[]; total: number }
  | { kind: 'genres'; rows: GenreRow[]; total: number };

/** Albums linked to a track of the artist (its tracks by index, then their album links). */
const APPEARANCE_ALBUM_IDS = `SELECT l.album_id FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id
  WHERE t.artist_id = ?`;

const TRACK_COLUMNS = `e.id, e.identity_key, e.mbid, e.title, e.artist_name, e.artist_id, e.album_id,
  al.title AS album_title, al.mbid AS album_mbid, e.disc_number, e.track_number, e.year, e.duration_ms, e.lyrics,
  e.monitored, e.created_at, e.size_on_disk, e.sources, e.available, e.latest_media_at, al.image_key`;

/** Turns a user query into an FTS5 trigram expression, or null when no word has three characters. */
export function ftsExpression(query: string): string | null {
  const words = foldText(query).split(' ').filter((w) => [...w].length >= 3);
  if (words.length === 0) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

/**
 * Read side of the canonical store: bounded pages, by-id and by-MBID reads, counts, genres, random
 * selection. Every page query walks an index (see SORTS and the migration's indexes).
 */
export class LibraryReader {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      stat: db.prepare('SELECT value FROM library_stats WHERE key = ?').pluck(),
      genreByName: db.prepare('SELECT id FROM library_genres WHERE name = ?').pluck(),
      artist: db.prepare('SELECT * FROM library_artists WHERE id = ?'),
      artistByMbid: db.prepare('SELECT * FROM library_artists WHERE mbid = ? ORDER BY id LIMIT 1'),
      album: db.prepare('SELECT * FROM library_albums WHERE id = ?'),
      albumByMbid: db.prepare('SELECT * FROM library_albums WHERE mbid = ? OR release_mbid = ? ORDER BY id LIMIT 1'),
      albumsOfArtist: db.prepare('SELECT * FROM library_albums WHERE artist_id = ? ORDER BY year, sort_name, id'),
      appearances: db.prepare(
        `SELECT l.album_id AS albumId, l.track_id AS trackId
         FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id JOIN library_albums al ON al.id = l.album_id
         WHERE t.artist_id = @artist AND al.artist_id != @artist
         ORDER BY al.year, al.sort_name, al.id, l.disc_number, l.track_number, l.track_id LIMIT @limit`,
      ),
      track: db.prepare(
        `SELECT ${TRACK_COLUMNS} FROM library_tracks e LEFT JOIN library_albums al ON al.id = e.album_id WHERE e.id = ?`,
      ),
      tracksOfAlbum: db.prepare(
        `SELECT ${TRACK_COLUMNS} FROM library_album_tracks l JOIN library_tracks e ON e.id = l.track_id
         LEFT JOIN library_albums al ON al.id = e.album_id WHERE l.album_id = ?
         ORDER BY l.disc_number, l.track_number, e.id`,
      ),
      filesOfTrack: db.prepare(
        'SELECT * FROM library_media_files WHERE track_id = ? ORDER BY available DESC, lossless DESC, id',
      ),
      mediaFile: db.prepare('SELECT * FROM library_media_files WHERE id = ?'),
      byIds: {
        artists: db.prepare('SELECT * FROM library_artists WHERE id IN (SELECT value FROM json_each(?))'),
        albums: db.prepare('SELECT * FROM library_albums WHERE id IN (SELECT value FROM json_each(?))'),
        tracks: db.prepare(
          `SELECT ${TRACK_COLUMNS} FROM library_tracks e LEFT JOIN library_albums al ON al.id = e.album_id
           WHERE e.id IN (SELECT value FROM json_each(?))`,
        ),
      },
      filesOfTracks: db.prepare(
        `SELECT * FROM library_media_files WHERE track_id IN (SELECT value FROM json_each(?))
         ORDER BY track_id, available DESC, lossless DESC, id`,
      ),
      artistMbidsPresent: db.prepare(
        'SELECT DISTINCT mbid FROM library_artists WHERE mbid IN (SELECT value FROM json_each(?))',
      ).pluck(),
      albumsByMbids: db.prepare(
        `SELECT * FROM library_albums WHERE mbid IN (SELECT value FROM json_each(@mbids))
         UNION SELECT * FROM library_albums WHERE release_mbid IN (SELECT value FROM json_each(@mbids)) ORDER BY id`,
      ),
      availableTrackMbidsOfAlbum: db.prepare(
        `SELECT DISTINCT e.mbid FROM library_album_tracks l JOIN library_tracks e ON e.id = l.track_id
         WHERE l.album_id = ? AND e.available = 1 AND e.mbid IS NOT NULL ORDER BY e.mbid`,
      ).pluck(),
      artistsPage: db.prepare('SELECT * FROM library_artists ORDER BY sort_name, id LIMIT ? OFFSET ?'),
      recentArtists: db.prepare('SELECT * FROM library_artists ORDER BY created_at DESC, id DESC LIMIT ?'),
      randomTrackIds: db.prepare(
        `SELECT id FROM library_tracks WHERE available = 1 AND id >= ? ORDER BY id LIMIT ?`,
      ).pluck(),
      maxTrackId: db.prepare('SELECT MAX(id) FROM library_tracks').pluck(),
      genres: db.prepare(
        `SELECT g.id, g.name, s.artist_count, s.album_count, s.track_count, s.available_artist_count,
           s.available_album_count, s.available_track_count
         FROM library_genre_stats s JOIN library_genres g ON g.id = s.genre_id ORDER BY g.sort_name, g.id`,
      ),
      latestScanAt: db.prepare(
        "SELECT MAX(completed_at) FROM library_scan_runs WHERE status = 'completed'",
      ).pluck(),
    };
  }

  /** One bounded canonical page (api.md: GET /api/library/canonical). */
  canonicalPage(q: CanonicalQuery): CanonicalRows {
    if (q.kind === 'genres') return { kind: 'genres', ...this.genrePage(q) };
    const { rows, total } = this.entityPage(q);
    return { kind: q.kind, rows, total } as CanonicalRows;
  }

  private entityPage(q: CanonicalQuery): { rows: unknown[]; total: number } {
    const kind = q.kind as 'artists' | 'albums' | 'tracks';
    const sortKey = (q.sort && q.sort in SORTS[kind] ? q.sort : 'name') as keyof (typeof SORTS)[typeof kind];
    let columns: readonly string[] = SORTS[kind][sortKey];
    const direction: Direction = q.direction ?? DEFAULT_DIRECTION[sortKey as string] ?? 'asc';
    const where: string[] = [];
    const params: unknown[] = [];
    const source = q.source ?? 'all';
    let from = `${TABLE[kind]} e`;
    let orderPrefix = 'e.';
    let genreId: number | undefined;
    if (q.genre) {
      genreId = this.stmts.genreByName.get(q.genre) as number | undefined;
      if (genreId === undefined) return { rows: [], total: 0 };
      if (sortKey === 'name' || sortKey === 'newest') {
        // Walk the genre membership index, which carries the sort keys.
        from = `library_genre_links g JOIN ${TABLE[kind]} e ON e.id = g.entity_id`;
        where.push('g.genre_id = ?', 'g.kind = ?');
        params.push(genreId, KIND_OF[kind]);
        if (q.availableOnly) where.push('g.available = 1');
        columns = sortKey === 'name' ? ['sort_name', 'entity_id'] : ['latest_media_at', 'entity_id'];
        orderPrefix = 'g.';
      } else if (this.walkSortIndexForGenre(kind, genreId, q)) {
        // A common genre: walk the sort index and probe membership per row until the page is full.
        where.push('EXISTS (SELECT 1 FROM library_genre_links WHERE kind = ? AND entity_id = e.id AND genre_id = ?)');
        params.push(KIND_OF[kind], genreId);
      } else {
        // A rare genre: collect its members and sort them.
        where.push(`e.id IN (SELECT entity_id FROM library_genre_links WHERE genre_id = ? AND kind = ?)`);
        params.push(genreId, KIND_OF[kind]);
      }
    }
    // Unary + keeps the planner on the sort index (filtering while walking) instead of an availability index.
    if (q.availableOnly && orderPrefix === 'e.') where.push('+e.available = 1');
    if (source !== 'all') where.push(`(e.sources & ${source === 'aurral' ? 1 : 2}) != 0`);
    if (q.artistId !== undefined && kind !== 'artists') {
      where.push('e.artist_id = ?');
      params.push(q.artistId);
    }
    if (q.albumId !== undefined && kind === 'tracks') {
      from = `library_album_tracks l JOIN library_tracks e ON e.id = l.track_id`;
      where.push('l.album_id = ?');
      params.push(q.albumId);
      columns = ['l.disc_number', 'l.track_number', 'l.track_id'];
      orderPrefix = '';
    } else if (q.albumId !== undefined && kind === 'albums') {
      where.push('e.id = ?');
      params.push(q.albumId);
    }
    if (q.artistId !== undefined && kind === 'artists') {
      where.push('e.id = ?');
      params.push(q.artistId);
    }
    if (q.appearsOn !== undefined && kind === 'albums') {
      where.push(`e.id IN (${APPEARANCE_ALBUM_IDS}) AND e.artist_id != ?`);
      params.push(q.appearsOn, q.appearsOn);
    } else if (q.appearsOn !== undefined && kind === 'tracks') {
      where.push(`e.artist_id = ? AND EXISTS (SELECT 1 FROM library_album_tracks l2 JOIN library_albums al2 ON al2.id = l2.album_id
        WHERE l2.track_id = e.id AND al2.artist_id != ?)`);
      params.push(q.appearsOn, q.appearsOn);
    }
    const text = q.query?.trim() ?? '';
    let ftsExpr: string | null = null;
    let matches = 0;
    if (text !== '') {
      const expr = ftsExpression(text);
      if (expr) {
        ftsExpr = expr;
        where.push(`e.id IN (SELECT rowid FROM ${FTS[kind]} WHERE ${FTS[kind]} MATCH ?)`);
        params.push(expr);
        matches = this.prepare(`SELECT COUNT(*) FROM ${FTS[kind]} WHERE ${FTS[kind]} MATCH ?`).pluck().get(expr) as number;
        // A common term: walk the sort index, probing the matches, until the page is full; a rare
        // one: sort its few matches.
        const table = (this.stmts.stat.get(`${kind}:all:0`) as number | undefined) ?? 0;
        const offset = (q.page - 1) * q.pageSize;
        const walked = ((Math.min(offset, Math.max(0, matches - offset - q.pageSize)) + q.pageSize) * table) / Math.max(1, matches);
        const scoped = q.albumId !== undefined || q.artistId !== undefined || q.appearsOn !== undefined;
        if (orderPrefix === 'e.' && !scoped && walked < matches * 4) {
          from = `${TABLE[kind]} e INDEXED BY ${TABLE[kind]}_by_${(sortKey as string) === 'added' ? 'created' : String(sortKey)}`;
        }
      } else {
        // Too short for the trigram index: the start of the sort key (same rule as the stored keys).
        const prefix = sortName(text);
        where.push('e.sort_name >= ? AND e.sort_name < ?');
        params.push(prefix, prefixUpperBound(prefix));
      }
    }
    const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';

    let total: number | undefined;
    const simple = text === '' && q.artistId === undefined && q.albumId === undefined && q.appearsOn === undefined;
    if (simple && genreId === undefined) {
      total = this.stmts.stat.get(`${kind}:${source}:${q.availableOnly ? 1 : 0}`) as number | undefined;
    } else if (simple && source === 'all' && genreId !== undefined) {
      const stats = this.prepare(
          `SELECT ${kind === 'artists' ? 'artist' : kind === 'albums' ? 'album' : 'track'}_count AS n,
             available_${kind === 'artists' ? 'artist' : kind === 'albums' ? 'album' : 'track'}_count AS a
           FROM library_genre_stats WHERE genre_id = ?`,
        ).get(genreId) as { n: number; a: number } | undefined;
      total = stats ? (q.availableOnly ? stats.a : stats.n) : 0;
    } else if (ftsExpr && where.length === 1) {
      // Every search document belongs to an existing entity: the index counts its own matches.
      total = matches;
    }
    total ??= (this.prepare(`SELECT COUNT(*) FROM ${from} ${whereSql}`).pluck().get(...params) as number);

    const offset = (q.page - 1) * q.pageSize;
    if (offset >= total) return { rows: [], total };
    // Past the middle, walk the index from the other end: the last page costs what the first does.
    const reverse = offset > total / 2;
    const limit = Math.min(q.pageSize, total - offset);
    const effectiveOffset = reverse ? Math.max(0, total - offset - limit) : offset;
    const dir = (reverse ? (direction === 'asc' ? 'desc' : 'asc') : direction).toUpperCase();
    const order = columns.map((c) => `${c.includes('.') ? c : orderPrefix + c} ${dir}`).join(', ');
    // Ids first (an index walk that skips offset rows without reading them), then the page's rows.
    const sql = `SELECT e.id FROM ${from} ${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`;
    const ids = this.prepare(sql).pluck().all(...params, limit, effectiveOffset) as number[];
    if (reverse) ids.reverse();
    return { rows: this.rowsByIds(kind, ids), total };
  }

  /** Rows of one kind in the order of `ids`. */
  private rowsByIds(kind: 'artists' | 'albums' | 'tracks', ids: number[]): unknown[] {
    if (ids.length === 0) return [];
    const found = this.stmts.byIds[kind].all(JSON.stringify(ids)) as { id: number }[];
    const byId = new Map(found.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
  }

  /**
   * For a genre filter in an order its membership index does not carry: whether walking the sort
   * index (probing membership) reads fewer rows than sorting all of the genre's members.
   */
  private walkSortIndexForGenre(kind: 'artists' | 'albums' | 'tracks', genreId: number, q: CanonicalQuery): boolean {
    const column = kind === 'artists' ? 'artist_count' : kind === 'albums' ? 'album_count' : 'track_count';
    const members = (this.prepare(`SELECT ${column} FROM library_genre_stats WHERE genre_id = ?`).pluck().get(genreId) as number | undefined) ?? 0;
    if (members === 0) return false;
    const all = (this.stmts.stat.get(`${kind}:all:0`) as number | undefined) ?? 0;
    const offset = (q.page - 1) * q.pageSize;
    const fromNearestEnd = Math.min(offset, Math.max(0, members - offset - q.pageSize));
    const walked = ((fromNearestEnd + q.pageSize) * all) / members;
    return walked < members * 4;
  }

  /** The SQL text a page query runs, for EXPLAIN QUERY PLAN checks. */
  explainPage(q: CanonicalQuery): string[] {
    const captured: string[] = [];
    this.captured = captured;
    try {
      this.canonicalPage(q);
    } finally {
      this.captured = null;
    }
    return captured;
  }

  private captured: string[] | null = null;

  /** Page SQL varies with the query's shape only, so its statements are prepared once and kept. */
  private prepare(sql: string) {
    this.captured?.push(sql);
    return statement(this.db, sql);
  }

  private genrePage(q: CanonicalQuery): { rows: GenreRow[]; total: number } {
    let rows = this.stmts.genres.all() as GenreRow[];
    if (q.availableOnly) rows = rows.filter((g) => g.available_track_count > 0);
    const text = q.query ? foldText(q.query) : '';
    if (text !== '') rows = rows.filter((g) => foldText(g.name).includes(text));
    const direction = q.direction ?? DEFAULT_DIRECTION[q.sort ?? 'name'] ?? 'asc';
    if (q.sort === 'count') {
      const key = q.availableOnly ? 'available_track_count' : 'track_count';
      rows.sort((a, b) => a[key] - b[key] || a.id - b.id);
    }
    if (direction === 'desc') rows.reverse();
    const offset = (q.page - 1) * q.pageSize;
    return { rows: rows.slice(offset, offset + q.pageSize), total: rows.length };
  }

  artist(id: number): ArtistRow | undefined {
    return this.stmts.artist.get(id) as ArtistRow | undefined;
  }
  artistByMbid(mbid: string): ArtistRow | undefined {
    return this.stmts.artistByMbid.get(mbid) as ArtistRow | undefined;
  }
  album(id: number): AlbumRow | undefined {
    return this.stmts.album.get(id) as AlbumRow | undefined;
  }
  /** By release-group MBID, or by release MBID. */
  albumByMbid(mbid: string): AlbumRow | undefined {
    return this.stmts.albumByMbid.get(mbid, mbid) as AlbumRow | undefined;
  }
  albumsOfArtist(artistId: number): AlbumRow[] {
    return this.stmts.albumsOfArtist.all(artistId) as AlbumRow[];
  }
  /**
   * The albums of other artists on which the artist has tracks, by year and name, each with the ids
   * of the artist's tracks on it (in disc and track order); at most `maxTracks` tracks are read.
   */
  appearancesOfArtist(artistId: number, maxTracks: number): { album: AlbumRow; trackIds: number[] }[] {
    const links = this.stmts.appearances.all({ artist: artistId, limit: maxTracks }) as { albumId: number; trackId: number }[];
    const byAlbum = new Map<number, number[]>();
    for (const l of links) {
      const list = byAlbum.get(l.albumId);
      if (list) list.push(l.trackId);
      else byAlbum.set(l.albumId, [l.trackId]);
    }
    const albums = this.rowsByIds('albums', [...byAlbum.keys()]) as AlbumRow[];
    return albums.map((album) => ({ album, trackIds: byAlbum.get(album.id)! }));
  }
  /** Tracks by id, in the order of `ids`. */
  tracksByIds(ids: number[]): TrackRow[] {
    return this.rowsByIds('tracks', ids) as TrackRow[];
  }
  track(id: number): TrackRow | undefined {
    return this.stmts.track.get(id) as TrackRow | undefined;
  }
  tracksOfAlbum(albumId: number): TrackRow[] {
    return this.stmts.tracksOfAlbum.all(albumId) as TrackRow[];
  }
  filesOfTrack(trackId: number): MediaFileRow[] {
    return this.stmts.filesOfTrack.all(trackId) as MediaFileRow[];
  }
  /** Files of many tracks at once (page hydration), grouped by track id. */
  filesOfTracks(trackIds: number[]): Map<number, MediaFileRow[]> {
    const out = new Map<number, MediaFileRow[]>();
    if (trackIds.length === 0) return out;
    const rows = this.stmts.filesOfTracks.all(JSON.stringify(trackIds)) as MediaFileRow[];
    for (const r of rows) {
      const list = out.get(r.track_id) ?? [];
      list.push(r);
      out.set(r.track_id, list);
    }
    return out;
  }
  /** The file to play for a track: available first, lossless first. */
  playableFile(trackId: number): MediaFileRow | undefined {
    return this.filesOfTrack(trackId).find((f) => f.available === 1);
  }
  mediaFile(id: number): MediaFileRow | undefined {
    return this.stmts.mediaFile.get(id) as MediaFileRow | undefined;
  }
  availableTrackMbidsOfAlbum(albumId: number): string[] {
    return this.stmts.availableTrackMbidsOfAlbum.all(albumId) as string[];
  }
  /** Artists by name, for GET /api/library/artists (limit up to 10000). */
  artists(limit: number, offset: number): ArtistRow[] {
    return this.stmts.artistsPage.all(limit, offset) as ArtistRow[];
  }
  recentArtists(limit = 20): ArtistRow[] {
    return this.stmts.recentArtists.all(limit) as ArtistRow[];
  }
  /** Up to `count` available tracks picked at random (index seeks, no full scan). */
  randomTracks(count: number): TrackRow[] {
    const max = (this.stmts.maxTrackId.get() as number | null) ?? 0;
    const ids = new Set<number>();
    for (let attempt = 0; attempt < count * 3 && ids.size < count && max > 0; attempt++) {
      const start = 1 + Math.floor(Math.random() * max);
      const [id] = this.stmts.randomTrackIds.all(start, 1) as number[];
      if (id !== undefined) ids.add(id);
    }
    return [...ids].map((id) => this.track(id)).filter((t): t is TrackRow => t !== undefined);
  }
  genres(): GenreRow[] {
    return this.stmts.genres.all() as GenreRow[];
  }
  /** Snapshot count: kind artists|albums|tracks|genres, source, available only. */
  count(kind: CanonicalKind, source: SourceFilter = 'all', availableOnly = false): number {
    return (this.stmts.stat.get(`${kind}:${source}:${availableOnly ? 1 : 0}`) as number | undefined) ?? 0;
  }
  lastCompletedScanAt(): number | null {
    return (this.stmts.latestScanAt.get() as number | null) ?? null;
  }
  /** Which of these artist MBIDs are in the library. */
  artistMbidsPresent(mbids: string[]): Set<string> {
    if (mbids.length === 0) return new Set();
    const rows = this.stmts.artistMbidsPresent.all(JSON.stringify(mbids)) as string[];
    return new Set(rows);
  }
  albumsByMbids(mbids: string[]): AlbumRow[] {
    if (mbids.length === 0) return [];
    return this.stmts.albumsByMbids.all({ mbids: JSON.stringify(mbids) }) as AlbumRow[];
  }
}

export function sourcesOf(bits: number): MediaSource[] {
  const out: MediaSource[] = [];
  if (bits & 1) out.push('aurral');
  if (bits & 2) out.push('lidarr');
  return out;
}
