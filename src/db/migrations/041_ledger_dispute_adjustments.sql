-- A dispute's later movements in the ledger (docs/money-operations.md#the-ledger). Migration 037
-- keeps one `chargeback` and one `chargeback_reversal` entry per dispute (`dispute_id`,
-- ledger_entries_dispute_idx). A lost chargeback whose amount the PSP tells again, larger or
-- smaller (HiPay reads `chargebackedAmount` at each notice: a second partial chargeback), or an
-- outcome that turns a third time (lost again after a reversal), moves more money: each further
-- entry of the dispute is an adjustment, `dispute_id` NULL, `adjusts_dispute_id` the dispute and
-- `adjustment_no` its rank (1, 2, …), unique, so a notice applied twice appends once. Added only
-- (docs/deployment.md#rolling-upgrade): the previous release still finds its unique index, and
-- its reports count the adjustments by kind as every other entry.
ALTER TABLE ledger_entries ADD COLUMN adjusts_dispute_id uuid, ADD COLUMN adjustment_no integer;
-- NOT VALID: the column is new (every row NULL), so nothing to check, and no scan of the ledger.
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_adjusts_dispute_fk FOREIGN KEY (adjusts_dispute_id) REFERENCES disputes (id) NOT VALID;
CREATE UNIQUE INDEX ledger_entries_dispute_adjustment_idx ON ledger_entries (adjusts_dispute_id, adjustment_no) WHERE adjusts_dispute_id IS NOT NULL;
