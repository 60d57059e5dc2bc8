import type { Db } from './connection.js';
import { KIND, type LibraryWriter } from './libraryWrites.js';

export interface LidarrArtistIndexRow {
  lidarrArtistId: number;
  mbid: string;
  canonicalArtistId: number | null;
  fingerprint: string | null;
}

/** lidarr_artist_index: one row per Lidarr artist the indexer has written. */
export class LidarrIndexRepository {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      all: db.prepare(
        `SELECT lidarr_artist_id AS lidarrArtistId, mbid, canonical_artist_id AS canonicalArtistId, fingerprint
         FROM lidarr_artist_index`,
      ),
      get: db.prepare(
        `SELECT lidarr_artist_id AS lidarrArtistId, mbid, canonical_artist_id AS canonicalArtistId, fingerprint
         FROM lidarr_artist_index WHERE lidarr_artist_id = ?`,
      ),
      stamp: db.prepare(
        `INSERT INTO lidarr_artist_index (lidarr_artist_id, mbid, canonical_artist_id, fingerprint, indexed_at, root_folder)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (lidarr_artist_id) DO UPDATE SET mbid = excluded.mbid,
           canonical_artist_id = excluded.canonical_artist_id, fingerprint = excluded.fingerprint,
           indexed_at = excluded.indexed_at, root_folder = excluded.root_folder`,
      ),
      rootFolders: db.prepare('SELECT DISTINCT root_folder FROM lidarr_artist_index WHERE root_folder IS NOT NULL'),
      forget: db.prepare('DELETE FROM lidarr_artist_index WHERE lidarr_artist_id = ?'),
      tracksOfLidarrArtist: db.prepare(
        `SELECT id FROM library_tracks
         WHERE artist_id = ? AND json_extract(metadata_json, '$.lidarrArtistId') = ?`,
      ),
      deleteLidarrMedia: db.prepare("DELETE FROM library_media_files WHERE track_id = ? AND source = 'lidarr'"),
      emptyLidarrAlbums: db.prepare(
        `SELECT a.id FROM library_albums a
         WHERE a.artist_id = ? AND json_extract(a.metadata_json, '$.lidarrArtistId') = ?
           AND NOT EXISTS (SELECT 1 FROM library_album_tracks t WHERE t.album_id = a.id)
           AND NOT EXISTS (SELECT 1 FROM library_tracks t WHERE t.album_id = a.id)`,
      ),
      lidarrAlbumsOfArtist: db.prepare(
        `SELECT id, json_extract(metadata_json, '$.lidarrAlbumId') AS lidarrAlbumId FROM library_albums
         WHERE artist_id = ? AND json_extract(metadata_json, '$.lidarrArtistId') = ?`,
      ),
      albumTracks: db.prepare('SELECT track_id FROM library_album_tracks WHERE album_id = ?'),
      unlinkAlbumTrack: db.prepare('DELETE FROM library_album_tracks WHERE album_id = ? AND track_id = ?'),
      deleteAlbum: db.prepare('DELETE FROM library_albums WHERE id = ?'),
      clearAlbumOfMedia: db.prepare('UPDATE library_media_files SET album_id = NULL WHERE album_id = ?'),
      clearAlbumOfTracks: db.prepare('UPDATE library_tracks SET album_id = NULL WHERE album_id = ?'),
      deleteAlbumFavorites: db.prepare("DELETE FROM library_favorites WHERE entity_kind = 'album' AND entity_id = ?"),
      artistUsed: db.prepare(
        `SELECT EXISTS (SELECT 1 FROM library_albums WHERE artist_id = ?)
           OR EXISTS (SELECT 1 FROM library_tracks WHERE artist_id = ?)`,
      ),
      deleteArtist: db.prepare('DELETE FROM library_artists WHERE id = ?'),
      deleteArtistFavorites: db.prepare("DELETE FROM library_favorites WHERE entity_kind = 'artist' AND entity_id = ?"),
    };
  }

  all(): LidarrArtistIndexRow[] {
    return this.stmts.all.all() as LidarrArtistIndexRow[];
  }

  get(lidarrArtistId: number): LidarrArtistIndexRow | undefined {
    return this.stmts.get.get(lidarrArtistId) as LidarrArtistIndexRow | undefined;
  }

  /** Records a complete index of the artist; called in the transaction that wrote its rows. */
  stamp(lidarrArtistId: number, mbid: string, canonicalArtistId: number, fingerprint: string, now: number, rootFolder: string | null): void {
    this.stmts.stamp.run(lidarrArtistId, mbid, canonicalArtistId, fingerprint, now, rootFolder);
  }

  /** Lidarr's root folders as this computer sees them: the only places Lidarr files are served from. */
  rootFolders(): string[] {
    return this.stmts.rootFolders.pluck().all() as string[];
  }

  /**
   * Removes what this Lidarr artist contributed that Lidarr no longer has: Lidarr media of tracks not
   * in `keepTrackIds` (all of them when null), then tracks, albums and the artist left with nothing.
   * Media of the folder scanner is never touched, so a track it also found stays. Returns tracks pruned.
   */
  removeStale(
    writer: LibraryWriter,
    canonicalArtistId: number,
    lidarrArtistId: number,
    keepTrackIds: Set<number> | null,
    keepAlbumIds: Set<number> | null,
  ): number {
    const s = this.stmts;
    let pruned = 0;
    // Albums Lidarr dropped: unlink their tracks first, so tracks still on another album survive.
    for (const album of s.lidarrAlbumsOfArtist.all(canonicalArtistId, lidarrArtistId) as { id: number }[]) {
      if (keepAlbumIds?.has(album.id)) continue;
      for (const trackId of s.albumTracks.pluck().all(album.id) as number[]) {
        if (keepTrackIds?.has(trackId)) s.unlinkAlbumTrack.run(album.id, trackId);
      }
    }
    for (const trackId of s.tracksOfLidarrArtist.pluck().all(canonicalArtistId, lidarrArtistId) as number[]) {
      if (keepTrackIds?.has(trackId)) continue;
      s.deleteLidarrMedia.run(trackId);
      if (writer.pruneTrackIfOrphan(trackId)) pruned++;
    }
    for (const albumId of s.emptyLidarrAlbums.pluck().all(canonicalArtistId, lidarrArtistId) as number[]) {
      if (keepAlbumIds?.has(albumId)) continue;
      s.clearAlbumOfMedia.run(albumId);
      s.clearAlbumOfTracks.run(albumId);
      s.deleteAlbumFavorites.run(albumId);
      s.deleteAlbum.run(albumId);
      writer.markDirty(KIND.album, albumId);
    }
    if (keepAlbumIds === null && !s.artistUsed.pluck().get(canonicalArtistId, canonicalArtistId)) {
      s.deleteArtistFavorites.run(canonicalArtistId);
      s.deleteArtist.run(canonicalArtistId);
    }
    writer.markDirty(KIND.artist, canonicalArtistId);
    return pruned;
  }

  forget(lidarrArtistId: number): void {
    this.stmts.forget.run(lidarrArtistId);
  }
}
