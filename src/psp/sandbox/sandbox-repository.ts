import type { Sql } from '../../db/database.ts';
import type { CardSummary } from './cards.ts';
import type { SandboxDeclineCode, SandboxDisputeRow, SandboxDisputeStatus, SandboxStatus, TransactionRow } from './mapping.ts';

/** The sandbox PSP's tables (migration 003). Every function takes the handle to run on. */

/** The funding and country are told at tokenisation only (not stored). */
export interface PaymentMethodRow extends Omit<CardSummary, 'funding' | 'country'> {
  id: string;
}

export async function insertPaymentMethod(sql: Sql, id: string, card: CardSummary, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO sandbox_psp_payment_methods (id, behaviour, brand, last4, exp_month, exp_year, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, card.behaviour, card.brand, card.last4, card.expMonth, card.expYear, now],
  );
}

export async function findPaymentMethod(sql: Sql, id: string): Promise<PaymentMethodRow | undefined> {
  const { rows } = await sql.query<{ id: string; behaviour: CardSummary['behaviour']; brand: string; last4: string; exp_month: number; exp_year: number }>(
    'SELECT id, behaviour, brand, last4, exp_month, exp_year FROM sandbox_psp_payment_methods WHERE id = $1',
    [id],
  );
  const r = rows[0];
  return r && { id: r.id, behaviour: r.behaviour, brand: r.brand, last4: r.last4, expMonth: r.exp_month, expYear: r.exp_year };
}

const TX_COLUMNS = `id, payment_method_id, off_session, capture_mode, status, decline_code, amount_cents, currency,
  captured_cents, refunded_cents, return_url, challenge_token, expires_at, created_at, updated_at`;

export async function insertTransaction(sql: Sql, row: TransactionRow): Promise<void> {
  await sql.query(
    `INSERT INTO sandbox_psp_transactions (${TX_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      row.id,
      row.payment_method_id,
      row.off_session,
      row.capture_mode,
      row.status,
      row.decline_code,
      row.amount_cents,
      row.currency,
      row.captured_cents,
      row.refunded_cents,
      row.return_url,
      row.challenge_token,
      row.expires_at,
      row.created_at,
      row.updated_at,
    ],
  );
}

/** The transaction, locked until the end of the caller's transaction when `forUpdate`. */
export async function findTransaction(sql: Sql, id: string, forUpdate = false): Promise<TransactionRow | undefined> {
  const { rows } = await sql.query<TransactionRow>(`SELECT ${TX_COLUMNS} FROM sandbox_psp_transactions WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export interface TransactionChange {
  status: SandboxStatus;
  decline_code?: SandboxDeclineCode | null;
  captured_cents?: number;
  refunded_cents?: number;
  expires_at?: Date | null;
}

/** Applies `change` and returns the row as stored. */
export async function updateTransaction(sql: Sql, row: TransactionRow, change: TransactionChange, now: Date): Promise<TransactionRow> {
  const next: TransactionRow = { ...row, ...change, updated_at: now };
  await sql.query(
    `UPDATE sandbox_psp_transactions
        SET status = $2, decline_code = $3, captured_cents = $4, refunded_cents = $5, expires_at = $6, updated_at = $7
      WHERE id = $1`,
    [row.id, next.status, next.decline_code, next.captured_cents, next.refunded_cents, next.expires_at, now],
  );
  return next;
}

/**
 * Claims (operation, key) for this call. When another call claimed it first, answers what it
 * stored; on PostgreSQL a concurrent claimant waits here until the first one commits.
 */
export async function claimIdempotencyKey(
  sql: Sql,
  operation: string,
  key: string,
  fingerprint: string,
  now: Date,
): Promise<{ fresh: true } | { fresh: false; fingerprint: string; result: unknown }> {
  const inserted = await sql.query(
    `INSERT INTO sandbox_psp_idempotency (operation, idempotency_key, fingerprint, created_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
    [operation, key, fingerprint, now],
  );
  if (inserted.rows.length > 0) return { fresh: true };
  const { rows } = await sql.query<{ fingerprint: string; result: unknown }>(
    'SELECT fingerprint, result FROM sandbox_psp_idempotency WHERE operation = $1 AND idempotency_key = $2',
    [operation, key],
  );
  const row = rows[0];
  if (!row) throw new Error(`idempotency record ${operation}/${key} vanished`);
  return { fresh: false, fingerprint: row.fingerprint, result: row.result };
}

export async function storeIdempotentResult(sql: Sql, operation: string, key: string, result: unknown): Promise<void> {
  await sql.query('UPDATE sandbox_psp_idempotency SET result = $3::jsonb WHERE operation = $1 AND idempotency_key = $2', [operation, key, JSON.stringify(result)]);
}

/**
 * The transactions that moved in `[from, to)` (by `updated_at`), after `after` in (updated_at, id)
 * order, at most `limit`: the sandbox's list API (docs/money-operations.md#reconciliation).
 */
export async function listTransactionsMoved(
  sql: Sql,
  from: Date,
  to: Date,
  after: { updatedAt: Date; id: string } | null,
  limit: number,
): Promise<(TransactionRow & { charged_back_cents: number })[]> {
  const { rows } = await sql.query<TransactionRow & { charged_back_cents: number }>(
    `SELECT ${TX_COLUMNS}, charged_back_cents FROM sandbox_psp_transactions
      WHERE updated_at >= $1 AND updated_at < $2 AND ($3::timestamptz IS NULL OR (updated_at, id) > ($3::timestamptz, $4::text))
      ORDER BY updated_at, id LIMIT $5`,
    [from, to, after?.updatedAt ?? null, after?.id ?? '', limit],
  );
  return rows;
}

/** The sandbox's disputes (migration 038). */
export async function insertSandboxDispute(sql: Sql, row: SandboxDisputeRow): Promise<void> {
  await sql.query(
    `INSERT INTO sandbox_psp_disputes (id, transaction_id, kind, status, reason, amount_cents, currency, evidence_due_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.transaction_id, row.kind, row.status, row.reason, row.amount_cents, row.currency, row.evidence_due_at, row.created_at, row.updated_at],
  );
}

/** The dispute, locked until the end of the caller's transaction when `forUpdate`. */
export async function findSandboxDispute(sql: Sql, id: string, forUpdate = false): Promise<SandboxDisputeRow | undefined> {
  const { rows } = await sql.query<SandboxDisputeRow>(
    `SELECT id, transaction_id, kind, status, reason, amount_cents, currency, evidence_due_at, created_at, updated_at
       FROM sandbox_psp_disputes WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  const r = rows[0];
  return r && { ...r, amount_cents: Number(r.amount_cents) };
}

export async function setSandboxDisputeStatus(sql: Sql, id: string, status: SandboxDisputeStatus, now: Date): Promise<void> {
  await sql.query('UPDATE sandbox_psp_disputes SET status = $2, updated_at = $3 WHERE id = $1', [id, status, now]);
}

/**
 * A lost chargeback: the bank took `amountCents` of the transaction back from the merchant, at most
 * what the transaction still held after its refunds and earlier chargebacks
 * (docs/money-operations.md#refunds-and-disputes).
 */
export async function addChargedBack(sql: Sql, transactionId: string, amountCents: number, now: Date): Promise<void> {
  await sql.query(
    `UPDATE sandbox_psp_transactions SET charged_back_cents = charged_back_cents + LEAST($2::bigint, GREATEST(captured_cents - refunded_cents - charged_back_cents, 0)), updated_at = $3
      WHERE id = $1`,
    [transactionId, amountCents, now],
  );
}

/**
 * What the transaction's disputes hold from a refund: whether a chargeback awaits the bank's
 * decision (then nothing can be refunded), and what lost chargebacks took back.
 */
export async function disputeHold(sql: Sql, transactionId: string): Promise<{ openChargeback: boolean; chargedBackCents: number }> {
  const { rows } = await sql.query<{ open: boolean; charged_back_cents: number }>(
    `SELECT EXISTS (SELECT 1 FROM sandbox_psp_disputes WHERE transaction_id = t.id AND kind = 'chargeback' AND status = 'needs_response') AS open, t.charged_back_cents
       FROM sandbox_psp_transactions t WHERE t.id = $1`,
    [transactionId],
  );
  return { openChargeback: rows[0]?.open === true, chargedBackCents: Number(rows[0]?.charged_back_cents ?? 0) };
}
