import type { Db } from './connection.js';

/** One OpenID identity (issuer and subject) bound to a local account. `id` is the row's rowid. */
export interface UserIdentityRow {
  id: number;
  issuer: string;
  subject: string;
  userId: number;
  /** 1 when the identity's first sign-in created the account (its role follows the provider's groups). */
  createdUser: number;
  createdAt: number;
  lastLoginAt: number;
}

const columns = 'rowid AS id, issuer, subject, user_id AS userId, created_user AS createdUser, created_at AS createdAt, last_login_at AS lastLoginAt';

/** The `user_identities` table (migration 053): which provider subject signs in to which account. */
export function userIdentitiesRepository(db: Db) {
  const bySubject = db.prepare(`SELECT ${columns} FROM user_identities WHERE issuer = ? AND subject = ?`);
  const byId = db.prepare(`SELECT ${columns} FROM user_identities WHERE rowid = ?`);
  const forUser = db.prepare(`SELECT ${columns} FROM user_identities WHERE user_id = ? ORDER BY created_at, rowid`);
  const userAtIssuer = db.prepare('SELECT 1 FROM user_identities WHERE user_id = ? AND issuer = ?');
  const insert = db.prepare(
    'INSERT INTO user_identities (issuer, subject, user_id, created_user, created_at, last_login_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const touch = db.prepare('UPDATE user_identities SET last_login_at = ? WHERE issuer = ? AND subject = ?');
  const remove = db.prepare('DELETE FROM user_identities WHERE rowid = ?');
  return {
    find: (issuer: string, subject: string) => bySubject.get(issuer, subject) as UserIdentityRow | undefined,
    byId: (id: number) => byId.get(id) as UserIdentityRow | undefined,
    forUser: (userId: number) => forUser.all(userId) as UserIdentityRow[],
    /** Whether the account already has an identity at this provider (one per provider and account). */
    hasIssuer: (userId: number, issuer: string) => userAtIssuer.get(userId, issuer) !== undefined,
    bind(row: { issuer: string; subject: string; userId: number; createdUser: boolean; now: number }): void {
      insert.run(row.issuer, row.subject, row.userId, row.createdUser ? 1 : 0, row.now, row.now);
    },
    touch: (issuer: string, subject: string, now: number) => void touch.run(now, issuer, subject),
    delete: (id: number) => remove.run(id).changes > 0,
  };
}
export type UserIdentitiesRepository = ReturnType<typeof userIdentitiesRepository>;
