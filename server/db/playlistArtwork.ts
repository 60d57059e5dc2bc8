import type { Db } from './connection.js';

/** The three kinds of playlist (domain/playlists/registry.ts): stored with their artwork. */
export type PlaylistKind = 'static' | 'flow' | 'shared';

export type ArtworkSource = 'uploaded' | 'generated';

export interface PlaylistArtworkRow {
  playlist_kind: PlaylistKind;
  playlist_id: string;
  source: ArtworkSource;
  file: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
  etag: string;
  signature: string | null;
  updated_at: number;
}

/** The artwork of playlists of every kind, keyed by the playlist's kind and API id. */
export function playlistArtworkRepository(db: Db) {
  const s = {
    get: db.prepare('SELECT * FROM playlist_artwork WHERE playlist_kind = ? AND playlist_id = ?'),
    put: db.prepare(
      `INSERT INTO playlist_artwork (playlist_kind, playlist_id, source, file, mime, width, height, bytes, etag, signature, updated_at)
       VALUES (@playlist_kind, @playlist_id, @source, @file, @mime, @width, @height, @bytes, @etag, @signature, @updated_at)
       ON CONFLICT (playlist_kind, playlist_id) DO UPDATE SET source = excluded.source, file = excluded.file, mime = excluded.mime,
         width = excluded.width, height = excluded.height, bytes = excluded.bytes, etag = excluded.etag,
         signature = excluded.signature, updated_at = excluded.updated_at`,
    ),
    remove: db.prepare('DELETE FROM playlist_artwork WHERE playlist_kind = ? AND playlist_id = ?'),
    usesFile: db.prepare('SELECT 1 FROM playlist_artwork WHERE file = ? LIMIT 1').pluck(),
    files: db.prepare('SELECT DISTINCT file FROM playlist_artwork').pluck(),
    // Static playlists removed without an event (their owner's account was deleted: ON DELETE CASCADE).
    orphanedStatic: db.prepare(
      `DELETE FROM playlist_artwork WHERE playlist_kind = 'static'
         AND NOT EXISTS (SELECT 1 FROM static_playlists p WHERE CAST(p.id AS TEXT) = playlist_artwork.playlist_id)
       RETURNING file`,
    ).pluck(),
  };
  return {
    get: (kind: PlaylistKind, id: string) => s.get.get(kind, id) as PlaylistArtworkRow | undefined,
    put: (row: PlaylistArtworkRow) => void s.put.run(row),
    remove: (kind: PlaylistKind, id: string) => s.remove.run(kind, id).changes > 0,
    /** Is this file still the picture of some playlist (two playlists may share identical bytes)? */
    fileInUse: (file: string) => s.usesFile.get(file) !== undefined,
    files: () => new Set(s.files.all() as string[]),
    /** Drops the rows of static playlists that no longer exist; returns their files. */
    dropOrphanedStatic: () => s.orphanedStatic.all() as string[],
  };
}
export type PlaylistArtworkRepository = ReturnType<typeof playlistArtworkRepository>;
