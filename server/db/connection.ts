import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Db } from './db.js';
import { runPostMigrationSteps, type PostMigrationStep, type StepReporter } from './postMigrations.js';
import { subsonicKeySql } from './subsonicKey.js';

export type { Db } from './db.js';

/** Raised when the database cannot be used as-is; the file is left untouched. */
export class DatabaseRefusedError extends Error {}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Numbered, append-only migrations: `NNN_name.sql` files in db/migrations. */
export function loadMigrations(dir: string = migrationsDir): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f.slice(4, -4),
      sql: fs.readFileSync(path.join(dir, f), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

export interface OpenOptions {
  /** Page cache size in MiB; MAIN_CACHE_MB by default. */
  cacheMb?: number;
  readonly?: boolean;
  migrations?: Migration[];
  /** JS steps the migrations may queue (postMigrations.ts); the built-in ones by default. */
  postSteps?: PostMigrationStep[];
  /** Hears when a post-migration step starts and ends (they can take a while on a large library). */
  reportStep?: StepReporter;
}

/**
 * Opens the service database. An existing file is first checked read-only, so a corrupt file or
 * one written by a newer build is refused before anything (even the WAL switch) writes to it.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const migrations = options.migrations ?? loadMigrations();
  if (fs.existsSync(file)) preflight(file, migrations);
  if (!options.readonly) ownerOnly(file);
  const db = new Database(file, { readonly: options.readonly ?? false });
  configure(db, options.cacheMb ?? MAIN_CACHE_MB, options.readonly ?? false, MAIN_MMAP_BYTES);
  if (!options.readonly) {
    try {
      migrate(db, migrations);
      runPostMigrationSteps(db, options.postSteps, options.reportStep);
    } catch (err) {
      db.close();
      throw err;
    }
  }
  return db;
}

/**
 * The database holds password hashes and the readable password copies: it and its -wal/-shm are
 * owner-only whatever the umask. SQLite gives -wal and -shm the mode of the database file, so
 * creating the file 0600 first covers them; files left readable by an earlier version are tightened.
 */
function ownerOnly(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** A second connection for a worker thread: same file, no migrations, smaller cache. */
export function openWorkerConnection(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  configure(db, 16, false, WORKER_MMAP_BYTES);
  return db;
}

/**
 * The main connection's page cache, in MiB, as the worker connections'. Pages beyond the memory map
 * (a database over 256 MB) are read into it, and what it frees goes back to malloc, not to the
 * system: npm run bench:memory, 1,000,000 seeded tracks, idle 90 s after 3,000 requests, 213 MB with
 * 64 MiB, 158 MB with 16 MiB, the requests no slower (87 vs 83 s). The file's pages stay in the
 * operating system's cache either way.
 */
export const MAIN_CACHE_MB = 16;

/**
 * How much of the database file a worker connection (a scan) reads through a memory map. Mapped pages
 * count in the process's resident memory for as long as the map lives (up to this much on a large
 * library), so shrinkMemory drops the map; it comes back as queries read.
 */
const WORKER_MMAP_BYTES = 256 * 1024 * 1024;

/**
 * The main connection, which answers the requests, maps none of the file: its reads go through the
 * 16 MiB page cache (the file's pages stay in the operating system's cache). A busy spell on a large
 * library read up to the whole 256 MB map into the process's resident memory. npm run bench:memory,
 * 1,000,000 seeded tracks, 3,000 requests, three runs at the same time (load 7-10): peak 407 MB with
 * the 256 MB map, 267 with 64 MB, 195 without; the requests took 143.3, 148.0 and 143.7 s.
 */
export const MAIN_MMAP_BYTES = 0;

function configure(db: Db, cacheMb: number, readonly: boolean, mmapBytes: number): void {
  if (!readonly) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${cacheMb * 1024}`);
  db.pragma('temp_store = MEMORY');
  db.pragma(`mmap_size = ${mmapBytes}`);
  // Library triggers (migration 023) derive Subsonic keys with it, on every connection alike.
  db.function('subsonic_key', { deterministic: true }, subsonicKeySql);
}

function preflight(file: string, migrations: Migration[]): void {
  let probe: Db | undefined;
  try {
    probe = new Database(file, { readonly: true, fileMustExist: true });
    probe.pragma('schema_version');
    const hasTable = probe
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    if (!hasTable) return;
    const applied = probe.prepare('SELECT version FROM schema_migrations').all() as { version: number }[];
    const known = new Set(migrations.map((m) => m.version));
    const unknown = applied.map((r) => r.version).filter((v) => !known.has(v));
    if (unknown.length > 0) {
      const newest = Math.max(...applied.map((r) => r.version));
      throw new DatabaseRefusedError(
        `database ${file} was written by a newer Tonearm (schema ${newest}; this build knows up to ` +
          `${Math.max(0, ...known)}); upgrade Tonearm or point TONEARM_DATA_DIR elsewhere. The file was not changed.`,
      );
    }
  } catch (err) {
    if (err instanceof DatabaseRefusedError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new DatabaseRefusedError(
      `database ${file} cannot be read (${reason}); it may be corrupt. Restore a backup or move it away. The file was not changed.`,
    );
  } finally {
    probe?.close();
  }
}

function migrate(db: Db, migrations: Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, Date.now());
    }).immediate();
  }
}

/** Runs fn in a BEGIN IMMEDIATE transaction, so writers never deadlock on lock upgrades. */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/**
 * Frees what this connection's page cache holds and unmaps the database file when the connection maps
 * it (mapped pages were resident memory: 240 MB on a 200,000-track library after a few thousand
 * requests); both refill from the file as queries need them. Setting the map's size to 0 unmaps it,
 * setting it back maps again lazily, at the next read.
 */
export function shrinkMemory(db: Db): void {
  if (!db.open) return;
  db.pragma('shrink_memory');
  if (db.memory) return;
  const mapped = db.pragma('mmap_size', { simple: true }) as number;
  if (mapped === 0) return;
  db.pragma('mmap_size = 0');
  db.pragma(`mmap_size = ${mapped}`);
}

/** The SQLite library's version (`system.database.version` of GET /api/health). */
export function sqliteVersion(db: Db): string {
  return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
}
