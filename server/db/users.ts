import type { Db } from './connection.js';

export interface UserRow {
  id: number;
  username: string;
  password_hash: string;
  password_enc: string;
  role: 'admin' | 'user';
  permissions: string;
  status: 'active' | 'disabled';
  discover_layout: string | null;
  lidarr_preferences: string;
  listening_history_provider: string | null;
  listening_history_username: string | null;
  listening_history_url: string | null;
  /** 0: none; 1: a one-time password is set; 2: it was used once, a new password must be chosen. */
  must_change_password: 0 | 1 | 2;
  created_at: number;
  updated_at: number;
}

export type NewUser = Pick<UserRow, 'username' | 'password_hash' | 'password_enc' | 'role' | 'permissions'>;
export type UserChanges = Partial<Omit<UserRow, 'id' | 'created_at' | 'updated_at'>>;

const columns = new Set([
  'username',
  'password_hash',
  'password_enc',
  'role',
  'permissions',
  'status',
  'discover_layout',
  'lidarr_preferences',
  'listening_history_provider',
  'listening_history_username',
  'listening_history_url',
  'must_change_password',
]);

export function usersRepository(db: Db) {
  const byId = db.prepare('SELECT * FROM users WHERE id = ?');
  const byName = db.prepare('SELECT * FROM users WHERE username = ?');
  const all = db.prepare('SELECT * FROM users ORDER BY id');
  const insert = db.prepare(
    `INSERT INTO users (username, password_hash, password_enc, role, permissions, created_at, updated_at)
     VALUES (@username, @password_hash, @password_enc, @role, @permissions, @now, @now)`,
  );
  const remove = db.prepare('DELETE FROM users WHERE id = ?');
  const count = db.prepare('SELECT COUNT(*) AS n FROM users');
  const activeAdmins = db.prepare("SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND status = 'active'");
  return {
    byId: (id: number) => byId.get(id) as UserRow | undefined,
    byUsername: (username: string) => byName.get(username) as UserRow | undefined,
    list: () => all.all() as UserRow[],
    count: () => (count.get() as { n: number }).n,
    activeAdminCount: () => (activeAdmins.get() as { n: number }).n,
    insert(user: NewUser, now = Date.now()): number {
      return Number(insert.run({ ...user, now }).lastInsertRowid);
    },
    update(id: number, changes: UserChanges, now = Date.now()): void {
      const keys = Object.keys(changes).filter((k) => columns.has(k));
      if (keys.length === 0) return;
      const set = keys.map((k) => `${k} = @${k}`).join(', ');
      db.prepare(`UPDATE users SET ${set}, updated_at = @now WHERE id = @id`).run({ ...changes, id, now });
    },
    delete: (id: number) => remove.run(id).changes > 0,
  };
}
export type UsersRepository = ReturnType<typeof usersRepository>;
