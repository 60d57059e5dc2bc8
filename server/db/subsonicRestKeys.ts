import type { Db } from './connection.js';

export interface RestKeyRow {
  id: number;
  user_id: number;
  name: string;
  key_hash: string;
  prefix: string;
  created_at: number;
  last_used_at: number | null;
}

/** Per-user OpenSubsonic API keys (hashes only). */
export function restKeysRepository(db: Db) {
  const insert = db.prepare(
    'INSERT INTO rest_keys (user_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *',
  );
  const ofUser = db.prepare('SELECT * FROM rest_keys WHERE user_id = ? ORDER BY id');
  const byHash = db.prepare('SELECT * FROM rest_keys WHERE key_hash = ?');
  const remove = db.prepare('DELETE FROM rest_keys WHERE id = ? AND user_id = ?');
  const touch = db.prepare('UPDATE rest_keys SET last_used_at = ? WHERE id = ?');
  return {
    insert: (userId: number, name: string, keyHash: string, prefix: string, now: number) =>
      insert.get(userId, name, keyHash, prefix, now) as RestKeyRow,
    ofUser: (userId: number) => ofUser.all(userId) as RestKeyRow[],
    byHash: (keyHash: string) => byHash.get(keyHash) as RestKeyRow | undefined,
    remove: (id: number, userId: number) => remove.run(id, userId).changes > 0,
    touch: (id: number, now: number) => void touch.run(now, id),
  };
}
export type RestKeysRepository = ReturnType<typeof restKeysRepository>;
