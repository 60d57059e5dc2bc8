-- The notification outbox's repair pass (server/jobs/links.ts) looks for pending rows without a live
-- queue job every 30 s: it reads the pending rows only.
CREATE INDEX notification_deliveries_pending ON notification_deliveries (id) WHERE status = 'pending';
