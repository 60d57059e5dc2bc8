import type { Db } from './connection.js';

/** A Tonearm user's own Jellyfin user (migration 069). */
export interface JellyfinUserLink {
  userId: number;
  jellyfinUserId: string;
  jellyfinUserName: string | null;
}

/** SQL of the Jellyfin destination's per-user choice (server/domain/playback/jellyfin.ts). */
export const jellyfinUsers = {
  get(db: Db, userId: number): JellyfinUserLink | undefined {
    return db
      .prepare('SELECT user_id AS userId, jellyfin_user_id AS jellyfinUserId, jellyfin_user_name AS jellyfinUserName FROM jellyfin_users WHERE user_id = ?')
      .get(userId) as JellyfinUserLink | undefined;
  },
  all(db: Db): JellyfinUserLink[] {
    return db
      .prepare('SELECT user_id AS userId, jellyfin_user_id AS jellyfinUserId, jellyfin_user_name AS jellyfinUserName FROM jellyfin_users ORDER BY user_id')
      .all() as JellyfinUserLink[];
  },
  set(db: Db, link: JellyfinUserLink, now: number): void {
    db.prepare(
      `INSERT INTO jellyfin_users (user_id, jellyfin_user_id, jellyfin_user_name, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET jellyfin_user_id = excluded.jellyfin_user_id, jellyfin_user_name = excluded.jellyfin_user_name, updated_at = excluded.updated_at`,
    ).run(link.userId, link.jellyfinUserId, link.jellyfinUserName, now);
  },
  clear(db: Db, userId: number): boolean {
    return db.prepare('DELETE FROM jellyfin_users WHERE user_id = ?').run(userId).changes > 0;
  },
};
