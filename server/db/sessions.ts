import type { Db } from './connection.js';

export interface SessionRow {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  ip_address: string | null;
  user_agent: string | null;
}

export function sessionsRepository(db: Db) {
  const insert = db.prepare(
    `INSERT INTO sessions (id, user_id, created_at, expires_at, ip_address, user_agent)
     VALUES (@id, @user_id, @created_at, @expires_at, @ip_address, @user_agent)`,
  );
  const byId = db.prepare('SELECT * FROM sessions WHERE id = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE id = ?');
  const removeForUser = db.prepare('DELETE FROM sessions WHERE user_id = ?');
  const removeOthers = db.prepare('DELETE FROM sessions WHERE user_id = ? AND id <> ?');
  const removeExpired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
  return {
    insert: (row: SessionRow) => void insert.run(row),
    byId: (id: string) => byId.get(id) as SessionRow | undefined,
    delete: (id: string) => remove.run(id).changes > 0,
    deleteForUser: (userId: number) => removeForUser.run(userId).changes,
    deleteForUserExcept: (userId: number, keepId: string) => removeOthers.run(userId, keepId).changes,
    deleteExpired: (now: number) => removeExpired.run(now).changes,
  };
}
export type SessionsRepository = ReturnType<typeof sessionsRepository>;
