-- A pot's end told to the offer's purchase end notification URL (docs/webhooks.md#purchase-end-notification)
-- is a delivery of its own kind, `purchase_end`: its own line per purchase and destination, listed
-- and replayed as the others. Expand only: the check accepts one more value; a build that predates
-- it never writes that kind (docs/deployment.md#rolling-upgrade).
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check CHECK (kind IN ('webhook', 'notification', 'refusal', 'purchase_end'));
