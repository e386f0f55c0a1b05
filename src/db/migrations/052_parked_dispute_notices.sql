-- Dispute notices about a PSP transaction Chipin has not recorded yet
-- (docs/money-operations.md#refunds-and-disputes). A PSP may tell a dispute (a fraud warning at
-- once, a chargeback opened at capture) before the payment's `psp_transaction_id` is stored: the
-- notice is kept here, in the account (and PSP account) it was told to, and applied once that
-- transaction is recorded (the `dispute.parked_notice` job), never dropped.
--
-- * `psp_account_id` NULL: the built-in sandbox PSP, as on `payments`.
-- * `notice` is the verified notice as the connector read it (`NotifiedDispute`); `notice_key`
--   its fingerprint (SHA-256 of the PSP account and the notice), unique per account: a
--   redelivered notice is kept once.
-- * `matched_at` and `payment_id` say when and to which payment it was applied; a notice that
--   never finds its payment (a transaction of another integration on a shared PSP account) stays
--   unmatched, for the record.
CREATE TABLE parked_dispute_notices (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id),
  psp_account_id  uuid,
  transaction_id  text NOT NULL,
  psp_dispute_id  text NOT NULL,
  notice          jsonb NOT NULL,
  notice_key      text NOT NULL,
  received_at     timestamptz NOT NULL,
  matched_at      timestamptz,
  payment_id      uuid REFERENCES payments (id)
);
CREATE UNIQUE INDEX parked_dispute_notices_key_idx ON parked_dispute_notices (account_id, notice_key);
-- The notices still waiting for a transaction, found by it when it is recorded.
CREATE INDEX parked_dispute_notices_waiting_idx ON parked_dispute_notices (account_id, transaction_id) WHERE matched_at IS NULL;
