import type { Db } from './connection.js';

/**
 * Reads and writes of the discovery area beyond its own cache tables (db/discovery.ts): the library
 * and the play history it seeds from and marks "in library", the genre counts, and clearing the
 * image and metadata caches.
 */

/** Library artists with tracks, the user's most played first, then the largest (`limit` at most). */
export function librarySeedArtists(db: Db, userId: number, limit: number): { name: string; mbid: string | null; plays: number; track_count: number }[] {
  return db
    .prepare(
      `SELECT a.name, a.mbid, COALESCE(p.plays, 0) AS plays, a.track_count FROM library_artists a
       LEFT JOIN (SELECT t.artist_id, COUNT(*) AS plays FROM play_events e JOIN library_tracks t ON t.id = e.track_id WHERE e.user_id = ? GROUP BY t.artist_id) p ON p.artist_id = a.id
       WHERE a.track_count > 0 ORDER BY plays DESC, a.track_count DESC, a.id LIMIT ?`,
    )
    .all(userId, limit) as { name: string; mbid: string | null; plays: number; track_count: number }[];
}

/** The user's 50 most played artists since `since` (name as first played, an MBID when known). */
export function playedArtistsSince(db: Db, userId: number, since: number): { name: string; mbid: string | null }[] {
  return db
    .prepare(
      `SELECT MIN(artist) AS name, MAX(artist_mbid) AS mbid, COUNT(*) AS plays FROM play_events
       WHERE user_id = ? AND artist IS NOT NULL AND artist <> '' AND played_at >= ? GROUP BY lower(artist) ORDER BY plays DESC LIMIT 50`,
    )
    .all(userId, since) as { name: string; mbid: string | null }[];
}

/** The library's 20 largest genres. */
export function topLibraryGenres(db: Db): { name: string; track_count: number }[] {
  return db
    .prepare('SELECT g.name, s.track_count FROM library_genre_stats s JOIN library_genres g ON g.id = s.genre_id ORDER BY s.track_count DESC, g.name LIMIT 20')
    .all() as { name: string; track_count: number }[];
}

/** Library artists with tracks or albums: identity key, name, MBID. */
export function libraryArtistKeys(db: Db): { identity_key: string; name: string; mbid: string | null }[] {
  return db.prepare('SELECT identity_key, name, mbid FROM library_artists WHERE track_count > 0 OR album_count > 0').all() as {
    identity_key: string;
    name: string;
    mbid: string | null;
  }[];
}

/** Every library artist: id, name, MBID. */
export function allLibraryArtists(db: Db): { id: number; name: string; mbid: string | null }[] {
  return db.prepare('SELECT id, name, mbid FROM library_artists').all() as { id: number; name: string; mbid: string | null }[];
}

/** Point lookups: is there a library artist with this MBID, or this identity key. */
export function libraryArtistLookups(db: Db): { byMbid(mbid: string): boolean; byKey(identityKey: string): boolean } {
  const byMbid = db.prepare('SELECT 1 FROM library_artists WHERE mbid = ? LIMIT 1');
  const byKey = db.prepare('SELECT 1 FROM library_artists WHERE identity_key = ? LIMIT 1');
  return { byMbid: (mbid) => byMbid.get(mbid) !== undefined, byKey: (key) => byKey.get(key) !== undefined };
}

/** Which of these identity keys name a library artist. */
export function libraryArtistKeysAmong(db: Db, keys: string[]): string[] {
  return (db.prepare('SELECT identity_key AS k FROM library_artists WHERE identity_key IN (SELECT value FROM json_each(?))').all(JSON.stringify(keys)) as { k: string }[]).map((r) => r.k);
}

/** Which of these MBIDs name a library artist. */
export function libraryArtistMbidsAmong(db: Db, mbids: string[]): string[] {
  return (db.prepare('SELECT mbid AS m FROM library_artists WHERE mbid IN (SELECT value FROM json_each(?))').all(JSON.stringify(mbids)) as { m: string }[]).map((r) => r.m);
}

/** Recommendations of every user. */
export function recommendationCountAll(db: Db): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM discovery_recommendations').get() as { n: number }).n;
}

/** Remote images whose cached file nothing in the library uses. */
export function orphanedRemoteImageKeys(db: Db): { key: string }[] {
  return db
    .prepare(
      `SELECT DISTINCT r.image_key AS key FROM remote_images r WHERE r.image_key IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM library_artists WHERE image_key = r.image_key)
       AND NOT EXISTS (SELECT 1 FROM library_albums WHERE image_key = r.image_key)
       AND NOT EXISTS (SELECT 1 FROM library_media_files WHERE image_key = r.image_key)`,
    )
    .all() as { key: string }[];
}

/** Forgets every remote image link and these cached images, and empties the metadata and artist caches (the caller holds the transaction). */
export function clearImageAndMetadataCaches(db: Db, orphanedKeys: string[]): { links: number; metadata: number } {
  const links = db.prepare('DELETE FROM remote_images').run().changes;
  const del = db.prepare('DELETE FROM library_images WHERE cache_key = ?');
  for (const key of orphanedKeys) del.run(key);
  const metadata = db.prepare('DELETE FROM metadata_cache').run().changes + db.prepare('DELETE FROM discovery_artist_cache').run().changes;
  return { links, metadata };
}

/** Whether a job of this queue and dedupe key is waiting or running (a user's refresh under way). */
export function openJobWithKey(db: Db, queue: string, dedupeKey: string): boolean {
  return db.prepare(`SELECT 1 FROM jobs WHERE queue = ? AND dedupe_key = ? AND status IN ('pending', 'running') LIMIT 1`).get(queue, dedupeKey) !== undefined;
}
