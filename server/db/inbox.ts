import type { Db } from './connection.js';

/** SQL of migration 057: the per-user inbox, and the cached data its refresh reads (release groups, news). */

export const INBOX_KINDS = ['release', 'show', 'news', 'discovery'] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

export interface InboxItemRow {
  id: number;
  user_id: number;
  kind: InboxKind;
  source_key: string;
  title: string;
  subtitle: string | null;
  href: string | null;
  image_url: string | null;
  metadata_json: string;
  item_at: number | null;
  created_at: number;
  updated_at: number;
  read_at: number | null;
  saved_at: number | null;
  dismissed_until: number | null;
  added_at: number | null;
  expires_at: number | null;
}

/** What a refresh found: one future or existing row. */
export interface InboxCandidate {
  kind: InboxKind;
  sourceKey: string;
  title: string;
  subtitle: string | null;
  href: string | null;
  imageUrl: string | null;
  metadata: Record<string, unknown>;
  itemAt: number | null;
  expiresAt: number | null;
}

export interface InboxFilter {
  kinds: InboxKind[];
  savedOnly?: boolean;
  unreadOnly?: boolean;
}

export interface ReleaseGroupRow {
  artist_mbid: string;
  library_artist_id: number;
  artist_name: string;
  mbid: string;
  title: string;
  primary_type: string | null;
  secondary_types: string;
  first_release_date: string;
}

export interface ArtistArticleRow {
  artist_id: number;
  artist_name: string;
  id: number;
  title: string;
  url: string | null;
  publisher: string;
  published_at: number;
  image_proxy_url: string | null;
}

/** Shown now: not expired (unless saved), not dismissed, of an enabled kind (parameters @now, @k0–@k3). */
const VISIBLE = `user_id = @user AND kind IN (@k0, @k1, @k2, @k3)
  AND (dismissed_until IS NULL OR dismissed_until <= @now)
  AND (expires_at IS NULL OR expires_at > @now OR saved_at IS NOT NULL)`;
const FILTERS = `AND (@saved = 0 OR saved_at IS NOT NULL) AND (@unread = 0 OR read_at IS NULL)`;

/** What a refresh compares with what it found, to write only what changed. */
export interface StoredItem {
  id: number;
  source_key: string;
  fingerprint: string;
  expires_at: number | null;
  saved_at: number | null;
}

/** A refresh's item with the hash of its content. */
export type FingerprintedCandidate = InboxCandidate & { fingerprint: string };

/** The changes of one refresh step, written in one transaction. */
export interface InboxWrite {
  insert: FingerprintedCandidate[];
  update: { id: number; item: FingerprintedCandidate }[];
  retire: number[];
}

/** The enabled kinds as the four IN parameters (a switched-off kind is NULL, which matches nothing). */
const kindParams = (kinds: InboxKind[]) => Object.fromEntries(INBOX_KINDS.map((k, i) => [`k${i}`, kinds.includes(k) ? k : null]));

export function inboxRepository(db: Db) {
  const page = db.prepare(`SELECT * FROM inbox_items WHERE ${VISIBLE} ${FILTERS} ORDER BY created_at DESC, item_at DESC, id DESC LIMIT @limit OFFSET @offset`);
  // Saved only: its own statements, so the partial index of saved rows serves them.
  const savedPage = db.prepare(`SELECT * FROM inbox_items WHERE ${VISIBLE} AND saved_at IS NOT NULL AND (@unread = 0 OR read_at IS NULL) ORDER BY created_at DESC, item_at DESC, id DESC LIMIT @limit OFFSET @offset`);
  const savedCount = db.prepare(`SELECT COUNT(*) FROM inbox_items INDEXED BY inbox_items_saved WHERE ${VISIBLE} AND saved_at IS NOT NULL AND (@unread = 0 OR read_at IS NULL)`).pluck();
  const count = db.prepare(`SELECT COUNT(*) FROM inbox_items INDEXED BY inbox_items_by_state WHERE ${VISIBLE} ${FILTERS}`).pluck();
  const unread = db.prepare(`SELECT COUNT(*) FROM inbox_items INDEXED BY inbox_items_by_state WHERE ${VISIBLE} AND read_at IS NULL`).pluck();
  const both = db.prepare(`SELECT COUNT(*) AS total, COALESCE(SUM(read_at IS NULL), 0) AS unread FROM inbox_items INDEXED BY inbox_items_by_state WHERE ${VISIBLE}`);
  const byId = db.prepare('SELECT * FROM inbox_items WHERE id = ? AND user_id = ?');
  const insert = db.prepare(
    `INSERT INTO inbox_items (user_id, kind, source_key, title, subtitle, href, image_url, metadata_json, item_at, created_at, updated_at, expires_at, fingerprint)
     VALUES (@user, @kind, @sourceKey, @title, @subtitle, @href, @imageUrl, @metadata, @itemAt, @now, @now, @expiresAt, @fingerprint)
     ON CONFLICT (user_id, kind, source_key) DO UPDATE SET
       title = excluded.title, subtitle = excluded.subtitle, href = excluded.href, image_url = excluded.image_url, metadata_json = excluded.metadata_json,
       item_at = excluded.item_at, expires_at = excluded.expires_at, fingerprint = excluded.fingerprint, updated_at = excluded.updated_at`,
  );
  const update = db.prepare(
    `UPDATE inbox_items SET title = @title, subtitle = @subtitle, href = @href, image_url = @imageUrl, metadata_json = @metadata,
       item_at = @itemAt, expires_at = @expiresAt, fingerprint = @fingerprint, updated_at = @now WHERE id = @id AND user_id = @user`,
  );
  // A retired row's fingerprint is cleared, so the refresh that finds it again writes it back to life.
  const retire = db.prepare("UPDATE inbox_items SET expires_at = @now, fingerprint = '', updated_at = @now WHERE id = @id AND user_id = @user AND saved_at IS NULL");
  const existing = db.prepare('SELECT id, source_key, fingerprint, expires_at, saved_at FROM inbox_items WHERE user_id = ? AND kind = ?');
  const prune = db.prepare('DELETE FROM inbox_items WHERE saved_at IS NULL AND expires_at IS NOT NULL AND expires_at < ?');
  const readAll = db.prepare(`UPDATE inbox_items SET read_at = @now, updated_at = @now WHERE ${VISIBLE} AND read_at IS NULL`);
  const state = db.prepare('SELECT refreshed_at, counts_json, warning FROM inbox_refresh_state WHERE user_id = ?');
  const putState = db.prepare(
    `INSERT INTO inbox_refresh_state (user_id, refreshed_at, counts_json, warning) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET refreshed_at = excluded.refreshed_at, counts_json = excluded.counts_json, warning = excluded.warning`,
  );
  const releases = db.prepare(
    `SELECT g.artist_mbid, a.id AS library_artist_id, a.name AS artist_name, g.mbid, g.title, g.primary_type, g.secondary_types, g.first_release_date
       FROM metadata_release_groups g
       JOIN library_artists a ON a.mbid = g.artist_mbid
      WHERE g.first_release_date >= @since AND g.first_release_date < @until
        AND NOT EXISTS (SELECT 1 FROM library_albums al WHERE al.mbid = g.mbid)
      ORDER BY g.first_release_date DESC, g.mbid
      LIMIT @limit`,
  );
  const articles = db.prepare(
    `SELECT x.artist_id, l.name AS artist_name, a.id, a.title, a.url, a.publisher, a.published_at, a.image_proxy_url
       FROM news_articles a
       JOIN news_article_artists x ON x.article_id = a.id
       JOIN library_artists l ON l.id = x.artist_id
      WHERE a.published_at >= @since AND a.published_at < @until
      ORDER BY a.published_at DESC, a.id DESC
      LIMIT @limit`,
  );

  const params = (userId: number, now: number, f: InboxFilter) => ({
    user: userId,
    now,
    ...kindParams(f.kinds),
    saved: f.savedOnly ? 1 : 0,
    unread: f.unreadOnly ? 1 : 0,
  });
  const row = (userId: number, c: FingerprintedCandidate, now: number) => ({
    user: userId,
    kind: c.kind,
    sourceKey: c.sourceKey,
    title: c.title,
    subtitle: c.subtitle,
    href: c.href,
    imageUrl: c.imageUrl,
    metadata: JSON.stringify(c.metadata),
    itemAt: c.itemAt,
    expiresAt: c.expiresAt,
    fingerprint: c.fingerprint,
    now,
  });

  return {
    page: (userId: number, now: number, f: InboxFilter, limit: number, offset: number) =>
      (f.savedOnly ? savedPage : page).all({ ...params(userId, now, f), limit, offset }) as InboxItemRow[],
    count: (userId: number, now: number, f: InboxFilter) => (f.savedOnly ? savedCount : count).get(params(userId, now, f)) as number,
    unreadCount: (userId: number, now: number, kinds: InboxKind[]) => unread.get({ user: userId, now, ...kindParams(kinds) }) as number,
    /** Visible and unread items in one pass (the unfiltered list). */
    counts: (userId: number, now: number, kinds: InboxKind[]) => both.get({ user: userId, now, ...kindParams(kinds) }) as { total: number; unread: number },
    item: (userId: number, id: number) => byId.get(id, userId) as InboxItemRow | undefined,

    /** The user's stored items of a kind (a refresh compares them with what it found). */
    existing: (userId: number, kind: InboxKind) => existing.all(userId, kind) as StoredItem[],
    /**
     * One step of a refresh: new rows unread, changed rows updated in place (read, saved, dismissed and
     * added kept), rows it no longer finds retired (hidden; saved ones stay).
     */
    write: db.transaction((userId: number, w: InboxWrite, now: number) => {
      for (const c of w.insert) insert.run(row(userId, c, now));
      for (const u of w.update) update.run({ ...row(userId, u.item, now), id: u.id });
      for (const id of w.retire) retire.run({ id, user: userId, now });
    }),
    /** Deletes unsaved rows that expired before `before`. */
    prune: (before: number) => prune.run(before).changes,

    setRead: (userId: number, id: number, at: number | null, now: number) =>
      db.prepare('UPDATE inbox_items SET read_at = ?, updated_at = ? WHERE id = ? AND user_id = ?').run(at, now, id, userId).changes,
    setSaved: (userId: number, id: number, at: number | null, now: number) =>
      db.prepare('UPDATE inbox_items SET saved_at = ?, updated_at = ? WHERE id = ? AND user_id = ?').run(at, now, id, userId).changes,
    dismiss: (userId: number, id: number, until: number, now: number) =>
      db.prepare('UPDATE inbox_items SET dismissed_until = ?, read_at = COALESCE(read_at, ?), updated_at = ? WHERE id = ? AND user_id = ?').run(until, now, now, id, userId).changes,
    markAdded: (userId: number, id: number, now: number) =>
      db.prepare('UPDATE inbox_items SET added_at = ?, read_at = COALESCE(read_at, ?), updated_at = ? WHERE id = ? AND user_id = ?').run(now, now, now, id, userId).changes,
    readAll: (userId: number, now: number, kinds: InboxKind[]) => readAll.run({ user: userId, now, ...kindParams(kinds) }).changes,

    state: (userId: number) => state.get(userId) as { refreshed_at: number | null; counts_json: string; warning: string | null } | undefined,
    putState: (userId: number, at: number, counts: Record<string, number>, warning: string | null) =>
      void putState.run(userId, at, JSON.stringify(counts), warning),

    /** Release groups of library artists dated in [since, until) (ISO dates) that the library lacks, newest first. */
    releases: (since: string, until: string, limit: number) => releases.all({ since, until, limit }) as ReleaseGroupRow[],
    /** Stored articles about library artists published in [since, until), newest first. */
    artistArticles: (since: number, until: number, limit: number) => articles.all({ since, until, limit }) as ArtistArticleRow[],
    /** Active user accounts (the daily refresh). */
    activeUsers: () => (db.prepare("SELECT id FROM users WHERE status = 'active' ORDER BY id").all() as { id: number }[]).map((r) => r.id),
  };
}
export type InboxRepository = ReturnType<typeof inboxRepository>;
