import type { Db } from './connection.js';

/** The refresh state row (one). */
export interface NewsStateRow {
  started_at: number | null;
  finished_at: number | null;
  checked_artist_count: number;
  queued_artist_count: number;
  failed_feeds_json: string;
  warning: string | null;
}

export interface NewsArticleRow {
  id: number;
  title: string;
  summary: string | null;
  url: string | null;
  publisher: string;
  feed_id: string;
  published_at: number;
  image_proxy_url: string | null;
}

export interface NewArticle {
  dedupeKey: string;
  feedId: string;
  publisher: string;
  title: string;
  summary: string | null;
  url: string | null;
  imageUrl: string | null;
  imageProxyUrl: string | null;
  publishedAt: number;
}

/** The news page: walks the published-date index newest first and stops after `limit` rows (parameters: blocked publishers as a JSON array, limit). */
export const NEWS_PAGE_SQL = `SELECT a.id, a.title, a.summary, a.url, a.publisher, a.feed_id, a.published_at, a.image_proxy_url
  FROM news_articles a
 WHERE EXISTS (SELECT 1 FROM news_article_artists x JOIN library_artists l ON l.id = x.artist_id WHERE x.article_id = a.id)
   AND lower(a.publisher) NOT IN (SELECT value FROM json_each(?))
 ORDER BY a.published_at DESC, a.id DESC
 LIMIT ?`;

const EMPTY_STATE: NewsStateRow = { started_at: null, finished_at: null, checked_artist_count: 0, queued_artist_count: 0, failed_feeds_json: '[]', warning: null };

/** SQL of migration 055: articles and the artists they are about, preferences, refresh state, NewsAPI checks. */
export class NewsRepository {
  constructor(private readonly db: Db) {}

  state(): NewsStateRow {
    return (this.db.prepare('SELECT * FROM news_refresh_state WHERE id = 1').get() as NewsStateRow | undefined) ?? EMPTY_STATE;
  }

  markStarted(at: number): void {
    this.db.prepare('INSERT INTO news_refresh_state (id, started_at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET started_at = excluded.started_at').run(at);
  }

  markFinished(at: number, r: { checked: number; queued: number; failedFeedsJson: string; warning: string | null }): void {
    this.db
      .prepare('UPDATE news_refresh_state SET finished_at = ?, checked_artist_count = ?, queued_artist_count = ?, failed_feeds_json = ?, warning = ? WHERE id = 1')
      .run(at, r.checked, r.queued, r.failedFeedsJson, r.warning);
  }

  blockedPublishers(userId: number): string[] {
    const json = this.db.prepare('SELECT blocked_publishers_json FROM news_preferences WHERE user_id = ?').pluck().get(userId) as string | undefined;
    return json ? (JSON.parse(json) as string[]) : [];
  }

  setBlockedPublishers(userId: number, list: string[], at: number): void {
    this.db
      .prepare(
        `INSERT INTO news_preferences (user_id, blocked_publishers_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(user_id) DO UPDATE SET blocked_publishers_json = excluded.blocked_publishers_json, updated_at = excluded.updated_at`,
      )
      .run(userId, JSON.stringify(list), at);
  }

  /** Newest first, about at least one artist still in the library, publishers (lower case) left out. */
  page(blockedLower: string[], limit: number): NewsArticleRow[] {
    return this.db.prepare(NEWS_PAGE_SQL).all(JSON.stringify(blockedLower), limit) as NewsArticleRow[];
  }

  /** The library artists of these articles, by name. */
  artistsOf(articleIds: number[]): { article_id: number; id: number; name: string }[] {
    if (articleIds.length === 0) return [];
    return this.db
      .prepare(
        `SELECT x.article_id, l.id, l.name FROM news_article_artists x JOIN library_artists l ON l.id = x.artist_id
          WHERE x.article_id IN (SELECT value FROM json_each(?)) ORDER BY l.sort_name`,
      )
      .all(JSON.stringify(articleIds)) as { article_id: number; id: number; name: string }[];
  }

  /** Stores an article (once per dedupe key) and links its artists; answers its id and whether it is new. */
  store(a: NewArticle, artists: { id: number; name: string }[], now: number): { id: number; created: boolean } {
    return this.db.transaction(() => {
      const existing = this.db.prepare('SELECT id FROM news_articles WHERE dedupe_key = ?').pluck().get(a.dedupeKey) as number | undefined;
      let id = existing;
      if (id === undefined) {
        id = Number(
          this.db
            .prepare(
              `INSERT INTO news_articles (dedupe_key, feed_id, publisher, title, summary, url, image_url, image_proxy_url, published_at, fetched_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            )
            .run(a.dedupeKey, a.feedId, a.publisher, a.title, a.summary, a.url, a.imageUrl, a.imageProxyUrl, a.publishedAt, now).lastInsertRowid,
        );
      } else if (a.imageUrl) {
        this.setImage(id, a.imageUrl, a.imageProxyUrl, true);
      }
      const link = this.db.prepare('INSERT OR IGNORE INTO news_article_artists (article_id, artist_id, artist_name) VALUES (?, ?, ?)');
      for (const artist of artists) link.run(id, artist.id, artist.name);
      return { id, created: existing === undefined };
    })();
  }

  setImage(id: number, imageUrl: string | null, imageProxyUrl: string | null, onlyIfMissing = false): void {
    this.db.prepare(`UPDATE news_articles SET image_url = ?, image_proxy_url = ? WHERE id = ?${onlyIfMissing ? ' AND image_url IS NULL' : ''}`).run(imageUrl, imageProxyUrl, id);
  }

  /** Of these articles, the newest without a picture, with their links. */
  withoutImage(ids: number[], limit: number): { id: number; url: string }[] {
    return this.db
      .prepare(`SELECT id, url FROM news_articles WHERE id IN (SELECT value FROM json_each(?)) AND image_url IS NULL AND url IS NOT NULL ORDER BY published_at DESC LIMIT ?`)
      .all(JSON.stringify(ids), limit) as { id: number; url: string }[];
  }

  /** When each artist was last searched on NewsAPI. */
  artistChecks(): Map<number, number> {
    return new Map((this.db.prepare('SELECT artist_id, checked_at FROM news_artist_checks').all() as { artist_id: number; checked_at: number }[]).map((r) => [r.artist_id, r.checked_at]));
  }

  markChecked(artistId: number, at: number): void {
    this.db.prepare('INSERT INTO news_artist_checks (artist_id, checked_at) VALUES (?, ?) ON CONFLICT(artist_id) DO UPDATE SET checked_at = excluded.checked_at').run(artistId, at);
  }

  /** Drops articles published before `before` and all but the newest `keep`, and checks of artists gone from the library. */
  prune(before: number, keep: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM news_articles WHERE published_at < ?').run(before);
      const cutoff = this.db.prepare('SELECT published_at, id FROM news_articles ORDER BY published_at DESC, id DESC LIMIT 1 OFFSET ?').get(keep) as { published_at: number; id: number } | undefined;
      if (cutoff) this.db.prepare('DELETE FROM news_articles WHERE published_at < ? OR (published_at = ? AND id <= ?)').run(cutoff.published_at, cutoff.published_at, cutoff.id);
      this.db.prepare('DELETE FROM news_artist_checks WHERE artist_id NOT IN (SELECT id FROM library_artists)').run();
    })();
  }
}

/** Calls recorded against a rolling upstream request budget (upstream_budget_calls). */
export const upstreamBudgetCalls = {
  countSince(db: Db, service: string, since: number): number {
    return (db.prepare('SELECT count(*) FROM upstream_budget_calls WHERE service = ? AND at > ?').pluck().get(service, since) as number) ?? 0;
  },
  pruneUpTo(db: Db, service: string, upTo: number): void {
    db.prepare('DELETE FROM upstream_budget_calls WHERE service = ? AND at <= ?').run(service, upTo);
  },
  record(db: Db, service: string, purpose: string, at: number): void {
    db.prepare('INSERT INTO upstream_budget_calls (service, purpose, at) VALUES (?, ?, ?)').run(service, purpose, at);
  },
};

/** Every library artist with its track count, for matching news to artists. */
export function libraryArtistsForNews(db: Db): { id: number; name: string; trackCount: number }[] {
  return db.prepare('SELECT id, name, track_count AS trackCount FROM library_artists').all() as { id: number; name: string; trackCount: number }[];
}
