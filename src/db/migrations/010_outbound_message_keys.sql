-- Shopper notices (receipts, pre-charge notices, failed-charge notices; docs/messaging.md) are
-- sent at most once: each carries a key (one per payment, installment or attempt), and its row is
-- claimed under that key, per channel, before the message is handed to the transport. Two
-- processes, a job run twice or two paths reaching the same payment then send it once.
ALTER TABLE outbound_messages ADD COLUMN message_key text;
CREATE UNIQUE INDEX outbound_messages_key_idx ON outbound_messages (account_id, message_key, channel) WHERE message_key IS NOT NULL;
