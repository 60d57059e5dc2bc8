import type { Db } from './connection.js';
import { ftsExpression } from './libraryReads.js';
import { prefixUpperBound, sortName } from './libraryText.js';

/**
 * The canonical-library reads /rest needs beyond LibraryReader: page hydration with the joined
 * fields a Subsonic song or album carries, album lists, whole-library paging in id order, random
 * picks by index seeks. Only available entities are shown to clients.
 */

export interface SongRow {
  id: number;
  identity_key: string;
  mbid: string | null;
  title: string;
  artist_name: string;
  artist_id: number | null;
  artist_key: string | null;
  album_id: number | null;
  album_key: string | null;
  album_title: string | null;
  album_artist: string | null;
  album_artist_id: number | null;
  album_artist_key: string | null;
  album_image: string | null;
  disc_number: number;
  track_number: number;
  year: number;
  duration_ms: number;
  created_at: number;
  available: number;
  genre: string | null;
  file_id: number | null;
  path: string | null;
  size: number | null;
  mime: string | null;
  format: string | null;
  codec: string | null;
  bitrate: number | null;
  sample_rate: number | null;
  bit_depth: number | null;
  channels: number | null;
  file_duration_ms: number | null;
  file_image: string | null;
  mtime_ms: number | null;
  rg_track_gain: number | null;
  rg_track_peak: number | null;
  rg_album_gain: number | null;
  rg_album_peak: number | null;
}

export interface AlbumEntry {
  id: number;
  identity_key: string;
  mbid: string | null;
  title: string;
  sort_name: string;
  album_artist: string;
  artist_id: number;
  artist_key: string | null;
  release_date: string | null;
  year: number;
  album_type: string | null;
  secondary_types: string;
  created_at: number;
  available_track_count: number;
  duration_ms: number;
  image_key: string | null;
  genre: string | null;
}

export interface ArtistEntry {
  id: number;
  identity_key: string;
  mbid: string | null;
  name: string;
  sort_name: string;
  album_count: number;
  appears_on_count: number;
  image_key: string | null;
}

export type AlbumListType =
  | 'newest'
  | 'alphabeticalByName'
  | 'alphabeticalByArtist'
  | 'byYear'
  | 'byGenre'
  | 'random'
  | 'starred'
  | 'frequent'
  | 'recent'
  | 'highest';

export interface AlbumListQuery {
  type: AlbumListType;
  size: number;
  offset: number;
  userId: number;
  fromYear?: number;
  toYear?: number;
  genre?: string;
}

const SONG_SELECT = `SELECT t.id, t.identity_key, t.mbid, t.title, t.artist_name, t.artist_id, ar.identity_key AS artist_key,
  t.album_id, al.identity_key AS album_key, al.title AS album_title, al.album_artist, al.artist_id AS album_artist_id,
  aar.identity_key AS album_artist_key, al.image_key AS album_image, t.disc_number, t.track_number, t.year, t.duration_ms,
  t.created_at, t.available,
  (SELECT g.name FROM library_track_genres tg JOIN library_genres g ON g.id = tg.genre_id
    WHERE tg.track_id = t.id ORDER BY g.sort_name LIMIT 1) AS genre,
  f.id AS file_id, f.path, f.size, f.mime, f.format, f.codec, f.bitrate, f.sample_rate, f.bit_depth, f.channels,
  f.duration_ms AS file_duration_ms, f.image_key AS file_image, f.mtime_ms,
  f.rg_track_gain, f.rg_track_peak, f.rg_album_gain, f.rg_album_peak
FROM library_tracks t
LEFT JOIN library_albums al ON al.id = t.album_id
LEFT JOIN library_artists ar ON ar.id = t.artist_id
LEFT JOIN library_artists aar ON aar.id = al.artist_id
LEFT JOIN library_media_files f ON f.id = (SELECT m.id FROM library_media_files m WHERE m.track_id = t.id AND m.available = 1
  ORDER BY m.lossless DESC, m.id LIMIT 1)`;

const ALBUM_SELECT = `SELECT a.id, a.identity_key, a.mbid, a.title, a.sort_name, a.album_artist, a.artist_id,
  ar.identity_key AS artist_key, a.release_date, a.year, a.album_type, a.secondary_types, a.created_at,
  a.available_track_count, a.duration_ms, a.image_key,
  (SELECT g.name FROM library_genre_links l JOIN library_genres g ON g.id = l.genre_id
    WHERE l.kind = 2 AND l.entity_id = a.id ORDER BY g.sort_name LIMIT 1) AS genre
FROM library_albums a LEFT JOIN library_artists ar ON ar.id = a.artist_id`;

const ARTIST_SELECT =
  'SELECT id, identity_key, mbid, name, sort_name, album_count, appears_on_count, image_key FROM library_artists';

/** Keeps rows in the order of the ids asked for. */
function inOrder<T extends { id: number }>(ids: number[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}

/** Search text as the user typed it; null means "everything" ("" and * are what sync clients send). */
export function searchTerm(query: string | undefined): string | null {
  const q = (query ?? '').trim().replace(/^"+|"+$/g, '').replace(/\*+$/g, '').trim();
  return q === '' ? null : q;
}

export class SubsonicLibrary {
  private readonly s;

  constructor(private readonly db: Db) {
    const pluck = (sql: string) => db.prepare(sql).pluck();
    this.s = {
      songs: db.prepare(`${SONG_SELECT} WHERE t.id IN (SELECT value FROM json_each(?))`),
      albums: db.prepare(`${ALBUM_SELECT} WHERE a.id IN (SELECT value FROM json_each(?))`),
      artists: db.prepare(`${ARTIST_SELECT} WHERE id IN (SELECT value FROM json_each(?))`),
      indexArtists: db.prepare(`${ARTIST_SELECT} WHERE available = 1 AND album_count > 0 AND flow_hidden = 0`),
      albumsOfArtist: pluck(
        'SELECT id FROM library_albums WHERE artist_id = ? AND available = 1 ORDER BY year, sort_name, id',
      ),
      // Other artists' albums carrying a track of the artist (compilations), as Navidrome lists them.
      appearanceAlbums: pluck(
        `SELECT al.id FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id
         JOIN library_albums al ON al.id = l.album_id
         WHERE t.artist_id = @artist AND al.artist_id != @artist AND al.available = 1 AND t.flow_hidden = 0
         GROUP BY al.id ORDER BY al.year, al.sort_name, al.id LIMIT 1000`,
      ),
      songsOfAlbum: pluck(
        `SELECT t.id FROM library_album_tracks l JOIN library_tracks t ON t.id = l.track_id
         WHERE l.album_id = ? AND t.available = 1 AND t.flow_hidden = 0 ORDER BY l.disc_number, l.track_number, t.id`,
      ),
      allArtists: pluck('SELECT id FROM library_artists WHERE available = 1 AND album_count > 0 ORDER BY id LIMIT ? OFFSET ?'),
      allAlbums: pluck('SELECT id FROM library_albums WHERE available = 1 ORDER BY id LIMIT ? OFFSET ?'),
      allSongs: pluck('SELECT id FROM library_tracks WHERE available = 1 AND flow_hidden = 0 ORDER BY id LIMIT ? OFFSET ?'),
      genreId: pluck('SELECT id FROM library_genres WHERE name = ?'),
      genres: db.prepare(
        `SELECT g.name, s.available_album_count AS albums, s.available_track_count AS songs
         FROM library_genre_stats s JOIN library_genres g ON g.id = s.genre_id
         WHERE s.available_track_count > 0 ORDER BY g.sort_name, g.id`,
      ),
      genreSongs: pluck(
        `SELECT entity_id FROM library_genre_links WHERE genre_id = ? AND kind = 3 AND available = 1
         ORDER BY sort_name, entity_id LIMIT ? OFFSET ?`,
      ),
      genreTrackCount: pluck('SELECT available_track_count FROM library_genre_stats WHERE genre_id = ?'),
      randomGenreSongs: pluck(
        `SELECT entity_id FROM library_genre_links WHERE genre_id = ? AND kind = 3 AND available = 1 ORDER BY random() LIMIT ?`,
      ),
      seekGenreSong: pluck(
        `SELECT l.entity_id FROM library_genre_links l WHERE l.kind = 3 AND l.entity_id >= ? AND l.genre_id = ?
         AND l.available = 1 ORDER BY l.entity_id LIMIT 1`,
      ),
      maxTrackId: pluck('SELECT MAX(id) FROM library_tracks'),
      maxAlbumId: pluck('SELECT MAX(id) FROM library_albums'),
      seekSong: pluck('SELECT id FROM library_tracks WHERE available = 1 AND flow_hidden = 0 AND id >= ? ORDER BY id LIMIT 1'),
      seekSongInYears: pluck(
        `SELECT id FROM library_tracks WHERE available = 1 AND flow_hidden = 0 AND id >= ? AND year BETWEEN ? AND ?
         ORDER BY id LIMIT 1`,
      ),
      seekAlbum: pluck('SELECT id FROM library_albums WHERE available = 1 AND id >= ? ORDER BY id LIMIT 1'),
      stat: pluck('SELECT value FROM library_stats WHERE key = ?'),
      topSongsOfArtist: pluck(
        `SELECT t.id FROM library_tracks t LEFT JOIN (
           SELECT entity_id, SUM(play_count) AS plays FROM subsonic_play_stats WHERE entity_kind = 'track' GROUP BY entity_id
         ) p ON p.entity_id = t.id
         WHERE t.artist_id = ? AND t.available = 1 AND t.flow_hidden = 0 ORDER BY COALESCE(p.plays, 0) DESC, t.sort_name, t.id LIMIT ?`,
      ),
      artistByName: pluck('SELECT id FROM library_artists WHERE sort_name = ? ORDER BY album_count DESC, id LIMIT 1'),
      songsOfArtist: pluck('SELECT id FROM library_tracks WHERE artist_id = ? AND available = 1 AND flow_hidden = 0 ORDER BY sort_name, id LIMIT ?'),
      songByTitle: pluck(
        `SELECT id FROM library_tracks WHERE sort_name = ? AND available = 1 AND flow_hidden = 0
         AND (? IS NULL OR artist_sort_name = ?) ORDER BY id LIMIT 1`,
      ),
      fingerprint: db.prepare(
        `SELECT (SELECT MAX(id) FROM library_artists) AS a, (SELECT MAX(id) FROM library_albums) AS b,
           (SELECT MAX(id) FROM library_tracks) AS c, (SELECT COALESCE(MAX(completed_at), 0) FROM library_scan_runs) AS d,
           (SELECT GROUP_CONCAT(value) FROM library_stats) AS e`,
      ),
      lastChange: pluck(
        `SELECT MAX(m) FROM (SELECT MAX(updated_at) AS m FROM library_artists
           UNION ALL SELECT COALESCE(MAX(completed_at), 0) FROM library_scan_runs)`,
      ),
    };
  }

  songs(ids: number[]): SongRow[] {
    if (ids.length === 0) return [];
    return inOrder(ids, this.s.songs.all(JSON.stringify(ids)) as SongRow[]);
  }

  song(id: number): SongRow | undefined {
    return this.songs([id])[0];
  }

  albums(ids: number[]): AlbumEntry[] {
    if (ids.length === 0) return [];
    return inOrder(ids, this.s.albums.all(JSON.stringify(ids)) as AlbumEntry[]);
  }

  album(id: number): AlbumEntry | undefined {
    return this.albums([id])[0];
  }

  artists(ids: number[]): ArtistEntry[] {
    if (ids.length === 0) return [];
    return inOrder(ids, this.s.artists.all(JSON.stringify(ids)) as ArtistEntry[]);
  }

  artist(id: number): ArtistEntry | undefined {
    return this.artists([id])[0];
  }

  /** Every artist the index lists (album artists with something playable). */
  indexArtists(): ArtistEntry[] {
    return this.s.indexArtists.all() as ArtistEntry[];
  }

  albumIdsOfArtist(artistId: number): number[] {
    return this.s.albumsOfArtist.all(artistId) as number[];
  }

  /** The artist's own albums, then the other artists' albums it appears on. */
  albumIdsWithAppearances(artistId: number): number[] {
    return [...this.albumIdsOfArtist(artistId), ...(this.s.appearanceAlbums.all({ artist: artistId }) as number[])];
  }

  songIdsOfAlbum(albumId: number): number[] {
    return this.s.songsOfAlbum.all(albumId) as number[];
  }

  genres(): { name: string; albums: number; songs: number }[] {
    return this.s.genres.all() as { name: string; albums: number; songs: number }[];
  }

  genreSongIds(genre: string, count: number, offset: number): number[] {
    const id = this.s.genreId.get(genre) as number | undefined;
    return id === undefined ? [] : (this.s.genreSongs.all(id, count, offset) as number[]);
  }

  /** A page of one kind in a search: everything in id order, or the entities matching a term. */
  searchIds(kind: 'artist' | 'album' | 'track', term: string | null, count: number, offset: number): number[] {
    if (count <= 0) return [];
    if (term === null) {
      const stmt = kind === 'artist' ? this.s.allArtists : kind === 'album' ? this.s.allAlbums : this.s.allSongs;
      return stmt.all(count, offset) as number[];
    }
    const table = kind === 'artist' ? 'library_artists' : kind === 'album' ? 'library_albums' : 'library_tracks';
    // A search also finds artists known only from other artists' albums (getArtist lists those).
    const extra = kind === 'artist' ? ' AND (e.album_count > 0 OR e.appears_on_count > 0)' : '';
    const expr = ftsExpression(term);
    if (expr) {
      return this.db
        .prepare(
          `SELECT e.id FROM ${table}_fts f JOIN ${table} e ON e.id = f.rowid
           WHERE ${table}_fts MATCH ? AND e.available = 1 AND e.flow_hidden = 0${extra} ORDER BY f.rowid LIMIT ? OFFSET ?`,
        )
        .pluck()
        .all(expr, count, offset) as number[];
    }
    // Under three characters the trigram index cannot help: match the start of the sort key.
    const prefix = sortName(term);
    return this.db
      .prepare(
        `SELECT e.id FROM ${table} e WHERE e.sort_name >= ? AND e.sort_name < ? AND e.available = 1 AND e.flow_hidden = 0${extra}
         ORDER BY e.sort_name, e.id LIMIT ? OFFSET ?`,
      )
      .pluck()
      .all(prefix, prefixUpperBound(prefix), count, offset) as number[];
  }

  albumListIds(q: AlbumListQuery): number[] {
    const { size, offset } = q;
    const ids = (sql: string, ...args: unknown[]) => this.db.prepare(sql).pluck().all(...args, size, offset) as number[];
    switch (q.type) {
      case 'newest':
        return ids('SELECT id FROM library_albums WHERE available = 1 ORDER BY latest_media_at DESC, id DESC LIMIT ? OFFSET ?');
      case 'alphabeticalByName':
        return ids('SELECT id FROM library_albums WHERE available = 1 ORDER BY sort_name, id LIMIT ? OFFSET ?');
      case 'alphabeticalByArtist':
        return ids(
          'SELECT id FROM library_albums WHERE available = 1 ORDER BY artist_sort_name, year, sort_name, id LIMIT ? OFFSET ?',
        );
      case 'byYear': {
        const from = q.fromYear ?? 0;
        const to = q.toYear ?? 9999;
        const dir = from > to ? 'DESC' : 'ASC';
        return ids(
          `SELECT id FROM library_albums WHERE year BETWEEN ? AND ? AND available = 1
           ORDER BY year ${dir}, sort_name ${dir}, id ${dir} LIMIT ? OFFSET ?`,
          Math.min(from, to),
          Math.max(from, to),
        );
      }
      case 'byGenre': {
        const genreId = this.s.genreId.get(q.genre ?? '') as number | undefined;
        if (genreId === undefined) return [];
        return ids(
          `SELECT entity_id FROM library_genre_links WHERE genre_id = ? AND kind = 2 AND available = 1
           ORDER BY sort_name, entity_id LIMIT ? OFFSET ?`,
          genreId,
        );
      }
      case 'random':
        return this.randomAlbumIds(size);
      case 'starred':
        return ids(
          `SELECT f.entity_id FROM library_favorites f JOIN library_albums a ON a.id = f.entity_id
           WHERE f.user_id = ? AND f.entity_kind = 'album' AND a.available = 1
           ORDER BY f.created_at DESC, f.entity_id DESC LIMIT ? OFFSET ?`,
          q.userId,
        );
      case 'frequent':
        return ids(
          `SELECT s.entity_id FROM subsonic_play_stats s JOIN library_albums a ON a.id = s.entity_id
           WHERE s.user_id = ? AND s.entity_kind = 'album' AND a.available = 1
           ORDER BY s.play_count DESC, s.entity_id DESC LIMIT ? OFFSET ?`,
          q.userId,
        );
      case 'recent':
        return ids(
          `SELECT s.entity_id FROM subsonic_play_stats s JOIN library_albums a ON a.id = s.entity_id
           WHERE s.user_id = ? AND s.entity_kind = 'album' AND a.available = 1
           ORDER BY s.last_played_at DESC, s.entity_id DESC LIMIT ? OFFSET ?`,
          q.userId,
        );
      case 'highest':
        return ids(
          `SELECT r.entity_id FROM subsonic_ratings r JOIN library_albums a ON a.id = r.entity_id
           WHERE r.user_id = ? AND r.entity_kind = 'album' AND a.available = 1
           ORDER BY r.rating DESC, r.entity_id DESC LIMIT ? OFFSET ?`,
          q.userId,
        );
    }
  }

  /** Random available albums: ORDER BY random() on small libraries, index seeks on big ones. */
  randomAlbumIds(size: number): number[] {
    const total = (this.s.stat.get('albums:all:1') as number | undefined) ?? 0;
    if (total <= 5000)
      return this.db.prepare('SELECT id FROM library_albums WHERE available = 1 ORDER BY random() LIMIT ?').pluck().all(size) as number[];
    const max = (this.s.maxAlbumId.get() as number | null) ?? 0;
    return seekRandom(size, max, (start) => this.s.seekAlbum.get(start) as number | undefined);
  }

  randomSongIds(size: number, filter: { genre?: string; fromYear?: number; toYear?: number }): number[] {
    const max = (this.s.maxTrackId.get() as number | null) ?? 0;
    if (filter.genre !== undefined) {
      const genreId = this.s.genreId.get(filter.genre) as number | undefined;
      if (genreId === undefined) return [];
      const members = (this.s.genreTrackCount.get(genreId) as number | undefined) ?? 0;
      let ids: number[];
      if (members <= 5000 || filter.fromYear !== undefined || filter.toYear !== undefined) {
        ids = this.s.randomGenreSongs.all(genreId, filter.fromYear !== undefined || filter.toYear !== undefined ? 5000 : size) as number[];
      } else {
        ids = seekRandom(size, max, (start) => this.s.seekGenreSong.get(start, genreId) as number | undefined);
      }
      if (filter.fromYear === undefined && filter.toYear === undefined) return ids.slice(0, size);
      const from = filter.fromYear ?? 0;
      const to = filter.toYear ?? 9999;
      return this.songs(ids)
        .filter((s) => s.year >= Math.min(from, to) && s.year <= Math.max(from, to))
        .slice(0, size)
        .map((s) => s.id);
    }
    const total = (this.s.stat.get('tracks:all:1') as number | undefined) ?? 0;
    if (filter.fromYear !== undefined || filter.toYear !== undefined) {
      const from = filter.fromYear ?? 0;
      const to = filter.toYear ?? 9999;
      const lo = Math.min(from, to);
      const hi = Math.max(from, to);
      if (total <= 5000)
        return this.db
          .prepare('SELECT id FROM library_tracks WHERE available = 1 AND flow_hidden = 0 AND year BETWEEN ? AND ? ORDER BY random() LIMIT ?')
          .pluck()
          .all(lo, hi, size) as number[];
      return seekRandom(size, max, (start) => this.s.seekSongInYears.get(start, lo, hi) as number | undefined);
    }
    if (total <= 5000)
      return this.db.prepare('SELECT id FROM library_tracks WHERE available = 1 AND flow_hidden = 0 ORDER BY random() LIMIT ?').pluck().all(size) as number[];
    return seekRandom(size, max, (start) => this.s.seekSong.get(start) as number | undefined);
  }

  topSongIdsOfArtist(artistId: number, count: number): number[] {
    return this.s.topSongsOfArtist.all(artistId, count) as number[];
  }

  artistIdByName(name: string): number | undefined {
    return this.s.artistByName.get(sortName(name)) as number | undefined;
  }

  songIdsOfArtist(artistId: number, count: number): number[] {
    return this.s.songsOfArtist.all(artistId, count) as number[];
  }

  songIdByTitle(title: string, artist: string | undefined): number | undefined {
    const a = artist === undefined ? null : sortName(artist);
    return this.s.songByTitle.get(sortName(title), a, a) as number | undefined;
  }

  /** Changes whenever the library's content may have changed (artist index cache key). */
  fingerprint(): string {
    const r = this.s.fingerprint.get() as Record<string, unknown>;
    const version = this.db.pragma('data_version', { simple: true }) as number;
    return `${version}|${r.a}|${r.b}|${r.c}|${r.d}|${r.e}`;
  }

  lastChangeAt(): number {
    return (this.s.lastChange.get() as number | null) ?? 0;
  }
}

/** Up to `size` distinct ids found by seeking from random starting points in [1, max]. */
function seekRandom(size: number, max: number, seek: (start: number) => number | undefined): number[] {
  const found = new Set<number>();
  if (max <= 0) return [];
  for (let attempt = 0; attempt < size * 4 && found.size < size; attempt++) {
    const id = seek(1 + Math.floor(Math.random() * max));
    if (id !== undefined) found.add(id);
  }
  return [...found];
}
