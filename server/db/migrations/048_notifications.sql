-- The notification outbox: one row per (event, destination), written when the event happens and
-- delivered by the `notifications` job queue. The unique key makes an event notify each
-- destination at most once, however often it is seen or retried.
CREATE TABLE notification_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- the event's identity, e.g. job_blocked:12:1764000000000
  event_key TEXT NOT NULL,
  event TEXT NOT NULL,
  -- 'gotify' or 'webhook:<id>'
  destination TEXT NOT NULL,
  -- the placeholder values at the time of the event (JSON)
  vars TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  queue_job_id INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  delivered_at INTEGER,
  UNIQUE (event_key, destination)
);
CREATE INDEX notification_deliveries_updated ON notification_deliveries (updated_at) WHERE status <> 'pending';
