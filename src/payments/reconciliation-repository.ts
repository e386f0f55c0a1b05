import type { Sql } from '../db/database.ts';
import type { Mismatch, MismatchKind, MismatchOperation, ReconStatus } from '../domain/reconciliation.ts';

/**
 * Reconciliation runs and mismatches (migration 036, docs/money-operations.md#reconciliation), and
 * Chipin's side of a run: the payments of an account on one PSP account, with what lost
 * chargebacks took back from each.
 */

const NIL = '00000000-0000-0000-0000-000000000000';

type RunState = 'running' | 'interrupted' | 'completed';
export type MismatchState = 'open' | 'explained' | 'resolved';

export interface RunRow {
  id: string;
  account_id: string;
  psp_account_id: string | null;
  psp: string;
  period_from: Date;
  period_to: Date;
  state: RunState;
  cursor: string | null;
  pages: number;
  matched_count: number;
  mismatch_count: number;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

const RUN_COLUMNS = 'id, account_id, psp_account_id, psp, period_from, period_to, state, cursor, pages, matched_count, mismatch_count, error, started_at, finished_at';

/**
 * The run of (account, PSP, PSP account, period), created or taken up again: a completed run starts
 * over (its figures reset, the same row), an interrupted or running one keeps its cursor.
 */
export async function claimRun(tx: Sql, r: { id: string; accountId: string; pspAccountId: string | null; psp: string; from: Date; to: Date; now: Date }): Promise<RunRow> {
  const { rows } = await tx.query<RunRow>(
    `INSERT INTO reconciliation_runs (id, account_id, psp_account_id, psp, period_from, period_to, state, started_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'running', $7)
     ON CONFLICT (account_id, psp, COALESCE(psp_account_id, '${NIL}'::uuid), period_from, period_to) DO UPDATE
       SET state = 'running', error = NULL, finished_at = NULL,
           cursor = CASE WHEN reconciliation_runs.state = 'completed' THEN NULL ELSE reconciliation_runs.cursor END,
           pages = CASE WHEN reconciliation_runs.state = 'completed' THEN 0 ELSE reconciliation_runs.pages END,
           matched_count = CASE WHEN reconciliation_runs.state = 'completed' THEN 0 ELSE reconciliation_runs.matched_count END,
           mismatch_count = CASE WHEN reconciliation_runs.state = 'completed' THEN 0 ELSE reconciliation_runs.mismatch_count END,
           started_at = CASE WHEN reconciliation_runs.state = 'completed' THEN $7 ELSE reconciliation_runs.started_at END
     RETURNING ${RUN_COLUMNS}`,
    [r.id, r.accountId, r.pspAccountId, r.psp, r.from, r.to, r.now],
  );
  return rows[0]!;
}

/** Records a page: the cursor after it, its figures, and the run's new state. */
export async function advanceRun(
  tx: Sql,
  accountId: string,
  runId: string,
  page: { cursor: string | null; matched: number; mismatches: number; completed: boolean; now: Date },
): Promise<void> {
  await tx.query(
    `UPDATE reconciliation_runs
        SET cursor = $3, pages = pages + 1, matched_count = matched_count + $4, mismatch_count = mismatch_count + $5,
            state = CASE WHEN $6::boolean THEN 'completed' ELSE state END,
            finished_at = CASE WHEN $6::boolean THEN $7::timestamptz ELSE finished_at END
      WHERE account_id = $1 AND id = $2`,
    [accountId, runId, page.cursor, page.matched, page.mismatches, page.completed, page.now],
  );
  if (page.completed) await tx.query('DELETE FROM reconciliation_run_items WHERE run_id = $1', [runId]);
}

/** A PSP fault stopped the run: it keeps its cursor for the next attempt. */
export async function interruptRun(sql: Sql, accountId: string, runId: string, error: string, now: Date): Promise<void> {
  await sql.query(`UPDATE reconciliation_runs SET state = 'interrupted', error = $3, finished_at = $4 WHERE account_id = $1 AND id = $2`, [
    accountId,
    runId,
    error.slice(0, 1000),
    now,
  ]);
}

export async function findRun(sql: Sql, accountId: string, runId: string): Promise<RunRow | undefined> {
  const { rows } = await sql.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM reconciliation_runs WHERE account_id = $1 AND id = $2`, [accountId, runId]);
  return rows[0];
}

/** The account's runs, newest first, after `before` (started_at, id) when given. */
export async function listRuns(sql: Sql, accountId: string, limit: number, before: { startedAt: Date; id: string } | null): Promise<RunRow[]> {
  const { rows } = await sql.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM reconciliation_runs
      WHERE account_id = $1 AND ($2::timestamptz IS NULL OR (started_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY started_at DESC, id DESC LIMIT $4`,
    [accountId, before?.startedAt ?? null, before?.id ?? NIL, limit],
  );
  return rows;
}

/** Chipin's side of one transaction. */
export interface ChipinPaymentRow {
  payment_id: string;
  purchase_id: string;
  purchase_state: string;
  transaction_id: string;
  status: ReconStatus;
  currency: string;
  captured_cents: number;
  refunded_cents: number;
  charged_back_cents: number;
  psp_state: unknown;
}

const PAYMENT_SELECT = `
  SELECT p.id AS payment_id, p.purchase_id, pu.state AS purchase_state, p.psp_transaction_id AS transaction_id, p.status,
         pu.currency, p.captured_cents, p.refunded_cents, p.psp_state,
         LEAST(COALESCE((SELECT sum(d.amount_cents) FROM disputes d
                          WHERE d.account_id = p.account_id AND d.payment_id = p.id AND d.kind = 'chargeback' AND d.state = 'lost'), 0),
               GREATEST(p.captured_cents - p.refunded_cents, 0))::bigint AS charged_back_cents
    FROM payments p JOIN purchases pu ON pu.account_id = p.account_id AND pu.id = p.purchase_id`;

/** The account's payments on that PSP (account) whose transaction is one of `transactionIds`. */
export async function paymentsByTransactions(
  sql: Sql,
  accountId: string,
  psp: string,
  pspAccountId: string | null,
  transactionIds: readonly string[],
): Promise<ChipinPaymentRow[]> {
  if (transactionIds.length === 0) return [];
  const { rows } = await sql.query<ChipinPaymentRow>(
    `${PAYMENT_SELECT}
      WHERE p.account_id = $1 AND p.psp = $2 AND p.psp_account_id IS NOT DISTINCT FROM $3::uuid AND p.psp_transaction_id = ANY($4::text[])`,
    [accountId, psp, pspAccountId, transactionIds],
  );
  return rows;
}

/**
 * The account's payments on that PSP (account) touched in `[from, to)` that this run has not
 * compared yet (not in its items), after payment id `after`, at most `limit`, by id.
 */
export async function paymentsTouched(
  sql: Sql,
  q: { accountId: string; psp: string; pspAccountId: string | null; from: Date; to: Date; runId: string; after: string | null; limit: number },
): Promise<ChipinPaymentRow[]> {
  const { rows } = await sql.query<ChipinPaymentRow>(
    `${PAYMENT_SELECT}
      WHERE p.account_id = $1 AND p.psp = $2 AND p.psp_account_id IS NOT DISTINCT FROM $3::uuid
        AND p.updated_at >= $4 AND p.updated_at < $5 AND p.psp_transaction_id IS NOT NULL
        AND ($7::uuid IS NULL OR p.id > $7::uuid)
        AND NOT EXISTS (SELECT 1 FROM reconciliation_run_items i WHERE i.run_id = $6 AND i.transaction_id = p.psp_transaction_id)
      ORDER BY p.id LIMIT $8`,
    [q.accountId, q.psp, q.pspAccountId, q.from, q.to, q.runId, q.after, q.limit],
    // Unprepared: the best plan depends on the period and the cursor (docs/performance.md#keyset-lists-run-unprepared).
    { prepare: false },
  );
  return rows;
}

/** Notes the transactions a page of the PSP's list compared (the payments' pass then skips them). */
export async function addRunItems(tx: Sql, runId: string, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  await tx.query('INSERT INTO reconciliation_run_items (run_id, transaction_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [runId, transactionIds]);
}

export interface NewMismatch extends Mismatch {
  paymentId: string | null;
  purchaseId: string | null;
}

/**
 * Records the mismatches of a page (one row per difference: found again, it is updated; a resolved
 * one found again opens again). Returns those recorded for the first time.
 */
export async function upsertMismatches(
  tx: Sql,
  run: { id: string; accountId: string; psp: string; pspAccountId: string | null },
  mismatches: readonly NewMismatch[],
  newId: () => string,
  now: Date,
): Promise<{ id: string; mismatch: NewMismatch }[]> {
  const created: { id: string; mismatch: NewMismatch }[] = [];
  for (const m of mismatches) {
    const { rows } = await tx.query<{ id: string; inserted: boolean }>(
      `INSERT INTO reconciliation_mismatches (id, account_id, run_id, psp, psp_account_id, transaction_id, payment_id, purchase_id, kind, operation,
                                              chipin_cents, psp_cents, chipin_status, psp_status, currency, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'open', $16, $16)
       ON CONFLICT (account_id, psp, COALESCE(psp_account_id, '${NIL}'::uuid), transaction_id, operation, kind) DO UPDATE
         SET run_id = EXCLUDED.run_id, chipin_cents = EXCLUDED.chipin_cents, psp_cents = EXCLUDED.psp_cents,
             chipin_status = EXCLUDED.chipin_status, psp_status = EXCLUDED.psp_status, updated_at = EXCLUDED.updated_at,
             payment_id = COALESCE(EXCLUDED.payment_id, reconciliation_mismatches.payment_id),
             purchase_id = COALESCE(EXCLUDED.purchase_id, reconciliation_mismatches.purchase_id),
             state = CASE WHEN reconciliation_mismatches.state = 'resolved' THEN 'open' ELSE reconciliation_mismatches.state END,
             resolved_at = CASE WHEN reconciliation_mismatches.state = 'resolved' THEN NULL ELSE reconciliation_mismatches.resolved_at END
       RETURNING id, (xmax = 0) AS inserted`,
      [
        newId(),
        run.accountId,
        run.id,
        run.psp,
        run.pspAccountId,
        m.transactionId,
        m.paymentId,
        m.purchaseId,
        m.kind,
        m.operation,
        m.chipinCents,
        m.pspCents,
        m.chipinStatus,
        m.pspStatus,
        m.currency,
        now,
      ],
    );
    const row = rows[0]!;
    if (row.inserted) created.push({ id: row.id, mismatch: m });
  }
  return created;
}

/**
 * The open mismatches of the compared transactions that this run no longer finds: resolved.
 * `found` holds the keys `transaction/operation/kind` still found.
 */
export async function resolveMatched(
  tx: Sql,
  run: { accountId: string; psp: string; pspAccountId: string | null },
  transactionIds: readonly string[],
  found: readonly string[],
  now: Date,
): Promise<void> {
  if (transactionIds.length === 0) return;
  await tx.query(
    `UPDATE reconciliation_mismatches SET state = 'resolved', resolved_at = $6, updated_at = $6,
            note = COALESCE(note, 'matched by a later run')
      WHERE account_id = $1 AND psp = $2 AND psp_account_id IS NOT DISTINCT FROM $3::uuid AND state = 'open'
        AND transaction_id = ANY($4::text[]) AND (transaction_id || '/' || operation || '/' || kind) <> ALL($5::text[])`,
    [run.accountId, run.psp, run.pspAccountId, transactionIds, found, now],
  );
}

export interface MismatchRow {
  id: string;
  run_id: string;
  psp: string;
  psp_account_id: string | null;
  transaction_id: string;
  payment_id: string | null;
  purchase_id: string | null;
  kind: MismatchKind;
  operation: MismatchOperation;
  chipin_cents: number | null;
  psp_cents: number | null;
  chipin_status: string | null;
  psp_status: string | null;
  currency: string;
  state: MismatchState;
  note: string | null;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const MISMATCH_COLUMNS = `id, run_id, psp, psp_account_id, transaction_id, payment_id, purchase_id, kind, operation, chipin_cents, psp_cents,
  chipin_status, psp_status, currency, state, note, resolved_at, created_at, updated_at`;

/** The account's mismatches (of one state when given), newest first, after `before` (created_at, id). */
export async function listMismatches(
  sql: Sql,
  accountId: string,
  state: MismatchState | null,
  limit: number,
  before: { createdAt: Date; id: string } | null,
): Promise<MismatchRow[]> {
  const { rows } = await sql.query<MismatchRow>(
    `SELECT ${MISMATCH_COLUMNS} FROM reconciliation_mismatches
      WHERE account_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $5`,
    [accountId, state, before?.createdAt ?? null, before?.id ?? NIL, limit],
  );
  return rows;
}

/** Staff explain or resolve a mismatch; undefined when the account has no such mismatch. */
export async function setMismatchState(tx: Sql, accountId: string, id: string, state: 'explained' | 'resolved', note: string | null, now: Date): Promise<MismatchRow | undefined> {
  const { rows } = await tx.query<MismatchRow>(
    `UPDATE reconciliation_mismatches
        SET state = $3, note = COALESCE($4, note), updated_at = $5, resolved_at = CASE WHEN $3 = 'resolved' THEN $5::timestamptz ELSE NULL END
      WHERE account_id = $1 AND id = $2
      RETURNING ${MISMATCH_COLUMNS}`,
    [accountId, id, state, note, now],
  );
  return rows[0];
}

/** The PSP (accounts) the account's payments used in `[from, to)`: what its daily run covers. */
export async function pspsInUse(sql: Sql, accountId: string, from: Date, to: Date): Promise<{ psp: string; psp_account_id: string | null }[]> {
  const { rows } = await sql.query<{ psp: string; psp_account_id: string | null }>(
    `SELECT DISTINCT psp, psp_account_id FROM payments
      WHERE account_id = $1 AND updated_at >= $2 AND updated_at < $3 AND psp_transaction_id IS NOT NULL`,
    [accountId, from, to],
  );
  return rows;
}

/** Whether the run of that period has completed. */
export async function runCompleted(sql: Sql, accountId: string, psp: string, pspAccountId: string | null, from: Date, to: Date): Promise<boolean> {
  const { rows } = await sql.query(
    `SELECT 1 FROM reconciliation_runs
      WHERE account_id = $1 AND psp = $2 AND psp_account_id IS NOT DISTINCT FROM $3::uuid AND period_from = $4 AND period_to = $5 AND state = 'completed'`,
    [accountId, psp, pspAccountId, from, to],
  );
  return rows.length > 0;
}

/**
 * Service-wide, for the daily job: every (account, PSP, PSP account) whose payments moved since
 * `since`, with the account's time zone.
 */
export async function recentPspUse(sql: Sql, since: Date): Promise<{ account_id: string; time_zone: string; psp: string; psp_account_id: string | null }[]> {
  const { rows } = await sql.query<{ account_id: string; time_zone: string; psp: string; psp_account_id: string | null }>(
    `SELECT DISTINCT p.account_id, a.time_zone, p.psp, p.psp_account_id
       FROM payments p JOIN accounts a ON a.id = p.account_id
      WHERE p.updated_at >= $1 AND p.psp_transaction_id IS NOT NULL`,
    [since],
  );
  return rows;
}
