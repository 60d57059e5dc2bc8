import type { Db } from './connection.js';

export interface CachedDocument {
  found: boolean;
  payload: unknown;
  fetchedAt: number;
}

export interface ArtistOverrides {
  musicbrainzId: string | null;
  deezerArtistId: string | null;
}

/** SQL of the metadata cache and the per-artist overrides. */
export function metadataCacheRepository(db: Db) {
  const get = db.prepare('SELECT found, payload, fetched_at FROM metadata_cache WHERE kind = ? AND key = ?');
  const put = db.prepare(
    `INSERT INTO metadata_cache (kind, key, found, payload, fetched_at) VALUES (@kind, @key, @found, @payload, @now)
     ON CONFLICT (kind, key) DO UPDATE SET found = excluded.found, payload = excluded.payload, fetched_at = excluded.fetched_at`,
  );
  const overrides = db.prepare('SELECT musicbrainz_id, deezer_artist_id FROM metadata_overrides WHERE artist_mbid = ?');
  const setOverrides = db.prepare(
    `INSERT INTO metadata_overrides (artist_mbid, musicbrainz_id, deezer_artist_id, updated_at) VALUES (@mbid, @musicbrainzId, @deezerArtistId, @now)
     ON CONFLICT (artist_mbid) DO UPDATE SET musicbrainz_id = excluded.musicbrainz_id, deezer_artist_id = excluded.deezer_artist_id, updated_at = excluded.updated_at`,
  );
  const clearOverrides = db.prepare('DELETE FROM metadata_overrides WHERE artist_mbid = ?');
  const trackMbids = db.prepare(
    'SELECT DISTINCT mbid FROM library_tracks WHERE available = 1 AND mbid IN (SELECT value FROM json_each(?))',
  );
  return {
    get(kind: string, key: string): CachedDocument | undefined {
      const row = get.get(kind, key) as { found: number; payload: string | null; fetched_at: number } | undefined;
      if (!row) return undefined;
      return { found: row.found === 1, payload: row.payload === null ? null : JSON.parse(row.payload), fetchedAt: row.fetched_at };
    },
    put(kind: string, key: string, payload: unknown, now: number): void {
      put.run({ kind, key, found: payload === null ? 0 : 1, payload: payload === null ? null : JSON.stringify(payload), now });
    },
    overrides(mbid: string): ArtistOverrides {
      const row = overrides.get(mbid) as { musicbrainz_id: string | null; deezer_artist_id: string | null } | undefined;
      return { musicbrainzId: row?.musicbrainz_id ?? null, deezerArtistId: row?.deezer_artist_id ?? null };
    },
    setOverrides(mbid: string, value: ArtistOverrides, now: number): void {
      if (value.musicbrainzId === null && value.deezerArtistId === null) clearOverrides.run(mbid);
      else setOverrides.run({ mbid, ...value, now });
    },
    /** Which of these recording MBIDs the library has a playable track for. */
    trackMbidsPresent(mbids: string[]): Set<string> {
      if (mbids.length === 0) return new Set();
      return new Set((trackMbids.all(JSON.stringify(mbids)) as { mbid: string }[]).map((r) => r.mbid));
    },
  };
}
export type MetadataCacheRepository = ReturnType<typeof metadataCacheRepository>;
