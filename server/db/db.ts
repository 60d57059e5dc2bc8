import type Database from 'better-sqlite3';

/** A connection to the service's SQLite database (opened by connection.ts). A leaf: every repository may import it. */
export type Db = Database.Database;
