import type { Db } from './connection.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: number;
  eventKey: string;
  event: string;
  destination: string;
  vars: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  queueJobId: number | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

const COLUMNS = `id, event_key AS eventKey, event, destination, vars, status, attempts, last_error AS lastError,
  queue_job_id AS queueJobId, created_at AS createdAt, updated_at AS updatedAt, delivered_at AS deliveredAt`;

/** The notification outbox (048_notifications.sql). */
export const notificationDeliveries = {
  /** Records a delivery; undefined when this event was already recorded for this destination. */
  insert(db: Db, d: { eventKey: string; event: string; destination: string; vars: string }, now: number): DeliveryRow | undefined {
    return db
      .prepare(
        `INSERT INTO notification_deliveries (event_key, event, destination, vars, created_at, updated_at)
         VALUES (@eventKey, @event, @destination, @vars, @now, @now)
         ON CONFLICT (event_key, destination) DO NOTHING
         RETURNING ${COLUMNS}`,
      )
      .get({ ...d, now }) as DeliveryRow | undefined;
  },

  get(db: Db, id: number): DeliveryRow | undefined {
    return db.prepare(`SELECT ${COLUMNS} FROM notification_deliveries WHERE id = ?`).get(id) as DeliveryRow | undefined;
  },

  list(db: Db, limit = 100): DeliveryRow[] {
    return db.prepare(`SELECT ${COLUMNS} FROM notification_deliveries ORDER BY id DESC LIMIT ?`).all(limit) as DeliveryRow[];
  },

  /** Pending rows whose queue job is missing or no longer pending or running (the outbox's repair), oldest first. */
  withoutLiveJob(db: Db): DeliveryRow[] {
    return db
      .prepare(
        `SELECT ${COLUMNS} FROM notification_deliveries d WHERE d.status = 'pending'
           AND NOT EXISTS (SELECT 1 FROM jobs q WHERE q.id = d.queue_job_id AND q.status IN ('pending', 'running'))
         ORDER BY d.id`,
      )
      .all() as DeliveryRow[];
  },

  setQueueJob(db: Db, id: number, queueJobId: number): void {
    db.prepare('UPDATE notification_deliveries SET queue_job_id = ? WHERE id = ?').run(queueJobId, id);
  },

  /** Counts an attempt; `delivered` and `failed` are final, `pending` waits for the next attempt. */
  recordAttempt(db: Db, id: number, outcome: { status: DeliveryStatus; error: string | null }, now: number): void {
    db.prepare(
      `UPDATE notification_deliveries
       SET attempts = attempts + 1, status = @status, last_error = @error, updated_at = @now,
           delivered_at = CASE WHEN @status = 'delivered' THEN @now ELSE delivered_at END
       WHERE id = @id AND status = 'pending'`,
    ).run({ id, status: outcome.status, error: outcome.error, now });
  },

  /** Final rows older than `before`; pending ones stay until delivered or given up. */
  prune(db: Db, before: number): number {
    return db.prepare("DELETE FROM notification_deliveries WHERE status <> 'pending' AND updated_at < ?").run(before).changes;
  },

  /** How an album's track jobs stand (quality-upgrade jobs left out): all done means the album is complete. */
  albumProgress(db: Db, albumId: number): { total: number; done: number } {
    return db
      .prepare("SELECT count(*) AS total, coalesce(sum(status = 'done'), 0) AS done FROM download_jobs WHERE album_id = ? AND upgrade = 0")
      .get(albumId) as { total: number; done: number };
  },
};
