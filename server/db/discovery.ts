import type { Db } from './connection.js';

/** Rows of the discovery cache (migration 054). */

export interface RecommendationRow {
  name_key: string;
  name: string;
  mbid: string | null;
  rank: number;
  score: number;
  source: string;
  seeds_json: string;
  tags_json: string;
  image: string | null;
}

export interface SeedRow {
  name_key: string;
  name: string;
  mbid: string | null;
  source: string;
  weight: number;
  rank: number;
}

export interface RankingRow {
  scope: string;
  rank: number;
  name_key: string;
  name: string;
  mbid: string | null;
  listeners: number | null;
  source: string;
  image: string | null;
  in_library: number;
  fetched_at: number;
}

export interface FeedbackRow {
  id: number;
  user_id: number;
  name_key: string;
  artist_name: string;
  artist_mbid: string | null;
  kind: 'more' | 'less';
  created_at: number;
}

export interface PreferencesRow {
  excluded_tags_json: string;
  excluded_artists_json: string;
  deep_dive: number;
  updated_at: number;
}

export interface StateRow {
  scope: string;
  provider: string | null;
  last_updated: number | null;
  last_attempt_at: number | null;
  last_error: string | null;
  calls_used: number;
}

export const userScope = (userId: number) => `user:${userId}`;
export const tagScope = (tag: string) => `tag:${tag.toLowerCase()}`;

/** Prepared statements over the discovery tables; each write that replaces a set runs in one transaction. */
export function discoveryRepository(db: Db) {
  const recPage = db.prepare('SELECT * FROM discovery_recommendations WHERE user_id = ? ORDER BY rank LIMIT ? OFFSET ?');
  const recAll = db.prepare('SELECT * FROM discovery_recommendations WHERE user_id = ? ORDER BY rank');
  const recCount = db.prepare('SELECT COUNT(*) AS n FROM discovery_recommendations WHERE user_id = ?');
  const recDelete = db.prepare('DELETE FROM discovery_recommendations WHERE user_id = ? AND name_key = ?');
  const recInsert = db.prepare(
    'INSERT OR REPLACE INTO discovery_recommendations (user_id, name_key, name, mbid, rank, score, source, seeds_json, tags_json, image) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const seedInsert = db.prepare('INSERT OR REPLACE INTO discovery_seeds (user_id, name_key, name, mbid, source, weight, rank) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const tasteInsert = db.prepare('INSERT OR REPLACE INTO discovery_taste (user_id, kind, name, weight) VALUES (?, ?, ?, ?)');
  const rankInsert = db.prepare(
    'INSERT OR REPLACE INTO discovery_rankings (scope, rank, name_key, name, mbid, listeners, source, image, in_library, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const cacheGet = db.prepare('SELECT payload, fetched_at FROM discovery_artist_cache WHERE kind = ? AND name_key = ?');
  const cachePut = db.prepare('INSERT OR REPLACE INTO discovery_artist_cache (kind, name_key, payload, fetched_at) VALUES (?, ?, ?, ?)');
  const stateGet = db.prepare('SELECT * FROM discovery_state WHERE scope = ?');

  return {
    recommendations: (userId: number, limit: number, offset: number) => recPage.all(userId, limit, offset) as RecommendationRow[],
    allRecommendations: (userId: number) => recAll.all(userId) as RecommendationRow[],
    recommendationCount: (userId: number) => (recCount.get(userId) as { n: number }).n,
    removeRecommendations: db.transaction((userId: number, keys: Iterable<string>) => {
      let n = 0;
      for (const k of keys) n += recDelete.run(userId, k).changes;
      return n;
    }),
    replaceUser: db.transaction(
      (
        userId: number,
        recs: Omit<RecommendationRow, 'rank'>[],
        seeds: Omit<SeedRow, 'rank'>[],
        taste: { kind: 'tag' | 'genre'; name: string; weight: number }[],
      ) => {
        db.prepare('DELETE FROM discovery_recommendations WHERE user_id = ?').run(userId);
        db.prepare('DELETE FROM discovery_seeds WHERE user_id = ?').run(userId);
        db.prepare('DELETE FROM discovery_taste WHERE user_id = ?').run(userId);
        recs.forEach((r, i) => recInsert.run(userId, r.name_key, r.name, r.mbid, i + 1, r.score, r.source, r.seeds_json, r.tags_json, r.image));
        seeds.forEach((s, i) => seedInsert.run(userId, s.name_key, s.name, s.mbid, s.source, s.weight, i + 1));
        for (const t of taste) tasteInsert.run(userId, t.kind, t.name, t.weight);
      },
    ),
    seeds: (userId: number) => db.prepare('SELECT * FROM discovery_seeds WHERE user_id = ? ORDER BY rank').all(userId) as SeedRow[],
    taste: (userId: number, kind: 'tag' | 'genre', limit: number) =>
      (db.prepare('SELECT name, weight FROM discovery_taste WHERE user_id = ? AND kind = ? ORDER BY weight DESC, name LIMIT ?').all(userId, kind, limit) as { name: string; weight: number }[]),

    ranking: (scope: string, limit = 1000) => db.prepare('SELECT * FROM discovery_rankings WHERE scope = ? ORDER BY rank LIMIT ?').all(scope, limit) as RankingRow[],
    rankingCount: (scope: string) => (db.prepare('SELECT COUNT(*) AS n FROM discovery_rankings WHERE scope = ?').get(scope) as { n: number }).n,
    rankingFetchedAt: (scope: string) =>
      (db.prepare('SELECT MAX(fetched_at) AS t FROM discovery_rankings WHERE scope = ?').get(scope) as { t: number | null }).t,
    replaceRanking: db.transaction((scope: string, rows: Omit<RankingRow, 'scope' | 'rank' | 'fetched_at'>[], now: number) => {
      db.prepare('DELETE FROM discovery_rankings WHERE scope = ?').run(scope);
      rows.forEach((r, i) => rankInsert.run(scope, i + 1, r.name_key, r.name, r.mbid, r.listeners, r.source, r.image, r.in_library, now));
    }),
    /** Tag names that have a cached ranking (`tag:<name>` scopes). */
    rankedTags: () => (db.prepare("SELECT DISTINCT substr(scope, 5) AS tag FROM discovery_rankings WHERE scope LIKE 'tag:%' ORDER BY tag").all() as { tag: string }[]).map((r) => r.tag),

    cached: <T>(kind: string, key: string, freshAfter: number): T | null => {
      const row = cacheGet.get(kind, key) as { payload: string; fetched_at: number } | undefined;
      return row && row.fetched_at >= freshAfter ? (JSON.parse(row.payload) as T) : null;
    },
    /** A cached answer however old (used when the provider cannot be asked). */
    cachedAny: <T>(kind: string, key: string): T | null => {
      const row = cacheGet.get(kind, key) as { payload: string } | undefined;
      return row ? (JSON.parse(row.payload) as T) : null;
    },
    putCache: (kind: string, key: string, payload: unknown, now: number) => void cachePut.run(kind, key, JSON.stringify(payload), now),

    feedback: (userId: number) => db.prepare('SELECT * FROM discovery_feedback WHERE user_id = ? ORDER BY created_at DESC, id DESC').all(userId) as FeedbackRow[],
    feedbackById: (userId: number, id: number) => db.prepare('SELECT * FROM discovery_feedback WHERE user_id = ? AND id = ?').get(userId, id) as FeedbackRow | undefined,
    putFeedback: (userId: number, f: { nameKey: string; name: string; mbid: string | null; kind: 'more' | 'less' }, now: number): FeedbackRow => {
      db.prepare(
        `INSERT INTO discovery_feedback (user_id, name_key, artist_name, artist_mbid, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, name_key) DO UPDATE SET artist_name = excluded.artist_name, artist_mbid = excluded.artist_mbid, kind = excluded.kind, created_at = excluded.created_at`,
      ).run(userId, f.nameKey, f.name, f.mbid, f.kind, now);
      return db.prepare('SELECT * FROM discovery_feedback WHERE user_id = ? AND name_key = ?').get(userId, f.nameKey) as FeedbackRow;
    },
    deleteFeedback: (userId: number, id: number) => db.prepare('DELETE FROM discovery_feedback WHERE user_id = ? AND id = ?').run(userId, id).changes,
    resetFeedback: (userId: number) => db.prepare('DELETE FROM discovery_feedback WHERE user_id = ?').run(userId).changes,

    preferences: (userId: number) => db.prepare('SELECT * FROM discovery_preferences WHERE user_id = ?').get(userId) as PreferencesRow | undefined,
    putPreferences: (userId: number, p: { excludedTags: string[]; excludedArtists: string[]; deepDive: boolean }, now: number) =>
      void db
        .prepare(
          `INSERT INTO discovery_preferences (user_id, excluded_tags_json, excluded_artists_json, deep_dive, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (user_id) DO UPDATE SET excluded_tags_json = excluded.excluded_tags_json, excluded_artists_json = excluded.excluded_artists_json, deep_dive = excluded.deep_dive, updated_at = excluded.updated_at`,
        )
        .run(userId, JSON.stringify(p.excludedTags), JSON.stringify(p.excludedArtists), p.deepDive ? 1 : 0, now),
    resetPreferences: (userId: number) => db.prepare('DELETE FROM discovery_preferences WHERE user_id = ?').run(userId).changes,

    state: (scope: string) => stateGet.get(scope) as StateRow | undefined,
    attempt: (scope: string, now: number) =>
      void db.prepare('INSERT INTO discovery_state (scope, last_attempt_at) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET last_attempt_at = excluded.last_attempt_at').run(scope, now),
    succeeded: (scope: string, provider: string, calls: number, now: number) =>
      void db
        .prepare(
          `INSERT INTO discovery_state (scope, provider, last_updated, last_attempt_at, last_error, calls_used) VALUES (?, ?, ?, ?, NULL, ?)
           ON CONFLICT (scope) DO UPDATE SET provider = excluded.provider, last_updated = excluded.last_updated, last_error = NULL, calls_used = excluded.calls_used`,
        )
        .run(scope, provider, now, now, calls),
    failed: (scope: string, error: string, calls: number, now: number) =>
      void db
        .prepare(
          `INSERT INTO discovery_state (scope, last_attempt_at, last_error, calls_used) VALUES (?, ?, ?, ?)
           ON CONFLICT (scope) DO UPDATE SET last_error = excluded.last_error, calls_used = excluded.calls_used`,
        )
        .run(scope, now, error.slice(0, 500), calls),
    /**
     * Active users who use discovery (they opened it or refreshed once) whose recommendations are older
     * than `before`, oldest first; a failed attempt is retried after `attemptedBefore`.
     */
    staleUsers: (before: number, attemptedBefore: number, limit: number) =>
      (
        db
          .prepare(
            `SELECT u.id FROM users u JOIN discovery_state s ON s.scope = 'user:' || u.id
             WHERE u.status = 'active' AND (s.last_updated IS NULL OR s.last_updated < ?) AND (s.last_attempt_at IS NULL OR s.last_attempt_at < ?)
             ORDER BY COALESCE(s.last_updated, 0), u.id LIMIT ?`,
          )
          .all(before, attemptedBefore, limit) as { id: number }[]
      ).map((r) => r.id),

    /** Drops the derived cache: every user's (or one user's) recommendations, seeds, taste and state, plus the shared rankings for all. */
    clear: db.transaction((userId: number | null) => {
      if (userId === null) {
        for (const t of ['discovery_recommendations', 'discovery_seeds', 'discovery_taste', 'discovery_rankings', 'discovery_artist_cache', 'discovery_state']) db.prepare(`DELETE FROM ${t}`).run();
        return;
      }
      for (const t of ['discovery_recommendations', 'discovery_seeds', 'discovery_taste']) db.prepare(`DELETE FROM ${t} WHERE user_id = ?`).run(userId);
      db.prepare('DELETE FROM discovery_state WHERE scope = ?').run(userScope(userId));
    }),
    /** Forgets the picture links in the cache (after the image cache itself was cleared). */
    clearImages: () => {
      db.prepare('UPDATE discovery_recommendations SET image = NULL').run();
      db.prepare('UPDATE discovery_rankings SET image = NULL').run();
    },
    /** The proxy keys of the pictures the discovery cache points at that are fetched, with their size. */
    cachedImages: () =>
      db
        .prepare(
          `SELECT COUNT(*) AS count, COALESCE(SUM(li.bytes), 0) AS bytes FROM remote_images r JOIN library_images li ON li.cache_key = r.image_key
           WHERE r.cache_key IN (
             SELECT substr(image, 18) FROM discovery_recommendations WHERE image IS NOT NULL
             UNION SELECT substr(image, 18) FROM discovery_rankings WHERE image IS NOT NULL)`,
        )
        .get() as { count: number; bytes: number },
  };
}
export type DiscoveryRepository = ReturnType<typeof discoveryRepository>;
