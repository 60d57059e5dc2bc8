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
  const clearGroups = db.prepare('DELETE FROM metadata_release_groups WHERE artist_mbid = ?');
  const insertGroup = db.prepare(
    `INSERT OR REPLACE INTO metadata_release_groups (artist_mbid, mbid, title, primary_type, secondary_types, first_release_date)
     VALUES (@artist, @mbid, @title, @primaryType, @secondaryTypes, @date)`,
  );
  const recent = db.prepare(
    `SELECT g.artist_mbid, a.id AS library_artist_id, a.name AS artist_name, g.mbid, g.title, g.primary_type,
            g.secondary_types, g.first_release_date
     FROM metadata_release_groups g
     JOIN library_artists a ON a.mbid = g.artist_mbid
     WHERE g.first_release_date >= @since AND g.first_release_date <= @until
       AND NOT EXISTS (SELECT 1 FROM library_albums al WHERE al.mbid = g.mbid)
     ORDER BY g.first_release_date DESC, g.title
     LIMIT @limit`,
  );
  const staleLibraryArtists = db.prepare(
    `SELECT a.mbid FROM library_artists a
     LEFT JOIN metadata_cache c ON c.kind = 'artist' AND c.key = a.mbid
     WHERE a.mbid IS NOT NULL AND (c.fetched_at IS NULL OR c.fetched_at < @before)
     ORDER BY c.fetched_at IS NOT NULL, c.fetched_at, a.id
     LIMIT @limit`,
  );
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
    /** Replaces the stored release groups of an artist with those of its freshly fetched document. */
    setArtistReleaseGroups: db.transaction(
      (artistMbid: string, groups: { mbid: string; title: string; primaryType: string | null; secondaryTypes: string[]; date: string | null }[]) => {
        clearGroups.run(artistMbid);
        for (const g of groups)
          insertGroup.run({ artist: artistMbid, mbid: g.mbid, title: g.title, primaryType: g.primaryType, secondaryTypes: JSON.stringify(g.secondaryTypes), date: g.date });
      },
    ),
    /** Release groups of library artists released in [since, until] that the library does not have. */
    recentReleasesMissing(since: string, until: string, limit: number) {
      return recent.all({ since, until, limit }) as {
        artist_mbid: string;
        library_artist_id: number;
        artist_name: string;
        mbid: string;
        title: string;
        primary_type: string | null;
        secondary_types: string;
        first_release_date: string;
      }[];
    },
    /** Library artists whose metadata was never fetched or is older than `before`, oldest first. */
    libraryArtistsToRefresh: (before: number, limit: number) => (staleLibraryArtists.all({ before, limit }) as { mbid: string }[]).map((r) => r.mbid),
    /** Which of these recording MBIDs the library has a playable track for. */
    trackMbidsPresent(mbids: string[]): Set<string> {
      if (mbids.length === 0) return new Set();
      return new Set((trackMbids.all(JSON.stringify(mbids)) as { mbid: string }[]).map((r) => r.mbid));
    },
  };
}
export type MetadataCacheRepository = ReturnType<typeof metadataCacheRepository>;
