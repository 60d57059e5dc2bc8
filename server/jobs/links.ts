import type { Logger } from '../log.js';
import type { EnqueueOptions, JobQueue } from './queue.js';

/**
 * Domain rows that each need a queue job to carry them out (a download job, a scrobble or
 * notification outbox row): what the rows are, and the job a row gets.
 */
export interface JobLinkSpec<Row> {
  /** For logs. */
  name: string;
  queue: string;
  /** Rows that need a job and have none pending or running (the query lives in server/db). */
  orphans(): Row[];
  /** The job a row gets. */
  job(row: Row): { payload: unknown; options?: EnqueueOptions };
  /** Records the job's id on the row (in the same transaction as the job). */
  link?(row: Row, jobId: number): void;
  /** A row some code is working on outside the queue right now: not an orphan, however it looks. */
  busy?(row: Row): boolean;
  /** Whether repairs give jobs now (downloads: only while the worker runs). */
  active?(): boolean;
}

/**
 * One way to keep a domain row and its queue job together: `attach`/`write` put the row and its
 * job in one transaction, and `repair` gives every row left without a live job (its process stopped
 * before the job was written, the job ended while the row still waits) its job, in one transaction.
 * Repairs run when a domain asks (at its start, after a change of settings, `repairSoon` after a
 * request whose jobs may wait for its answer) and from the one scheduled task REPAIR_TASK
 * (Scheduler.link), so nothing keeps a timer of its own.
 */
export class JobLinks<Row> {
  private soon = false;
  private closed = false;

  constructor(
    private readonly jobs: JobQueue,
    readonly spec: JobLinkSpec<Row>,
    private readonly log: Logger,
  ) {}

  /** Gives `row` its job (in the caller's transaction when there is one); returns the job's id. */
  attach(row: Row, options: EnqueueOptions = {}): number {
    return this.jobs.transaction(() => {
      const { payload, options: base } = this.spec.job(row);
      const { id } = this.jobs.enqueue(this.spec.queue, payload, { ...base, ...options });
      this.spec.link?.(row, id);
      return id;
    });
  }

  /** Writes rows and gives each its job, all in one transaction: both or neither. */
  write<T>(write: () => T, rowsOf: (written: T) => Row[]): T {
    return this.jobs.transaction(() => {
      const written = write();
      for (const row of rowsOf(written)) this.attach(row);
      return written;
    });
  }

  /** One pass: every row without a live job (and not busy) gets its job, in one transaction; returns how many. */
  repair(): number {
    if (this.closed || this.spec.active?.() === false) return 0;
    return this.jobs.transaction(() => {
      let count = 0;
      for (const row of this.spec.orphans()) {
        if (this.spec.busy?.(row)) continue;
        this.attach(row);
        count++;
      }
      return count;
    });
  }

  /**
   * A repair on the next turn of the event loop, coalesced: rows a request wrote get their jobs once
   * its answer is on the wire. A pass that fails (database busy or closing) is left to REPAIR_TASK.
   */
  repairSoon(): void {
    if (this.soon || this.closed) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      this.repairLogged();
    });
  }

  /** repair(), with a failure logged instead of thrown; returns how many rows got a job. */
  repairLogged(): number {
    try {
      return this.repair();
    } catch (err) {
      if (!this.closed) this.log.warn('rows not given their jobs yet; the repair task tries again', { rows: this.spec.name, error: err instanceof Error ? err.message : String(err) });
      return 0;
    }
  }

  /** No more repairs (the server is stopping). */
  close(): void {
    this.closed = true;
  }
}
