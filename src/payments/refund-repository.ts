import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import type { Allocation, RefundSource, UncollectedInstallment } from '../domain/refund-allocation.ts';
import { newUuid } from '../domain/ids.ts';

/**
 * The refunds aggregate: `refunds` (one per merchant request) and `refund_allocations` (how each
 * is split over payments and installments), plus the reads the allocation needs.
 */

export type RefundState = 'pending' | 'succeeded' | 'failed';

/**
 * `refund`: paid back on a captured payment; `installment`: an installment not collected yet
 * lowered; `transfer`: paid back by the operator's bank transfer, on a purchase the shopper paid by
 * transfer (docs/money-operations.md#refunds-by-transfer).
 */
type AllocationKind = 'refund' | 'installment' | 'transfer';

/** The part of a refund given back by bank transfer: no payment, no installment. */
export interface TransferAllocation {
  kind: 'transfer';
  payer: 'leader';
  amountCents: number;
}

export interface RefundAllocationRow {
  id: string;
  position: number;
  kind: AllocationKind;
  paymentId: string | null;
  installmentId: string | null;
  payer: 'leader' | 'pledger';
  pledgeId: string | null;
  amountCents: number;
  state: RefundState;
  idempotencyKey: string | null;
  failureReason: string | null;
}

export interface Refund {
  id: string;
  accountId: string;
  purchaseId: string;
  amountCents: number;
  reason: string | null;
  state: RefundState;
  failureReason: string | null;
  createdAt: Date;
  allocations: RefundAllocationRow[];
}

type RefundRow = RowType<
  'refunds',
  {
    id: string;
    account_id: string;
    purchase_id: string;
    amount_cents: number;
    reason: string | null;
    state: RefundState;
    failure_reason: string | null;
    created_at: Date;
  }
>;

type AllocationRow = RowType<
  'refund_allocations',
  {
    id: string;
    refund_id: string;
    position: number;
    kind: AllocationKind;
    payment_id: string | null;
    installment_id: string | null;
    payer: 'leader' | 'pledger';
    pledge_id: string | null;
    amount_cents: number;
    state: RefundState;
    idempotency_key: string | null;
    failure_reason: string | null;
  }
>;

function toAllocation(r: AllocationRow): RefundAllocationRow {
  return {
    id: r.id,
    position: r.position,
    kind: r.kind,
    paymentId: r.payment_id,
    installmentId: r.installment_id,
    payer: r.payer,
    pledgeId: r.pledge_id,
    amountCents: r.amount_cents,
    state: r.state,
    idempotencyKey: r.idempotency_key,
    failureReason: r.failure_reason,
  };
}

function toRefund(r: RefundRow, allocations: AllocationRow[]): Refund {
  return {
    id: r.id,
    accountId: r.account_id,
    purchaseId: r.purchase_id,
    amountCents: r.amount_cents,
    reason: r.reason,
    state: r.state,
    failureReason: r.failure_reason,
    createdAt: r.created_at,
    allocations: allocations.filter((a) => a.refund_id === r.id).map(toAllocation),
  };
}

/**
 * The captured payments of a purchase, oldest first, each with what was given back on it
 * (docs/money-operations.md#refunds-and-disputes): refunded — every allocation not refused
 * (pending ones included, so that a refund whose PSP call is under way already counts), or what
 * the PSP refunded when that is more (money given back outside any refund, a friend's share taken
 * after the pot closed); charged back — the amounts of its lost chargebacks; and whether a
 * chargeback is open on it. What is left to refund is the domain's rule
 * (`sourceRefundableCents`, src/domain/refund-allocation.ts). Call under the purchase's row lock.
 */
export async function refundSources(sql: Sql, accountId: string, purchaseId: string): Promise<(RefundSource & { psp: string })[]> {
  const { rows } = await sql.query<{ id: string; pledge_id: string | null; psp: string; captured_cents: number; refunded: number; charged_back: number; chargeback_open: boolean }>(
    `SELECT p.id, p.pledge_id, p.psp, p.captured_cents,
       GREATEST(p.refunded_cents, COALESCE((SELECT sum(a.amount_cents) FROM refund_allocations a
          WHERE a.account_id = p.account_id AND a.payment_id = p.id AND a.kind = 'refund' AND a.state <> 'failed'), 0))::bigint AS refunded,
       COALESCE(d.charged_back, 0)::bigint AS charged_back, COALESCE(d.chargeback_open, false) AS chargeback_open
     FROM payments p
     LEFT JOIN LATERAL (SELECT sum(amount_cents) FILTER (WHERE state = 'lost') AS charged_back,
                               bool_or(state IN ('open', 'evidence_sent')) AS chargeback_open
                          FROM disputes WHERE account_id = p.account_id AND payment_id = p.id AND kind = 'chargeback') d ON true
     WHERE p.account_id = $1 AND p.purchase_id = $2 AND p.captured_cents > 0
     ORDER BY p.created_at, p.id`,
    [accountId, purchaseId],
  );
  return rows.map((r) => ({
    paymentId: r.id,
    payer: r.pledge_id ? 'pledger' : 'leader',
    ...(r.pledge_id ? { pledgeId: r.pledge_id } : {}),
    capturedCents: Number(r.captured_cents),
    refundedCents: Number(r.refunded),
    chargedBackCents: Number(r.charged_back),
    chargebackOpen: r.chargeback_open === true,
    // The connector the payment ran on: what it can give back as it is (src/psp/definition.ts).
    psp: r.psp,
  }));
}

/**
 * Installments still to collect, with what is due on each and, for a deferred payment, the hold
 * that will be captured (only while it is still authorised).
 */
export async function uncollectedInstallments(sql: Sql, accountId: string, purchaseId: string): Promise<UncollectedInstallment[]> {
  const { rows } = await sql.query<{ id: string; index: number; due: number; hold_id: string | null }>(
    `SELECT i.id, i.index, (i.amount_cents + i.fees_cents)::bigint AS due, h.id AS hold_id
     FROM installments i
     LEFT JOIN payments h ON h.account_id = i.account_id AND h.id = i.payment_id AND h.status = 'authorized'
     WHERE i.account_id = $1 AND i.purchase_id = $2 AND i.state = 'scheduled'
     ORDER BY i.index`,
    [accountId, purchaseId],
  );
  return rows.map((r) => ({ installmentId: r.id, index: r.index, dueCents: Number(r.due), ...(r.hold_id ? { holdPaymentId: r.hold_id } : {}) }));
}

/**
 * Lowers what an installment not collected yet will charge by `byCents` (its amount first, then
 * its fees); lowered to nothing, it is cancelled and will never be charged.
 */
export async function lowerInstallment(sql: Sql, accountId: string, installmentId: string, byCents: number): Promise<void> {
  await sql.query(
    `UPDATE installments SET
       fees_cents = fees_cents - GREATEST(0, $3 - amount_cents),
       amount_cents = GREATEST(0, amount_cents - $3),
       state = CASE WHEN amount_cents + fees_cents <= $3 THEN 'cancelled' ELSE state END
     WHERE account_id = $1 AND id = $2 AND state = 'scheduled' AND amount_cents + fees_cents >= $3`,
    [accountId, installmentId, byCents],
  );
}

/** Cancels every installment still to collect (the purchase was cancelled or fully refunded). */
export async function cancelScheduledInstallments(sql: Sql, accountId: string, purchaseId: string): Promise<void> {
  await sql.query("UPDATE installments SET state = 'cancelled' WHERE account_id = $1 AND purchase_id = $2 AND state = 'scheduled'", [accountId, purchaseId]);
}

/** Stores a refund and its allocations, in the caller's (locking) transaction. */
export async function insertRefund(
  sql: Sql,
  r: { id: string; accountId: string; purchaseId: string; amountCents: number; reason: string | undefined; state: RefundState; requestKey?: string | undefined },
  allocations: readonly ((Allocation | TransferAllocation) & { state: RefundState; idempotencyKey: string | null })[],
  now: Date,
): Promise<void> {
  await sql.query(
    `INSERT INTO refunds (id, account_id, purchase_id, amount_cents, reason, state, created_at, updated_at, request_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
    [r.id, r.accountId, r.purchaseId, r.amountCents, r.reason ?? null, r.state, now, r.requestKey ?? null],
  );
  let position = 0;
  for (const a of allocations) {
    await sql.query(
      `INSERT INTO refund_allocations (id, account_id, refund_id, purchase_id, position, kind, payment_id, installment_id, payer, pledge_id,
         amount_cents, state, idempotency_key, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)`,
      [
        newUuid(),
        r.accountId,
        r.id,
        r.purchaseId,
        position++,
        a.kind,
        a.kind === 'transfer' ? null : (a.paymentId ?? null),
        a.kind === 'installment' ? a.installmentId : null,
        a.payer,
        a.kind === 'refund' ? (a.pledgeId ?? null) : null,
        a.amountCents,
        a.state,
        a.idempotencyKey,
        now,
      ],
    );
  }
}

/** Settles a pending allocation; answers false when it was settled already (by a concurrent run). */
export async function settleAllocation(
  sql: Sql,
  accountId: string,
  allocationId: string,
  state: 'succeeded' | 'failed',
  failureReason: string | null,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await sql.query("UPDATE refund_allocations SET state = $3, failure_reason = $4, updated_at = $5 WHERE account_id = $1 AND id = $2 AND state = 'pending'", [
    accountId,
    allocationId,
    state,
    failureReason,
    now,
  ]);
  return rowCount > 0;
}

export async function setRefundState(sql: Sql, accountId: string, refundId: string, state: RefundState, failureReason: string | null, now: Date): Promise<void> {
  await sql.query('UPDATE refunds SET state = $3, failure_reason = $4, updated_at = $5 WHERE account_id = $1 AND id = $2', [accountId, refundId, state, failureReason, now]);
}

export async function findRefund(sql: Sql, accountId: string, refundId: string): Promise<Refund | undefined> {
  const { rows } = await sql.query<RefundRow>('SELECT * FROM refunds WHERE account_id = $1 AND id = $2', [accountId, refundId]);
  if (!rows[0]) return undefined;
  const { rows: allocations } = await sql.query<AllocationRow>('SELECT * FROM refund_allocations WHERE account_id = $1 AND refund_id = $2 ORDER BY position', [
    accountId,
    refundId,
  ]);
  return toRefund(rows[0], allocations);
}

/**
 * The refund of the purchase that a request with this request key created, if one was committed
 * (the key of an Idempotency-Key request: `requestKey` in src/http/idempotency.ts).
 */
export async function findRefundIdByRequestKey(sql: Sql, accountId: string, purchaseId: string, requestKey: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM refunds WHERE account_id = $1 AND request_key = $2 AND purchase_id = $3', [accountId, requestKey, purchaseId]);
  return rows[0]?.id;
}

/** A purchase's refunds, oldest first, with their allocations. */
export async function listRefunds(sql: Sql, accountId: string, purchaseId: string): Promise<Refund[]> {
  const { rows } = await sql.query<RefundRow>('SELECT * FROM refunds WHERE account_id = $1 AND purchase_id = $2 ORDER BY created_at, id', [accountId, purchaseId]);
  if (rows.length === 0) return [];
  const { rows: allocations } = await sql.query<AllocationRow>('SELECT * FROM refund_allocations WHERE account_id = $1 AND purchase_id = $2 ORDER BY refund_id, position', [
    accountId,
    purchaseId,
  ]);
  return rows.map((r) => toRefund(r, allocations));
}

/** Whether another refund allocation of this payment is still waiting for the PSP (its refund may be the one the PSP shows). */
export async function otherPendingRefund(sql: Sql, accountId: string, paymentId: string, allocationId: string): Promise<boolean> {
  const { rows } = await sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM refund_allocations WHERE account_id = $1 AND payment_id = $2 AND id <> $3 AND kind = 'refund' AND state = 'pending'",
    [accountId, paymentId, allocationId],
  );
  return rows[0]!.n > 0;
}

/** Whether a refund of the purchase still has allocations awaiting their PSP answer (a refund not finished). */
export async function pendingRefundOf(sql: Sql, accountId: string, purchaseId: string): Promise<boolean> {
  const { rows } = await sql.query("SELECT 1 FROM refund_allocations WHERE account_id = $1 AND purchase_id = $2 AND state = 'pending' LIMIT 1", [accountId, purchaseId]);
  return rows.length > 0;
}

/** Whether any payment of the purchase captured money (then it is refunded, not cancelled). */
export async function anyCaptured(sql: Sql, accountId: string, purchaseId: string): Promise<boolean> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE account_id = $1 AND purchase_id = $2 AND captured_cents > 0', [
    accountId,
    purchaseId,
  ]);
  return rows[0]!.n > 0;
}

/** The purchase's payments holding an authorisation (a guarantee, a deferred hold): voided on cancel. */
export async function heldPaymentIds(sql: Sql, accountId: string, purchaseId: string): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    "SELECT id FROM payments WHERE account_id = $1 AND purchase_id = $2 AND status = 'authorized' AND psp_transaction_id IS NOT NULL ORDER BY created_at, id",
    [accountId, purchaseId],
  );
  return rows.map((r) => r.id);
}

/** What the purchase's refunds gave back so far (succeeded allocations). */
export async function refundedSoFar(sql: Sql, accountId: string, purchaseId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    "SELECT COALESCE(sum(amount_cents), 0)::bigint AS n FROM refund_allocations WHERE account_id = $1 AND purchase_id = $2 AND state = 'succeeded'",
    [accountId, purchaseId],
  );
  return Number(rows[0]!.n);
}

/** The purchase's refund allocations still pending, and how many installments its plan has. */
export async function pendingAllocationsAndInstallments(sql: Sql, accountId: string, purchaseId: string): Promise<{ pending: number; installments: number }> {
  const { rows } = await sql.query<{ pending: number; installments: number }>(
    `SELECT (SELECT count(*)::int FROM refund_allocations WHERE account_id = $1 AND purchase_id = $2 AND state = 'pending') AS pending,
            (SELECT count(*)::int FROM installments WHERE account_id = $1 AND purchase_id = $2) AS installments`,
    [accountId, purchaseId],
  );
  return rows[0]!;
}
