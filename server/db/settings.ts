import type { Db } from './connection.js';

/** Key/value rows of JSON documents: the settings document, instance keys, flags. */
export function settingsRepository(db: Db) {
  const getStmt = db.prepare('SELECT value FROM settings WHERE key = ?');
  const putStmt = db.prepare(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const deleteStmt = db.prepare('DELETE FROM settings WHERE key = ?');
  return {
    get<T>(key: string): T | undefined {
      const row = getStmt.get(key) as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    put(key: string, value: unknown, now = Date.now()): void {
      putStmt.run(key, JSON.stringify(value), now);
    },
    delete(key: string): void {
      deleteStmt.run(key);
    },
  };
}
export type SettingsRepository = ReturnType<typeof settingsRepository>;
