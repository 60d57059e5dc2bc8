import type { Db } from './connection.js';
import { statement } from './statements.js';

/** Forwarding runs inside the player's request, so statements are prepared once per connection. */
const stmt = statement;

export const SCROBBLE_SERVICES = ['lastfm', 'listenbrainz', 'koito'] as const;
export type ScrobbleService = (typeof SCROBBLE_SERVICES)[number];

export interface ScrobbleLinkRow {
  userId: number;
  service: ScrobbleService;
  username: string | null;
  /** Encrypted (secrets.ts `encrypt`); only the delivery code decrypts it. */
  secretEnc: string;
  baseUrl: string | null;
  linkedAt: number;
}

export type ScrobbleKind = 'scrobble' | 'now_playing';
export type ScrobbleDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface ScrobbleDeliveryRow {
  id: number;
  userId: number;
  playEventId: number | null;
  service: ScrobbleService;
  kind: ScrobbleKind;
  play: string;
  status: ScrobbleDeliveryStatus;
  attempts: number;
  lastError: string | null;
  queueJobId: number | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

const LINK_COLUMNS = 'user_id AS userId, service, username, secret_enc AS secretEnc, base_url AS baseUrl, linked_at AS linkedAt';
const DELIVERY_COLUMNS = `id, user_id AS userId, play_event_id AS playEventId, service, kind, play, status, attempts,
  last_error AS lastError, queue_job_id AS queueJobId, created_at AS createdAt, updated_at AS updatedAt, delivered_at AS deliveredAt`;

/** Per-user links to the scrobbling services (056_scrobbling.sql). */
export const scrobbleLinks = {
  list(db: Db, userId: number): ScrobbleLinkRow[] {
    return stmt(db, `SELECT ${LINK_COLUMNS} FROM scrobble_links WHERE user_id = ? ORDER BY service`).all(userId) as ScrobbleLinkRow[];
  },

  get(db: Db, userId: number, service: ScrobbleService): ScrobbleLinkRow | undefined {
    return stmt(db, `SELECT ${LINK_COLUMNS} FROM scrobble_links WHERE user_id = ? AND service = ?`).get(userId, service) as ScrobbleLinkRow | undefined;
  },

  /** Links (or re-links, replacing the secret) one service for one user. */
  upsert(db: Db, link: Omit<ScrobbleLinkRow, 'linkedAt'>, now: number): void {
    stmt(
      db,
      `INSERT INTO scrobble_links (user_id, service, username, secret_enc, base_url, linked_at)
       VALUES (@userId, @service, @username, @secretEnc, @baseUrl, @now)
       ON CONFLICT (user_id, service) DO UPDATE SET username = excluded.username, secret_enc = excluded.secret_enc,
         base_url = excluded.base_url, linked_at = excluded.linked_at`,
    ).run({ ...link, now });
  },

  delete(db: Db, userId: number, service: ScrobbleService): boolean {
    return stmt(db, 'DELETE FROM scrobble_links WHERE user_id = ? AND service = ?').run(userId, service).changes > 0;
  },
};

/** The scrobble outbox: one row per (play event, service), or per now-playing update and service. */
export const scrobbleDeliveries = {
  /**
   * Records the play for every service the user linked (Last.fm only when `lastfm` is true) in one
   * statement, reading the links as it inserts; a play already recorded for a service is skipped.
   * Returns the new rows' ids: they have no queue job yet (see `withoutJob` and `setQueueJob`).
   */
  insertForLinks(db: Db, d: { userId: number; playEventId: number | null; kind: ScrobbleKind; play: string; lastfm: boolean }, now: number): number[] {
    const rows = stmt(
      db,
      `INSERT INTO scrobble_deliveries (user_id, play_event_id, service, kind, play, created_at, updated_at)
       SELECT user_id, @playEventId, service, @kind, @play, @now, @now FROM scrobble_links
       WHERE user_id = @userId AND (service <> 'lastfm' OR @lastfm)
       ON CONFLICT (play_event_id, service) WHERE play_event_id IS NOT NULL DO NOTHING
       RETURNING id`,
    ).all({ userId: d.userId, playEventId: d.playEventId, kind: d.kind, play: d.play, lastfm: d.lastfm ? 1 : 0, now }) as { id: number }[];
    return rows.map((r) => r.id);
  },

  /** Every pending row without a queue job (written just before the process stopped), oldest first. */
  withoutJob(db: Db): Pick<ScrobbleDeliveryRow, 'id' | 'service' | 'kind'>[] {
    return stmt(db, "SELECT id, service, kind FROM scrobble_deliveries WHERE status = 'pending' AND queue_job_id IS NULL ORDER BY id").all() as Pick<
      ScrobbleDeliveryRow,
      'id' | 'service' | 'kind'
    >[];
  },

  get(db: Db, id: number): ScrobbleDeliveryRow | undefined {
    return stmt(db, `SELECT ${DELIVERY_COLUMNS} FROM scrobble_deliveries WHERE id = ?`).get(id) as ScrobbleDeliveryRow | undefined;
  },

  list(db: Db, filter: { userId?: number; limit?: number } = {}): ScrobbleDeliveryRow[] {
    const where = filter.userId === undefined ? '' : 'WHERE user_id = @userId';
    return stmt(db, `SELECT ${DELIVERY_COLUMNS} FROM scrobble_deliveries ${where} ORDER BY id DESC LIMIT @limit`)
      .all({ userId: filter.userId, limit: filter.limit ?? 100 }) as ScrobbleDeliveryRow[];
  },

  setQueueJob(db: Db, id: number, queueJobId: number): void {
    stmt(db, 'UPDATE scrobble_deliveries SET queue_job_id = ? WHERE id = ?').run(queueJobId, id);
  },

  /** Counts an attempt; `delivered` and `failed` are final, `pending` waits for the next attempt. */
  recordAttempt(db: Db, id: number, outcome: { status: ScrobbleDeliveryStatus; error: string | null }, now: number): void {
    stmt(
      db,
      `UPDATE scrobble_deliveries
       SET attempts = attempts + 1, status = @status, last_error = @error, updated_at = @now,
           delivered_at = CASE WHEN @status = 'delivered' THEN @now ELSE delivered_at END
       WHERE id = @id AND status = 'pending'`,
    ).run({ id, status: outcome.status, error: outcome.error, now });
  },

  /** Gives up the pending rows of a link that was removed; returns their queue jobs (to cancel). */
  dropPending(db: Db, userId: number, service: ScrobbleService, reason: string, now: number): number[] {
    const rows = stmt(
      db,
        `UPDATE scrobble_deliveries SET status = 'failed', last_error = ?, updated_at = ?
         WHERE user_id = ? AND service = ? AND status = 'pending' RETURNING queue_job_id AS queueJobId`,
      )
      .all(reason, now, userId, service) as { queueJobId: number | null }[];
    return rows.map((r) => r.queueJobId).filter((id): id is number => id !== null);
  },

  prune(db: Db, before: number): number {
    return stmt(db, "DELETE FROM scrobble_deliveries WHERE status <> 'pending' AND updated_at < ?").run(before).changes;
  },
};
