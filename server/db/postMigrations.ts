import type { Db } from './db.js';
import { recomputeSortKeysBatch } from './librarySortKeys.js';

/**
 * Post-migration steps: data changes a SQL migration cannot compute (they need the app's JS rules),
 * queued by a migration as a row of `schema_steps` (migration 037) and run when the database is
 * opened. A step advances batch by batch; each batch commits together with its cursor, so a process
 * killed at any point resumes at the last committed batch, and a finished step never runs again.
 */
export interface PostMigrationStep {
  name: string;
  /** Does one batch from `cursor` (null: the start); returns the next cursor, or null when done. */
  batch(db: Db, cursor: string | null): string | null;
}

export const POST_MIGRATION_STEPS: PostMigrationStep[] = [
  { name: 'library-sort-keys-2', batch: recomputeSortKeysBatch },
];

/** Told when a step starts (or resumes) and when it is done, for the server's log. */
export type StepReporter = (msg: string, fields: Record<string, unknown>) => void;

/** Runs the queued steps this build knows to completion (unknown ones stay queued). */
export function runPostMigrationSteps(db: Db, steps: PostMigrationStep[] = POST_MIGRATION_STEPS, report?: StepReporter): void {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_steps'").get();
  if (!table) return;
  const pending = db.prepare('SELECT name FROM schema_steps WHERE completed_at IS NULL ORDER BY queued_at, name').pluck().all() as string[];
  const cursorOf = db.prepare('SELECT cursor FROM schema_steps WHERE name = ?').pluck();
  const save = db.prepare('UPDATE schema_steps SET cursor = ? WHERE name = ?');
  const finish = db.prepare('UPDATE schema_steps SET cursor = NULL, completed_at = ? WHERE name = ?');
  for (const name of pending) {
    const step = steps.find((s) => s.name === name);
    if (!step) continue;
    const started = Date.now();
    const resumed = cursorOf.get(name) !== null;
    report?.('database upgrade step started', { step: name, resumed });
    let batches = 0;
    let done = false;
    let reported = Date.now();
    while (!done) {
      batches++;
      // A line every few seconds tells a supervisor waiting for the ready line that the server is alive.
      if (Date.now() - reported > 3000) {
        reported = Date.now();
        report?.('database upgrade step progress', { step: name, batches });
      }
      db.transaction(() => {
        const next = step.batch(db, (cursorOf.get(name) as string | null) ?? null);
        if (next === null) {
          finish.run(Date.now(), name);
          done = true;
        } else save.run(next, name);
      }).immediate();
    }
    report?.('database upgrade step done', { step: name, batches, ms: Date.now() - started });
  }
}
