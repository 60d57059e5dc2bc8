import type { Db } from './connection.js';
import { sep as pathSep } from 'node:path';
import { sortName } from './libraryText.js';
import type { ReplayGain } from './libraryModel.js';

import { KIND, SOURCE_BIT, type AlbumInput, type ArtistInput, type KnownMediaFile, type MediaFileInput, type MediaSource, type TrackInput } from './libraryModel.js';

export * from './libraryModel.js';

/**
 * ReplayGain on a re-read file: values from its tags win; values the analysis measured stay while the
 * file's content fingerprint is unchanged (a full rescan), and are cleared for a new measurement
 * otherwise. A file whose measurement failed is not retried until it changes.
 */
const keepTrackRg = `(excluded.rg_source IS NULL AND library_media_files.rg_source = 'analysis'
  AND library_media_files.fingerprint IS excluded.fingerprint)`;
const keepAlbumRg = `(excluded.rg_album_source IS NULL AND library_media_files.rg_album_source = 'analysis'
  AND library_media_files.fingerprint IS excluded.fingerprint)`;
const REPLAYGAIN_ON_CONFLICT = `
  rg_track_gain = CASE WHEN ${keepTrackRg} THEN library_media_files.rg_track_gain ELSE excluded.rg_track_gain END,
  rg_track_peak = CASE WHEN ${keepTrackRg} THEN library_media_files.rg_track_peak ELSE excluded.rg_track_peak END,
  rg_source = CASE WHEN ${keepTrackRg} THEN library_media_files.rg_source ELSE excluded.rg_source END,
  rg_album_gain = CASE WHEN ${keepAlbumRg} THEN library_media_files.rg_album_gain ELSE excluded.rg_album_gain END,
  rg_album_peak = CASE WHEN ${keepAlbumRg} THEN library_media_files.rg_album_peak ELSE excluded.rg_album_peak END,
  rg_album_source = CASE WHEN ${keepAlbumRg} THEN library_media_files.rg_album_source ELSE excluded.rg_album_source END,
  rg_error = CASE WHEN excluded.rg_source IS NULL AND library_media_files.fingerprint IS excluded.fingerprint
    THEN library_media_files.rg_error ELSE NULL END`;

type WriterStatementMakers = ReturnType<typeof writerStatementMakers>;
type WriterStatements = { [K in keyof WriterStatementMakers]: ReturnType<WriterStatementMakers[K]> };

/**
 * The writer's statements, each prepared when first used (then kept for the connection): a database
 * migrated only part of the way (a test's "previous build") can still be written through the
 * statements its schema has.
 */
function prepareWriterStatements(db: Db): WriterStatements {
  const makers = writerStatementMakers(db);
  const prepared: Partial<WriterStatements> = {};
  return new Proxy(prepared as WriterStatements, {
    get(target, key: string) {
      const k = key as keyof WriterStatements;
      if (!(k in target) && k in makers) (target as Record<string, unknown>)[k] = makers[k]();
      return target[k];
    },
  });
}
const writerStatements = new WeakMap<Db, WriterStatements>();

function writerStatementMakers(db: Db) {
  return {
    artistByKey: () => db.prepare('SELECT id, mbid, name, metadata_json FROM library_artists WHERE identity_key = ?'),
    insertArtist: () => db.prepare(
      `INSERT INTO library_artists (identity_key, subsonic_key, mbid, name, sort_name, metadata_json, created_at, updated_at)
       VALUES (?, subsonic_key(?), ?, ?, ?, ?, ?, ?) RETURNING id`,
    ),
    updateArtist: () => db.prepare(
      'UPDATE library_artists SET mbid = ?, name = ?, sort_name = ?, metadata_json = ?, updated_at = ? WHERE id = ?',
    ),
    albumByKey: () => db.prepare(
      `SELECT id, mbid, release_mbid, artist_id, title, album_artist, release_date, album_type, secondary_types,
              monitored, metadata_json FROM library_albums WHERE identity_key = ?`,
    ),
    insertAlbum: () => db.prepare(
      `INSERT INTO library_albums (identity_key, subsonic_key, mbid, release_mbid, artist_id, title, sort_name, album_artist,
         artist_sort_name, release_date, year, album_type, secondary_types, monitored, metadata_json, created_at, updated_at)
       VALUES (@identityKey, subsonic_key(@identityKey), @mbid, @releaseMbid, @artistId, @title, @sortName, @albumArtist, @artistSortName,
         @releaseDate, @year, @albumType, @secondaryTypes, @monitored, @metadata, @now, @now) RETURNING id`,
    ),
    updateAlbum: () => db.prepare(
      `UPDATE library_albums SET mbid = @mbid, release_mbid = @releaseMbid, artist_id = @artistId, title = @title,
         sort_name = @sortName, album_artist = @albumArtist, artist_sort_name = @artistSortName,
         release_date = @releaseDate, year = @year, album_type = @albumType, secondary_types = @secondaryTypes,
         monitored = @monitored, metadata_json = @metadata, updated_at = @now WHERE id = @id`,
    ),
    upsertTrack: () => db.prepare(
      `INSERT INTO library_tracks (identity_key, subsonic_key, mbid, title, sort_name, artist_name, artist_sort_name,
         artist_id, album_id, album_sort_name, disc_number, track_number, year, duration_ms, lyrics, metadata_json,
         monitored, created_at, updated_at)
       VALUES (@identityKey, subsonic_key(@identityKey), @mbid, @title, @sortName, @artistName, @artistSortName, @artistId, @albumId,
         @albumSortName, @discNumber, @trackNumber, @year, @durationMs, @lyrics, @metadata, @monitored, @now, @now)
       ON CONFLICT (identity_key) DO UPDATE SET mbid = excluded.mbid, title = excluded.title,
         sort_name = excluded.sort_name, artist_name = excluded.artist_name,
         artist_sort_name = excluded.artist_sort_name, artist_id = excluded.artist_id, album_id = excluded.album_id,
         album_sort_name = excluded.album_sort_name, disc_number = excluded.disc_number,
         track_number = excluded.track_number, year = excluded.year, duration_ms = excluded.duration_ms,
         lyrics = excluded.lyrics, metadata_json = excluded.metadata_json, monitored = excluded.monitored,
         updated_at = excluded.updated_at
       RETURNING id`,
    ),
    linkAlbumTrack: () => db.prepare(
      `INSERT INTO library_album_tracks (album_id, track_id, disc_number, track_number) VALUES (?, ?, ?, ?)
       ON CONFLICT (album_id, track_id) DO UPDATE SET disc_number = excluded.disc_number,
         track_number = excluded.track_number`,
    ),
    genreByName: () => db.prepare('SELECT id FROM library_genres WHERE name = ?'),
    insertGenre: () => db.prepare('INSERT INTO library_genres (name, sort_name) VALUES (?, ?) RETURNING id'),
    clearTrackGenres: () => db.prepare('DELETE FROM library_track_genres WHERE track_id = ?'),
    addTrackGenre: () => db.prepare('INSERT OR IGNORE INTO library_track_genres (track_id, genre_id) VALUES (?, ?)'),
    upsertMedia: () => db.prepare(
      `INSERT INTO library_media_files (track_id, album_id, source, path, root, format, mime, codec, size, mtime_ms,
         duration_ms, bitrate, sample_rate, bit_depth, channels, lossless, fingerprint, image_key, tag_error,
         available, last_seen_scan_id, created_at, updated_at)
       VALUES (@trackId, @albumId, @source, @path, @root, @format, @mime, @codec, @size, @mtimeMs, @durationMs,
         @bitrate, @sampleRate, @bitDepth, @channels, @lossless, @fingerprint, @imageKey, @tagError, @available,
         @scanId, @now, @now)
       ON CONFLICT (source, path) DO UPDATE SET track_id = excluded.track_id, album_id = excluded.album_id,
         root = excluded.root, format = excluded.format, mime = excluded.mime, codec = excluded.codec,
         size = excluded.size, mtime_ms = excluded.mtime_ms, duration_ms = excluded.duration_ms,
         bitrate = excluded.bitrate, sample_rate = excluded.sample_rate, bit_depth = excluded.bit_depth,
         channels = excluded.channels, lossless = excluded.lossless, fingerprint = excluded.fingerprint,
         image_key = excluded.image_key, tag_error = excluded.tag_error, available = excluded.available,
         last_seen_scan_id = excluded.last_seen_scan_id, updated_at = excluded.updated_at
       RETURNING id`,
    ),
    // With the file's ReplayGain from its tags (the folder scanner); see REPLAYGAIN_ON_CONFLICT.
    upsertMediaWithRg: () => db.prepare(
      `INSERT INTO library_media_files (track_id, album_id, source, path, root, format, mime, codec, size, mtime_ms,
         duration_ms, bitrate, sample_rate, bit_depth, channels, lossless, fingerprint, image_key, tag_error,
         available, last_seen_scan_id, created_at, updated_at, rg_track_gain, rg_track_peak, rg_album_gain,
         rg_album_peak, rg_source, rg_album_source)
       VALUES (@trackId, @albumId, @source, @path, @root, @format, @mime, @codec, @size, @mtimeMs, @durationMs,
         @bitrate, @sampleRate, @bitDepth, @channels, @lossless, @fingerprint, @imageKey, @tagError, @available,
         @scanId, @now, @now, @rgTrackGain, @rgTrackPeak, @rgAlbumGain, @rgAlbumPeak, @rgSource, @rgAlbumSource)
       ON CONFLICT (source, path) DO UPDATE SET track_id = excluded.track_id, album_id = excluded.album_id,
         root = excluded.root, format = excluded.format, mime = excluded.mime, codec = excluded.codec,
         size = excluded.size, mtime_ms = excluded.mtime_ms, duration_ms = excluded.duration_ms,
         bitrate = excluded.bitrate, sample_rate = excluded.sample_rate, bit_depth = excluded.bit_depth,
         channels = excluded.channels, lossless = excluded.lossless, fingerprint = excluded.fingerprint,
         image_key = excluded.image_key, tag_error = excluded.tag_error, available = excluded.available,
         last_seen_scan_id = excluded.last_seen_scan_id, updated_at = excluded.updated_at,
         ${REPLAYGAIN_ON_CONFLICT}
       RETURNING id`,
    ),
    mediaTrackByPath: () => db.prepare('SELECT track_id FROM library_media_files WHERE source = ? AND path = ?'),
    knownMedia: () => db.prepare(
      `SELECT id, track_id AS trackId, album_id AS albumId, size, mtime_ms AS mtimeMs, available FROM library_media_files
       WHERE source = ? AND path = ?`,
    ),
    touchSeen: () => db.prepare('UPDATE library_media_files SET last_seen_scan_id = ? WHERE id = ?'),
    revive: () => db.prepare('UPDATE library_media_files SET available = 1, last_seen_scan_id = ?, updated_at = ? WHERE id = ?'),
    movedCandidate: () => db.prepare(
      `SELECT id, path, track_id AS trackId FROM library_media_files WHERE fingerprint = ? AND source = ? AND path != ?`,
    ),
    movePath: () => db.prepare('UPDATE library_media_files SET path = ?, root = ?, updated_at = ? WHERE id = ?'),
    markMissing: () => db.prepare(
      `UPDATE library_media_files SET available = 0, updated_at = ?
       WHERE source = ? AND root = ? AND available = 1 AND (last_seen_scan_id IS NULL OR last_seen_scan_id != ?)
       RETURNING track_id`,
    ),
    // Paths under a folder: 'dir/' <= path < 'dir0' ('0' follows '/' in byte order), an index range.
    markMissingInFolder: () => db.prepare(
      `UPDATE library_media_files SET available = 0, updated_at = ?
       WHERE source = ? AND path >= ? AND path < ? AND available = 1
         AND (last_seen_scan_id IS NULL OR last_seen_scan_id != ?)
       RETURNING track_id`,
    ),
    markUnavailableByPath: () => db.prepare(
      `UPDATE library_media_files SET available = 0, updated_at = ? WHERE source = ? AND path = ? AND available = 1
       RETURNING track_id`,
    ),
    markUnavailableById: () => db.prepare(
      'UPDATE library_media_files SET available = 0, updated_at = ? WHERE id = ? AND available = 1 RETURNING track_id',
    ),
    dirty: () => db.prepare('INSERT OR IGNORE INTO library_dirty (kind, entity_id) VALUES (?, ?)'),
    anyTrack: () => db.prepare('SELECT EXISTS (SELECT 1 FROM library_tracks)').pluck(),
    mediaCountOfTrack: () => db.prepare('SELECT COUNT(*) FROM library_media_files WHERE track_id = ?').pluck(),
    trackRefs: () => db.prepare('SELECT artist_id, album_id FROM library_tracks WHERE id = ?'),
    albumsOfTrack: () => db.prepare('SELECT album_id FROM library_album_tracks WHERE track_id = ?').pluck(),
    deleteFavorite: () => db.prepare('DELETE FROM library_favorites WHERE entity_kind = ? AND entity_id = ?'),
    deleteTrack: () => db.prepare('DELETE FROM library_tracks WHERE id = ?'),
    albumArtistAndSource: () => db.prepare('SELECT artist_id, metadata_json FROM library_albums WHERE id = ?'),
    albumUsed: () => db.prepare(
      `SELECT EXISTS (SELECT 1 FROM library_album_tracks WHERE album_id = @id)
         OR EXISTS (SELECT 1 FROM library_tracks WHERE album_id = @id)`,
    ).pluck(),
    detachAlbumMedia: () => db.prepare('UPDATE library_media_files SET album_id = NULL WHERE album_id = ?'),
    deleteAlbum: () => db.prepare('DELETE FROM library_albums WHERE id = ?'),
    artistUsed: () => db.prepare(
      `SELECT EXISTS (SELECT 1 FROM library_albums WHERE artist_id = @id)
         OR EXISTS (SELECT 1 FROM library_tracks WHERE artist_id = @id)`,
    ).pluck(),
    deleteArtist: () => db.prepare('DELETE FROM library_artists WHERE id = ?'),
    linkJustified: () => db.prepare(
      `SELECT EXISTS (SELECT 1 FROM library_media_files WHERE track_id = @track AND album_id = @album)
         OR EXISTS (SELECT 1 FROM library_tracks WHERE id = @track AND album_id = @album)`,
    ).pluck(),
    deleteLink: () => db.prepare('DELETE FROM library_album_tracks WHERE album_id = ? AND track_id = ?'),
  };
}

/**
 * Write side of the canonical store, shared by the folder scanner (source `aurral`) and the Lidarr
 * indexer (source `lidarr`). Every change marks the touched entities dirty; call
 * `refreshDerived` (libraryDerived.ts) after a batch so counts, search and genre snapshots follow.
 * Callers own the transaction (wrap batches in `inTransaction`).
 */
export class LibraryWriter {
  private readonly stmts: WriterStatements;
  /** Entities marked dirty in the current inBatch() call. */
  private markedDirty: Set<number> | null = null;

  constructor(private readonly db: Db) {
    // Prepared once per connection: a scan per filed download would otherwise prepare them all again.
    let cached = writerStatements.get(db);
    if (!cached) writerStatements.set(db, (cached = prepareWriterStatements(db)));
    this.stmts = cached;
  }

  upsertArtist(input: ArtistInput, now: number): number {
    const s = this.stmts;
    const metadata = input.metadata ? JSON.stringify(input.metadata) : null;
    const found = s.artistByKey.get(input.identityKey) as
      | { id: number; mbid: string | null; name: string; metadata_json: string | null }
      | undefined;
    if (!found) {
      const row = s.insertArtist.get(
        input.identityKey, input.identityKey, input.mbid ?? null, input.name, sortName(input.name), metadata, now, now,
      ) as { id: number };
      this.markDirty(KIND.artist, row.id);
      return row.id;
    }
    const mbid = input.mbid ?? found.mbid;
    const meta = metadata ?? found.metadata_json;
    if (found.name !== input.name || found.mbid !== mbid || found.metadata_json !== meta) {
      s.updateArtist.run(mbid, input.name, sortName(input.name), meta, now, found.id);
      this.markDirty(KIND.artist, found.id);
    }
    return found.id;
  }

  upsertAlbum(input: AlbumInput, now: number): number {
    const s = this.stmts;
    const params = {
      identityKey: input.identityKey,
      mbid: input.mbid ?? null,
      releaseMbid: input.releaseMbid ?? null,
      artistId: input.artistId,
      title: input.title,
      sortName: sortName(input.title),
      albumArtist: input.albumArtist,
      artistSortName: sortName(input.albumArtist),
      releaseDate: input.releaseDate ?? null,
      year: yearOf(input.releaseDate),
      albumType: input.albumType ?? null,
      secondaryTypes: JSON.stringify(input.secondaryTypes ?? []),
      monitored: input.monitored === false ? 0 : 1,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      now,
    };
    const found = s.albumByKey.get(input.identityKey) as Record<string, unknown> & { id: number } | undefined;
    if (!found) {
      const row = s.insertAlbum.get(params) as { id: number };
      this.markDirty(KIND.album, row.id);
      return row.id;
    }
    params.mbid ??= found.mbid as string | null;
    params.releaseMbid ??= found.release_mbid as string | null;
    params.metadata ??= found.metadata_json as string | null;
    // Files of one album may carry "1997" or "1997-09-22": keep the more precise date.
    const oldDate = found.release_date as string | null;
    if (oldDate && (!params.releaseDate || (oldDate.startsWith(params.releaseDate) && oldDate.length > params.releaseDate.length))) {
      params.releaseDate = oldDate;
      params.year = yearOf(oldDate);
    }
    const changed =
      found.mbid !== params.mbid || found.release_mbid !== params.releaseMbid || found.artist_id !== params.artistId ||
      found.title !== params.title || found.album_artist !== params.albumArtist ||
      found.release_date !== params.releaseDate || found.album_type !== params.albumType ||
      found.secondary_types !== params.secondaryTypes || found.monitored !== params.monitored ||
      found.metadata_json !== params.metadata;
    if (changed) {
      s.updateAlbum.run({ ...params, id: found.id });
      this.markDirty(KIND.album, found.id);
    }
    return found.id;
  }

  upsertTrack(input: TrackInput, now: number): number {
    const s = this.stmts;
    const row = s.upsertTrack.get({
      identityKey: input.identityKey,
      mbid: input.mbid ?? null,
      title: input.title,
      sortName: sortName(input.title),
      artistName: input.artistName,
      artistSortName: sortName(input.artistName),
      artistId: input.artistId,
      albumId: input.albumId,
      albumSortName: input.albumTitle ? sortName(input.albumTitle) : '',
      discNumber: input.discNumber ?? 1,
      trackNumber: input.trackNumber ?? 0,
      year: input.year ?? 0,
      durationMs: Math.round(input.durationMs ?? 0),
      lyrics: input.lyrics ?? null,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      monitored: input.monitored === false ? 0 : 1,
      now,
    }) as { id: number };
    if (input.albumId !== null) {
      s.linkAlbumTrack.run(input.albumId, row.id, input.discNumber ?? 1, input.trackNumber ?? 0);
      this.markDirty(KIND.album, input.albumId);
    }
    if (input.genres) this.setTrackGenres(row.id, input.genres);
    this.markDirty(KIND.track, row.id);
    return row.id;
  }

  setTrackGenres(trackId: number, genres: string[]): void {
    this.stmts.clearTrackGenres.run(trackId);
    for (const name of genres) {
      const trimmed = name.trim();
      if (trimmed === '') continue;
      this.stmts.addTrackGenre.run(trackId, this.genreId(trimmed));
    }
  }

  genreId(name: string): number {
    const found = this.stmts.genreByName.get(name) as { id: number } | undefined;
    if (found) return found.id;
    return (this.stmts.insertGenre.get(name, sortName(name)) as { id: number }).id;
  }

  /**
   * `previousTrackId`: the track the row at this path belonged to before, when the caller read the
   * row already in this transaction (null: no row); looked up otherwise.
   */
  upsertMediaFile(input: MediaFileInput, now: number, previousTrackId?: number | null): number {
    const previous =
      previousTrackId === undefined
        ? (this.stmts.mediaTrackByPath.get(input.source, input.path) as { track_id: number } | undefined)
        : previousTrackId === null
          ? undefined
          : { track_id: previousTrackId };
    // A caller that knows nothing of ReplayGain (the Lidarr indexer) leaves the stored values alone.
    const upsert = input.replayGain === undefined ? this.stmts.upsertMedia : this.stmts.upsertMediaWithRg;
    const row = upsert.get({
      trackId: input.trackId,
      albumId: input.albumId,
      source: input.source,
      path: input.path,
      root: input.root ?? null,
      format: input.format ?? null,
      mime: input.mime ?? null,
      codec: input.codec ?? null,
      size: input.size,
      mtimeMs: Math.round(input.mtimeMs),
      durationMs: Math.round(input.durationMs ?? 0),
      bitrate: input.bitrate ?? null,
      sampleRate: input.sampleRate ?? null,
      bitDepth: input.bitDepth ?? null,
      channels: input.channels ?? null,
      lossless: input.lossless ? 1 : 0,
      fingerprint: input.fingerprint ?? null,
      imageKey: input.imageKey ?? null,
      tagError: input.tagError ?? null,
      available: input.available === false ? 0 : 1,
      scanId: input.scanId ?? null,
      now,
      ...(input.replayGain !== undefined && replayGainParams(input.replayGain)),
    }) as { id: number };
    this.markDirty(KIND.track, input.trackId);
    if (previous && previous.track_id !== input.trackId) this.markDirty(KIND.track, previous.track_id);
    return row.id;
  }

  /** Whether the library holds any track (of any source). */
  hasTracks(): boolean {
    return this.stmts.anyTrack.get() === 1;
  }

  knownMediaFile(source: MediaSource, path: string): KnownMediaFile | undefined {
    return this.stmts.knownMedia.get(source, path) as KnownMediaFile | undefined;
  }

  /** Records that an unchanged file was seen by a scan (and revives it if it had gone missing). */
  markSeen(file: KnownMediaFile, scanId: number, now: number): void {
    if (file.available) {
      this.stmts.touchSeen.run(scanId, file.id);
      return;
    }
    this.stmts.revive.run(scanId, now, file.id);
    this.markDirty(KIND.track, file.trackId);
  }

  /**
   * A file at a new path whose content fingerprint matches a media row whose own path is gone is the
   * same file moved: the row (and so its id) follows the file.
   */
  moveIfSameContent(
    source: MediaSource,
    fingerprint: string,
    newPath: string,
    root: string | null,
    stillExists: (path: string) => boolean,
    now: number,
  ): number | null {
    const candidates = this.stmts.movedCandidate.all(fingerprint, source, newPath) as {
      id: number;
      path: string;
      trackId: number;
    }[];
    for (const candidate of candidates) {
      if (stillExists(candidate.path)) continue;
      this.stmts.movePath.run(newPath, root, now, candidate.id);
      this.markDirty(KIND.track, candidate.trackId);
      return candidate.id;
    }
    return null;
  }

  /** Marks every file of a source under one root not seen by `scanId` unavailable; returns how many. */
  markMissingUnder(source: MediaSource, root: string, scanId: number, now: number): number {
    const rows = this.stmts.markMissing.all(now, source, root, scanId) as { track_id: number }[];
    for (const r of rows) this.markDirty(KIND.track, r.track_id);
    return rows.length;
  }

  /** Marks the files of a source inside one folder (at any depth) not seen by `scanId` unavailable. */
  markMissingInFolder(source: MediaSource, folder: string, scanId: number, now: number): number {
    const prefix = folder.endsWith(pathSep) ? folder : folder + pathSep;
    const rows = this.stmts.markMissingInFolder.all(now, source, prefix, prefix.slice(0, -1) + '0', scanId) as {
      track_id: number;
    }[];
    for (const r of rows) this.markDirty(KIND.track, r.track_id);
    return rows.length;
  }

  /** Marks the file at one path unavailable (it was deleted); returns whether it was available. */
  markPathUnavailable(source: MediaSource, path: string, now: number): boolean {
    const row = this.stmts.markUnavailableByPath.get(now, source, path) as { track_id: number } | undefined;
    if (row) this.markDirty(KIND.track, row.track_id);
    return row !== undefined;
  }

  markMediaUnavailable(mediaId: number, now: number): boolean {
    const row = this.stmts.markUnavailableById.get(now, mediaId) as { track_id: number } | undefined;
    if (row) this.markDirty(KIND.track, row.track_id);
    return row !== undefined;
  }

  /**
   * After a file was retagged into another album: drops the track's link to its previous album unless
   * another of its files still lies in that album or the track itself still names it, and prunes the
   * album (and its artist) when nothing is left in it. Returns whether the link was dropped.
   */
  pruneAlbumLink(trackId: number, albumId: number): boolean {
    if (this.stmts.linkJustified.get({ track: trackId, album: albumId })) return false;
    const removed = this.stmts.deleteLink.run(albumId, trackId).changes > 0;
    this.markDirty(KIND.album, albumId);
    const artistId = this.pruneAlbumIfUnused(albumId);
    if (artistId !== null) this.pruneArtistIfUnused(artistId);
    return removed;
  }

  /**
   * Deletes a track that has no media file left, then its album and artist when nothing else refers
   * to them (favorites of pruned entities go too). Returns whether the track was pruned.
   */
  pruneTrackIfOrphan(trackId: number): boolean {
    const s = this.stmts;
    if ((s.mediaCountOfTrack.get(trackId) as number) > 0) return false;
    const track = s.trackRefs.get(trackId) as { artist_id: number | null; album_id: number | null } | undefined;
    if (!track) return false;
    const albumIds = new Set(s.albumsOfTrack.all(trackId) as number[]);
    if (track.album_id !== null) albumIds.add(track.album_id);
    const artistIds = new Set<number>();
    if (track.artist_id !== null) artistIds.add(track.artist_id);
    s.deleteFavorite.run('track', trackId);
    s.deleteTrack.run(trackId);
    this.markDirty(KIND.track, trackId);
    for (const albumId of albumIds) {
      const artistId = this.pruneAlbumIfUnused(albumId);
      if (artistId !== null) artistIds.add(artistId);
    }
    for (const artistId of artistIds) this.pruneArtistIfUnused(artistId);
    return true;
  }

  /**
   * Deletes an album no track refers to any more (unless Lidarr lists it: its next run decides).
   * Returns the album's artist id for the caller to check, or null when the album is gone already.
   */
  private pruneAlbumIfUnused(albumId: number): number | null {
    const s = this.stmts;
    const album = s.albumArtistAndSource.get(albumId) as { artist_id: number; metadata_json: string | null } | undefined;
    if (!album) return null;
    this.markDirty(KIND.album, albumId);
    if (s.albumUsed.get({ id: albumId })) return album.artist_id;
    if (album.metadata_json?.includes('"source":"lidarr"')) return album.artist_id;
    s.detachAlbumMedia.run(albumId);
    s.deleteFavorite.run('album', albumId);
    s.deleteAlbum.run(albumId);
    return album.artist_id;
  }

  private pruneArtistIfUnused(artistId: number): void {
    const s = this.stmts;
    if (!s.artistUsed.get({ id: artistId })) {
      s.deleteFavorite.run('artist', artistId);
      s.deleteArtist.run(artistId);
    }
    this.markDirty(KIND.artist, artistId);
  }

  /** Removes one media file row (after its file was deleted) and prunes what it leaves orphaned. */
  deleteMediaFile(mediaId: number): { trackPruned: boolean } {
    const row = this.db.prepare('DELETE FROM library_media_files WHERE id = ? RETURNING track_id').get(mediaId) as
      | { track_id: number }
      | undefined;
    if (!row) return { trackPruned: false };
    this.markDirty(KIND.track, row.track_id);
    return { trackPruned: this.pruneTrackIfOrphan(row.track_id) };
  }

  markDirty(kind: number, id: number): void {
    const marked = this.markedDirty;
    if (marked) {
      const key = kind * 2 ** 40 + id;
      if (marked.has(key)) return;
      marked.add(key);
    }
    this.stmts.dirty.run(kind, id);
  }

  /**
   * Runs `fn` (inside the caller's transaction) marking each entity dirty once: a batch of a scan
   * marks the same album and track again and again. Only within one transaction: nothing else takes
   * dirty marks while it holds the write lock, so a mark made once stays until the batch commits.
   */
  inBatch<T>(fn: () => T): T {
    const outer = this.markedDirty;
    this.markedDirty = outer ?? new Set();
    try {
      return fn();
    } finally {
      this.markedDirty = outer;
    }
  }
}

/** A file's ReplayGain from its tags as the upsert's parameters (a pair counts only with its gain). */
function replayGainParams(rg: ReplayGain | null) {
  const track = rg?.trackGain != null;
  const album = rg?.albumGain != null;
  return {
    rgTrackGain: track ? rg!.trackGain : null,
    rgTrackPeak: track ? rg!.trackPeak : null,
    rgSource: track ? 'tags' : null,
    rgAlbumGain: album ? rg!.albumGain : null,
    rgAlbumPeak: album ? rg!.albumPeak : null,
    rgAlbumSource: album ? 'tags' : null,
  };
}

export function yearOf(date: string | null | undefined): number {
  const m = date ? /^(\d{4})/.exec(date) : null;
  return m ? Number(m[1]) : 0;
}
