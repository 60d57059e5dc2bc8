import type { Db } from './connection.js';
import { CanonicalPages, type CanonicalKind, type CanonicalQuery, type SourceFilter } from './libraryPages.js';
import type { MediaSource } from './libraryModel.js';

export {
  DEFAULT_DIRECTION, SORTS, ftsExpression, type CanonicalKind, type CanonicalQuery, type Direction, type SourceFilter,
} from './libraryPages.js';

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
  rg_track_gain: number | null; rg_track_peak: number | null; rg_album_gain: number | null; rg_album_peak: number | null;
  rg_source: string | null; rg_album_source: string | null; rg_error: string | null;
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


const TRACK_COLUMNS = `e.id, e.identity_key, e.mbid, e.title, e.artist_name, e.artist_id, e.album_id,
  al.title AS album_title, al.mbid AS album_mbid, e.disc_number, e.track_number, e.year, e.duration_ms, e.lyrics,
  e.monitored, e.created_at, e.size_on_disk, e.sources, e.available, e.latest_media_at, al.image_key`;

/**
 * Read side of the canonical store: bounded pages (libraryPages.ts, hydrated here), by-id and by-MBID
 * reads, an artist's albums and appearances, counts, genres, random selection.
 */
export class LibraryReader {
  private readonly stmts;
  private readonly pages: CanonicalPages;

  constructor(db: Db) {
    this.pages = new CanonicalPages(db, (kind, ids) => this.rowsByIds(kind, ids));
    this.stmts = {
      stat: db.prepare('SELECT value FROM library_stats WHERE key = ?').pluck(),
      artist: db.prepare('SELECT * FROM library_artists WHERE id = ?'),
      artistByMbid: db.prepare('SELECT * FROM library_artists WHERE mbid = ? ORDER BY id LIMIT 1'),
      album: db.prepare('SELECT * FROM library_albums WHERE id = ?'),
      albumByMbid: db.prepare('SELECT * FROM library_albums WHERE mbid = ? OR release_mbid = ? ORDER BY id LIMIT 1'),
      albumsOfArtist: db.prepare('SELECT * FROM library_albums WHERE artist_id = ? AND flow_hidden = 0 ORDER BY year, sort_name, id'),
      appearances: db.prepare(
        `SELECT l.album_id AS albumId, l.track_id AS trackId
         FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id JOIN library_albums al ON al.id = l.album_id
         WHERE t.artist_id = @artist AND al.artist_id != @artist AND t.flow_hidden = 0 AND al.flow_hidden = 0
         ORDER BY al.year, al.sort_name, al.id, l.disc_number, l.track_number, l.track_id LIMIT @limit`,
      ),
      track: db.prepare(
        `SELECT ${TRACK_COLUMNS} FROM library_tracks e LEFT JOIN library_albums al ON al.id = e.album_id WHERE e.id = ?`,
      ),
      tracksOfAlbum: db.prepare(
        `SELECT ${TRACK_COLUMNS} FROM library_album_tracks l JOIN library_tracks e ON e.id = l.track_id
         LEFT JOIN library_albums al ON al.id = e.album_id WHERE l.album_id = ? AND e.flow_hidden = 0
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
      artistsPage: db.prepare('SELECT * FROM library_artists WHERE flow_hidden = 0 ORDER BY sort_name, id LIMIT ? OFFSET ?'),
      recentArtists: db.prepare('SELECT * FROM library_artists WHERE flow_hidden = 0 ORDER BY created_at DESC, id DESC LIMIT ?'),
      randomTrackIds: db.prepare(
        `SELECT id FROM library_tracks WHERE available = 1 AND flow_hidden = 0 AND id >= ? ORDER BY id LIMIT ?`,
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

  /** One bounded canonical page (api.md: GET /api/library/canonical); see libraryPages.ts. */
  /** As-you-type suggestions of one kind (CanonicalPages.suggest). */
  suggest<K extends 'artists' | 'albums' | 'tracks'>(kind: K, query: string, limit: number): K extends 'artists' ? ArtistRow[] : K extends 'albums' ? AlbumRow[] : TrackRow[] {
    return this.pages.suggest(kind, query, limit) as K extends 'artists' ? ArtistRow[] : K extends 'albums' ? AlbumRow[] : TrackRow[];
  }

  canonicalPage(q: CanonicalQuery): CanonicalRows {
    return this.pages.page(q);
  }

  /** The SQL text a page query runs, for EXPLAIN QUERY PLAN checks. */
  explainPage(q: CanonicalQuery): string[] {
    return this.pages.explain(q);
  }

  /** Rows of one kind in the order of `ids`. */
  private rowsByIds(kind: 'artists' | 'albums' | 'tracks', ids: number[]): unknown[] {
    if (ids.length === 0) return [];
    const found = this.stmts.byIds[kind].all(JSON.stringify(ids)) as { id: number }[];
    const byId = new Map(found.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
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
