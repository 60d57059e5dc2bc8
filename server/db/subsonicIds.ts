import type { Db } from './connection.js';

export type IdEntity = 'artist' | 'album' | 'track';

/**
 * Resolves Subsonic id keys back to library rows: one lookup in the unique `subsonic_key` index
 * the database keeps filled itself (migration 023), so a row is found as soon as it is written.
 */
export class SubsonicIds {
  private readonly lookup: Record<IdEntity, { get(key: string): unknown }>;

  constructor(db: Db) {
    const by = (table: string) => db.prepare(`SELECT id FROM ${table} WHERE subsonic_key = ?`).pluck();
    this.lookup = { artist: by('library_artists'), album: by('library_albums'), track: by('library_tracks') };
  }

  /** The entity id for a key, or undefined when no row has that identity. */
  resolve(kind: IdEntity, key: string): number | undefined {
    return this.lookup[kind].get(key) as number | undefined;
  }
}
