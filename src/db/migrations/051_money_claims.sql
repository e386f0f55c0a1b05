-- One money operation at a time per purchase (docs/money-operations.md#one-money-operation-at-a-time).
--
-- An operation that can capture, charge, refund, void, re-authorise or change what a purchase
-- owes takes the purchase's claim in the transaction that reserves its PSP call (under the
-- purchase's row lock), and gives it back once the PSP's answer is recorded. A row here is a
-- claim: its `token` names the operation run that holds it, `lease_until` (the database's clock,
-- never the sandbox clock) when another may take it over because the holder's process died.
--
-- Rows come and go with each operation: a table of their own keeps the purchases' rows (and their
-- HOT updates) untouched. One row per holder: only collections share a purchase (the same
-- installment's attempt carries the same PSP keys), which the code decides under the purchase's
-- row lock; every other operation holds it alone.
CREATE TABLE money_claims (
  account_id  uuid NOT NULL,
  purchase_id uuid NOT NULL REFERENCES purchases (id),
  operation   text NOT NULL,
  token       uuid NOT NULL,
  claimed_at  timestamptz NOT NULL,
  lease_until timestamptz NOT NULL,
  PRIMARY KEY (purchase_id, token)
);
