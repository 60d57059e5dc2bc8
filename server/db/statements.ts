import type Database from 'better-sqlite3';
import type { Db } from './connection.js';

const caches = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement kept per connection, so request paths never re-prepare the same SQL. */
export function statement(db: Db, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
