import type { Db } from './connection.js';
import { statement } from './statements.js';

export type ScanMode = 'quick' | 'full';
export type ScanStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ScanCounts {
  filesSeen: number;
  filesIndexed: number;
  filesSkipped: number;
  filesFailed: number;
  filesMissing: number;
  filesMoved: number;
}

export interface ScanError {
  path: string;
  reason: string;
}

export interface ScanRun extends ScanCounts {
  id: number;
  source: string;
  mode: ScanMode;
  status: ScanStatus;
  reason: string | null;
  roots: string[];
  errors: ScanError[];
  error: string | null;
  requestedAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

interface RunRow {
  id: number; source: string; mode: ScanMode; status: ScanStatus; reason: string | null; roots_json: string;
  files_seen: number; files_indexed: number; files_skipped: number; files_failed: number; files_missing: number;
  files_moved: number; errors_json: string; error: string | null; requested_at: number; started_at: number | null;
  completed_at: number | null;
}

function toRun(r: RunRow): ScanRun {
  return {
    id: r.id, source: r.source, mode: r.mode, status: r.status, reason: r.reason,
    roots: JSON.parse(r.roots_json) as string[],
    filesSeen: r.files_seen, filesIndexed: r.files_indexed, filesSkipped: r.files_skipped,
    filesFailed: r.files_failed, filesMissing: r.files_missing, filesMoved: r.files_moved,
    errors: JSON.parse(r.errors_json) as ScanError[], error: r.error,
    requestedAt: r.requested_at, startedAt: r.started_at, completedAt: r.completed_at,
  };
}

/** library_scan_runs: one row per scan, doubling as the refresh job record. */
export const scanRuns = {
  get(db: Db, id: number): ScanRun | undefined {
    const row = statement(db, 'SELECT * FROM library_scan_runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? toRun(row) : undefined;
  },
  latest(db: Db): ScanRun | undefined {
    const row = statement(db, 'SELECT * FROM library_scan_runs ORDER BY id DESC LIMIT 1').get() as RunRow | undefined;
    return row ? toRun(row) : undefined;
  },
  queued(db: Db, source = 'aurral'): ScanRun | undefined {
    const row = statement(db, "SELECT * FROM library_scan_runs WHERE status = 'queued' AND source = ? ORDER BY id LIMIT 1")
      .get(source) as RunRow | undefined;
    return row ? toRun(row) : undefined;
  },
  /** Every queued run of a source, oldest first. */
  allQueued(db: Db, source = 'aurral'): ScanRun[] {
    return (statement(db, "SELECT * FROM library_scan_runs WHERE status = 'queued' AND source = ? ORDER BY id").all(source) as RunRow[]).map(toRun);
  },
  running(db: Db, source = 'aurral'): ScanRun | undefined {
    const row = statement(db, "SELECT * FROM library_scan_runs WHERE status = 'running' AND source = ? ORDER BY id LIMIT 1")
      .get(source) as RunRow | undefined;
    return row ? toRun(row) : undefined;
  },
  enqueue(db: Db, mode: ScanMode, reason: string, now: number, source = 'aurral'): number {
    return (
      statement(db, 
          "INSERT INTO library_scan_runs (source, mode, status, reason, requested_at) VALUES (?, ?, 'queued', ?, ?) RETURNING id",
        )
        .get(source, mode, reason, now) as { id: number }
    ).id;
  },
  upgradeToFull(db: Db, id: number): void {
    statement(db, "UPDATE library_scan_runs SET mode = 'full' WHERE id = ? AND status = 'queued'").run(id);
  },
  start(db: Db, id: number, roots: string[], now: number): void {
    statement(db, "UPDATE library_scan_runs SET status = 'running', roots_json = ?, started_at = ? WHERE id = ?").run(
      JSON.stringify(roots), now, id,
    );
  },
  progress(db: Db, id: number, counts: ScanCounts, errors: ScanError[]): void {
    statement(db, 
      `UPDATE library_scan_runs SET files_seen = ?, files_indexed = ?, files_skipped = ?, files_failed = ?,
         files_missing = ?, files_moved = ?, errors_json = ? WHERE id = ?`,
    ).run(counts.filesSeen, counts.filesIndexed, counts.filesSkipped, counts.filesFailed, counts.filesMissing,
      counts.filesMoved, JSON.stringify(errors), id);
  },
  finish(db: Db, id: number, status: 'completed' | 'failed', error: string | null, now: number): void {
    statement(db, 'UPDATE library_scan_runs SET status = ?, error = ?, completed_at = ? WHERE id = ?').run(status, error, now, id);
  },
  /** Runs a killed process left `running` are closed as failed (interrupted); returns their ids. */
  /** Queued runs of a previous process (their scope is gone from memory): failed as superseded; returns their ids. */
  supersedeQueued(db: Db, now: number, source: string): { id: number }[] {
    return db
      .prepare("UPDATE library_scan_runs SET status = 'failed', error = 'superseded', completed_at = ? WHERE status = 'queued' AND source = ? RETURNING id")
      .all(now, source) as { id: number }[];
  },
  closeInterrupted(db: Db, now: number, source = 'aurral'): number[] {
    return (
      statement(db, 
          `UPDATE library_scan_runs SET status = 'failed', error = 'interrupted', completed_at = ?
           WHERE status = 'running' AND source = ? RETURNING id`,
        )
        .all(now, source) as { id: number }[]
    ).map((r) => r.id);
  },
};
