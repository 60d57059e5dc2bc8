import type { Db } from './connection.js';

/** What a share names: a library entry by its Subsonic key, or a playlist by its id. */
export type ShareTarget = { kind: 'track' | 'album' | 'artist'; key: string } | { kind: 'playlist'; id: number };

export interface ShareRow {
  id: string;
  user_id: number;
  owner: string;
  description: string;
  created_at: number;
  expires_at: number | null;
  last_visited_at: number | null;
  visit_count: number;
}

const SELECT = 'SELECT s.*, u.username AS owner FROM shares s JOIN users u ON u.id = s.user_id';

/** Public share links (migration 033): what was shared, by whom, until when, how often visited. */
export function sharesRepository(db: Db) {
  const s = {
    byId: db.prepare(`${SELECT} WHERE s.id = ?`),
    ofUser: db.prepare(`${SELECT} WHERE s.user_id = ? ORDER BY s.created_at, s.rowid`),
    all: db.prepare(`${SELECT} ORDER BY s.created_at, s.rowid`),
    insert: db.prepare('INSERT INTO shares (id, user_id, description, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
    insertTarget: db.prepare('INSERT INTO share_entries (share_id, position, kind, target) VALUES (?, ?, ?, ?)'),
    targets: db.prepare('SELECT kind, target FROM share_entries WHERE share_id = ? ORDER BY position'),
    update: db.prepare('UPDATE shares SET description = ?, expires_at = ? WHERE id = ?'),
    remove: db.prepare('DELETE FROM shares WHERE id = ?'),
    visit: db.prepare('UPDATE shares SET visit_count = visit_count + 1, last_visited_at = ? WHERE id = ?'),
  };
  return {
    byId: (id: string) => s.byId.get(id) as ShareRow | undefined,
    ofUser: (userId: number) => s.ofUser.all(userId) as ShareRow[],
    all: () => s.all.all() as ShareRow[],
    targets: (id: string) =>
      (s.targets.all(id) as { kind: ShareTarget['kind']; target: string }[]).map(
        (r): ShareTarget => (r.kind === 'playlist' ? { kind: 'playlist', id: Number(r.target) } : { kind: r.kind, key: r.target }),
      ),
    create(share: { id: string; userId: number; description: string; expiresAt: number | null }, targets: ShareTarget[], now: number): void {
      db.transaction(() => {
        s.insert.run(share.id, share.userId, share.description, now, share.expiresAt);
        targets.forEach((t, i) => s.insertTarget.run(share.id, i, t.kind, t.kind === 'playlist' ? String(t.id) : t.key));
      })();
    },
    update: (id: string, description: string, expiresAt: number | null) => s.update.run(description, expiresAt, id).changes > 0,
    remove: (id: string) => s.remove.run(id).changes > 0,
    visit: (id: string, now: number) => void s.visit.run(now, id),
  };
}

export type SharesRepository = ReturnType<typeof sharesRepository>;
