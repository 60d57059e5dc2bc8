import type { Db } from './connection.js';
import type { CanonicalRows, GenreRow } from './libraryRows.js';
import { statement } from './statements.js';
import { foldText, prefixUpperBound, sortName } from './libraryText.js';
import { KIND, type MediaSource } from './libraryModel.js';

/**
 * Bounded canonical pages (GET /api/library/canonical): filters, sorts and search turned into one
 * index walk per page, totals from the snapshots where they can be. The reader (libraryReads.ts)
 * hydrates the ids a page finds.
 */

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

/** Albums linked to a track of the artist (its tracks by index, then their album links). */
const APPEARANCE_ALBUM_IDS = `SELECT l.album_id FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id
  WHERE t.artist_id = ?`;

/** Turns a user query into an FTS5 trigram expression, or null when no word has three characters. */
export function ftsExpression(query: string): string | null {
  const words = foldText(query).split(' ').filter((w) => [...w].length >= 3);
  if (words.length === 0) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

type EntityKind = 'artists' | 'albums' | 'tracks';

/** Matches a suggestion reads from the full-text index at most (see CanonicalPages.suggest). */
const SUGGEST_CANDIDATES = 200;

/** What an entity's search document holds (migration 010's FTS documents), from its row. */
function searchText(kind: EntityKind, row: Record<string, unknown>): string {
  const parts = kind === 'artists' ? [row.name] : kind === 'albums' ? [row.title, row.album_artist] : [row.title, row.artist_name, row.album_title];
  return parts.filter((p) => typeof p === 'string').join(' ');
}

export class CanonicalPages {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    /** Rows of one kind in the order of `ids`. */
    private readonly rowsByIds: (kind: EntityKind, ids: number[]) => unknown[],
  ) {
    this.stmts = {
      stat: db.prepare('SELECT value FROM library_stats WHERE key = ?').pluck(),
      genreByName: db.prepare('SELECT id FROM library_genres WHERE name = ?').pluck(),
      genres: db.prepare(
        `SELECT g.id, g.name, s.artist_count, s.album_count, s.track_count, s.available_artist_count,
           s.available_album_count, s.available_track_count
         FROM library_genre_stats s JOIN library_genres g ON g.id = s.genre_id ORDER BY g.sort_name, g.id`,
      ),
    };
  }

  /** One bounded canonical page (api.md: GET /api/library/canonical). */
  page(q: CanonicalQuery): CanonicalRows {
    if (q.kind === 'genres') return { kind: 'genres', ...this.genrePage(q) };
    const { rows, total } = this.entityPage(q);
    return { kind: q.kind, rows, total } as CanonicalRows;
  }

  /**
   * As-you-type suggestions: up to `limit` entities matching `query`, names that start with it first
   * (a walk of the name index), then other matches (a word inside the name, or in the artist or album
   * name the search document carries) in name order. Unlike a page it neither counts nor sorts every
   * match: a common word matches tens of thousands of tracks in a large library, and reading all of
   * them costs tens of milliseconds per keystroke. The other matches are chosen among the first
   * SUGGEST_CANDIDATES the full-text index yields. Hidden flow tracks (migration 066) have no search
   * documents and are skipped by the name walk.
   */
  suggest(kind: EntityKind, query: string, limit: number): unknown[] {
    const text = query.trim();
    if (text === '' || limit <= 0) return [];
    const prefix = sortName(text);
    const ids = this.prepare(`SELECT id FROM ${TABLE[kind]} WHERE sort_name >= ? AND sort_name < ? AND flow_hidden = 0 ORDER BY sort_name, id LIMIT ?`)
      .pluck()
      .all(prefix, prefixUpperBound(prefix), limit) as number[];
    const expr = ftsExpression(text);
    if (ids.length >= limit || !expr) return this.rowsByIds(kind, ids);
    const seen = new Set(ids);
    const others = (
      this.prepare(
        `SELECT e.id FROM ${TABLE[kind]} e WHERE e.id IN (SELECT rowid FROM ${FTS[kind]} WHERE ${FTS[kind]} MATCH ? LIMIT ?)
         ORDER BY e.sort_name, e.id`,
      )
        .pluck()
        .all(expr, SUGGEST_CANDIDATES) as number[]
    ).filter((id) => !seen.has(id));
    const rows = this.rowsByIds(kind, ids);
    // Words under three characters are not in the trigram expression: they must still be there.
    const short = foldText(text).split(' ').filter((w) => [...w].length < 3);
    const candidates = this.rowsByIds(kind, short.length === 0 ? others.slice(0, limit - ids.length) : others);
    for (const row of candidates) {
      if (rows.length >= limit) break;
      const haystack = short.length === 0 ? '' : foldText(searchText(kind, row as Record<string, unknown>));
      if (short.every((w) => haystack.includes(w))) rows.push(row);
    }
    return rows;
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
    // Tracks a flow keeps out of the library (flowVisibility.ts): the search index and the genre
    // memberships never hold them; other walks leave out their few ids, probed in the partial index
    // of hidden ids, so a walk of a sort index stays index-only. Nothing is added while none is hidden.
    const baseWhere = [...where];
    const hiding = ftsExpr === null && genreId === undefined && this.anyHidden(kind);
    if (hiding) where.push(`e.id NOT IN (SELECT id FROM ${TABLE[kind]} WHERE flow_hidden = 1)`);
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
    const ids =
      hiding && orderPrefix === 'e.' && effectiveOffset > 0
        ? this.pageSkippingHidden(kind, from, baseWhere, params, columns, dir as 'ASC' | 'DESC', limit, effectiveOffset)
        : (this.prepare(sql).pluck().all(...params, limit, effectiveOffset) as number[]);
    if (reverse) ids.reverse();
    return { rows: this.rowsByIds(kind, ids), total };
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

  /**
   * A page at `offset` among the visible rows when some are hidden, without probing every skipped
   * row: the row at the same raw offset is found by the plain index walk, then moved forward by the
   * hidden rows sorting before it (counted among the few hidden ones) until that count stops
   * changing; the page is read from there and the hidden rows dropped. Costs one walk to the offset,
   * as when nothing is hidden, plus short steps.
   */
  private pageSkippingHidden(
    kind: EntityKind,
    from: string,
    baseWhere: string[],
    params: unknown[],
    columns: readonly string[],
    dir: 'ASC' | 'DESC',
    limit: number,
    offset: number,
  ): number[] {
    const table = TABLE[kind];
    const cols = columns.map((c) => `e.${c}`);
    const tuple = `(${cols.join(', ')})`;
    const marks = `(${cols.map(() => '?').join(', ')})`;
    const after = dir === 'ASC' ? '>' : '<';
    const before = dir === 'ASC' ? '<' : '>';
    const whereOf = (extra: string[]) => {
      const w = [...baseWhere, ...extra];
      return w.length > 0 ? `WHERE ${w.join(' AND ')}` : '';
    };
    const order = cols.map((c) => `${c} ${dir}`).join(', ');
    const rowAt = this.prepare(`SELECT ${cols.join(', ')} FROM ${from} ${whereOf([])} ORDER BY ${order} LIMIT 1 OFFSET ?`).raw();
    const stepFrom = this.prepare(`SELECT ${cols.join(', ')} FROM ${from} ${whereOf([`${tuple} ${after} ${marks}`])} ORDER BY ${order} LIMIT 1 OFFSET ?`).raw();
    const hiddenBefore = this.prepare(
      `SELECT COUNT(*) FROM ${table} e INDEXED BY ${table}_flow_hidden ${whereOf(['e.flow_hidden = 1', `${tuple} ${before} ${marks}`])}`,
    ).pluck();
    let raw = offset;
    let key = rowAt.get(...params, raw) as unknown[] | undefined;
    while (key) {
      const wanted = offset + (hiddenBefore.get(...params, ...key) as number);
      if (wanted <= raw) break;
      key = stepFrom.get(...params, ...key, wanted - raw - 1) as unknown[] | undefined;
      raw = wanted;
    }
    if (!key) return [];
    const hidden = statement(this.db, `SELECT COUNT(*) FROM ${table} WHERE flow_hidden = 1`).pluck().get() as number;
    const rows = this.prepare(`SELECT e.id, e.flow_hidden FROM ${from} ${whereOf([`${tuple} ${after}= ${marks}`])} ORDER BY ${order} LIMIT ?`)
      .raw()
      .all(...params, ...key, limit + hidden) as [number, number][];
    return rows.filter((r) => r[1] === 0).slice(0, limit).map((r) => r[0]);
  }

  private anyHidden(kind: EntityKind): boolean {
    return statement(this.db, `SELECT 1 FROM ${TABLE[kind]} WHERE flow_hidden = 1 LIMIT 1`).get() !== undefined;
  }

  /** The SQL text a page query runs, for EXPLAIN QUERY PLAN checks. */
  explain(q: CanonicalQuery): string[] {
    const captured: string[] = [];
    this.captured = captured;
    try {
      this.page(q);
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
}
