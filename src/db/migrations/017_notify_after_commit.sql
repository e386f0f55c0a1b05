-- The delivery workers are woken by the writers themselves, after their commit (`Sql.notify`,
-- src/db/notifier.ts), no longer by a NOTIFY from these triggers: PostgreSQL serialises the
-- commits of all transactions that sent a NOTIFY (one database-wide lock held until the commit is
-- flushed to disk), which capped purchase creation and event writes at one disk flush each.
DROP TRIGGER purchase_events_notify_delivery ON purchase_events;
DROP TRIGGER deliveries_notify_delivery ON deliveries;
DROP FUNCTION chipin_notify_delivery();
