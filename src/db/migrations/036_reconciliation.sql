-- Reconciliation with the PSPs (docs/money-operations.md#reconciliation): one run per account, PSP
-- account and period, and the mismatches it found. A run is written page by page: each page's
-- mismatches and the run's cursor in one transaction, so an interrupted run resumes where it stopped.
CREATE TABLE reconciliation_runs (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id),
  -- The merchant's own PSP account (back mode); null: the platform's PSP of that name.
  psp_account_id  uuid REFERENCES psp_accounts (id),
  psp             text NOT NULL,
  period_from     timestamptz NOT NULL,
  period_to       timestamptz NOT NULL CHECK (period_to > period_from),
  state           text NOT NULL CHECK (state IN ('running', 'interrupted', 'completed')),
  -- Where the next page starts: the PSP's cursor (list API) or the last payment compared (fallback).
  cursor          text,
  pages           integer NOT NULL DEFAULT 0,
  matched_count   integer NOT NULL DEFAULT 0,
  mismatch_count  integer NOT NULL DEFAULT 0,
  -- The PSP fault that interrupted the run, if any.
  error           text,
  started_at      timestamptz NOT NULL,
  finished_at     timestamptz
);
-- A period run again is the same run (idempotent): one row per account, PSP account and period.
CREATE UNIQUE INDEX reconciliation_runs_period_idx
  ON reconciliation_runs (account_id, psp, COALESCE(psp_account_id, '00000000-0000-0000-0000-000000000000'::uuid), period_from, period_to);
CREATE INDEX reconciliation_runs_account_idx ON reconciliation_runs (account_id, started_at DESC);

CREATE TABLE reconciliation_mismatches (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id),
  -- The run that last found it.
  run_id          uuid NOT NULL REFERENCES reconciliation_runs (id),
  psp             text NOT NULL,
  psp_account_id  uuid REFERENCES psp_accounts (id),
  transaction_id  text NOT NULL,
  -- Chipin's payment (and purchase) of the transaction; null for one unknown to Chipin.
  payment_id      uuid REFERENCES payments (id),
  purchase_id     uuid REFERENCES purchases (id),
  kind            text NOT NULL CHECK (kind IN ('missing_at_psp', 'unknown_to_chipin', 'amount_differs', 'status_differs')),
  operation       text NOT NULL CHECK (operation IN ('transaction', 'capture', 'refund', 'chargeback')),
  chipin_cents    bigint,
  psp_cents       bigint,
  chipin_status   text,
  psp_status      text,
  currency        text NOT NULL,
  -- open → explained (staff wrote why) | resolved (staff, or a later run found it matching).
  state           text NOT NULL CHECK (state IN ('open', 'explained', 'resolved')),
  note            text,
  resolved_at     timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
-- One record per difference, whatever the number of runs that find it.
CREATE UNIQUE INDEX reconciliation_mismatches_key_idx
  ON reconciliation_mismatches (account_id, psp, COALESCE(psp_account_id, '00000000-0000-0000-0000-000000000000'::uuid), transaction_id, operation, kind);
-- The back office's list by state, newest first.
CREATE INDEX reconciliation_mismatches_state_idx ON reconciliation_mismatches (account_id, state, created_at DESC, id);

-- The transactions a run in progress compared from the PSP's list, so that its pass over Chipin's
-- payments (those the list did not show) skips them after a resume too. Emptied when the run completes.
CREATE TABLE reconciliation_run_items (
  run_id          uuid NOT NULL REFERENCES reconciliation_runs (id),
  transaction_id  text NOT NULL,
  PRIMARY KEY (run_id, transaction_id)
);
