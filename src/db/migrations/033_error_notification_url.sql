-- A purchase's errorNotificationUrl: where every refused payment attempt of the purchase is sent
-- as a signed refusal notification (docs/webhooks.md#refusal-notifications). NULL: none.
ALTER TABLE purchases ADD COLUMN error_notification_url text;
-- The refusal notification is a delivery kind of its own: its own line per purchase (a failing
-- paymentNotificationUrl does not hold it back), its own destination for the fairness rules, and
-- an event may have one beside its back-mode notification (a pledge's refused transaction).
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check CHECK (kind IN ('webhook', 'notification', 'refusal'));
