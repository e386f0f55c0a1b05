import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import type { PlannedInstallment } from '../domain/leader-plan.ts';

/** The installments of an INSTALLMENTS or DEFERRED purchase (a deferred payment is a plan of one). */

export interface Installment {
  id: string;
  accountId: string;
  purchaseId: string;
  index: number;
  /** 'yyyy-mm-dd' or the Date the driver returns for a `date` column. */
  dueDate: string | Date;
  amountCents: number;
  feesCents: number;
  /** `cancelled`: lowered to nothing by a refund, or dropped when the purchase was cancelled. */
  state: 'scheduled' | 'paid' | 'failed' | 'cancelled';
  attempts: number;
  paymentId: string | null;
  /** The shopper's payment (pay now, early repayment) that pays or paid it from their space. */
  shopperPaymentId: string | null;
}

type InstallmentRow = RowType<
  'installments',
  {
    id: string;
    account_id: string;
    purchase_id: string;
    index: number;
    due_date: string | Date;
    amount_cents: number;
    fees_cents: number;
    state: Installment['state'];
    attempts: number;
    payment_id: string | null;
    shopper_payment_id: string | null;
  }
>;

function toInstallment(r: InstallmentRow): Installment {
  return {
    id: r.id,
    accountId: r.account_id,
    purchaseId: r.purchase_id,
    index: r.index,
    dueDate: r.due_date,
    amountCents: r.amount_cents,
    feesCents: r.fees_cents,
    state: r.state,
    attempts: r.attempts,
    paymentId: r.payment_id,
    shopperPaymentId: r.shopper_payment_id,
  };
}

/**
 * Stores the plan at the leader's payment: the first line is already paid (INSTALLMENTS) or held
 * by `paymentId` (DEFERRED). Idempotent per (purchase, index).
 */
export async function insertPlan(
  sql: Sql,
  accountId: string,
  purchaseId: string,
  lines: readonly PlannedInstallment[],
  first: { paid: boolean; paymentId: string; heldByPayment: boolean },
  now: Date,
): Promise<void> {
  for (const line of lines) {
    const paid = line.index === 0 && first.paid;
    await sql.query(
      `INSERT INTO installments (id, account_id, purchase_id, index, due_date, amount_cents, fees_cents, state, payment_id, paid_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (purchase_id, index) DO NOTHING`,
      [
        accountId,
        purchaseId,
        line.index,
        line.dueDate,
        line.amountCents,
        line.feesCents,
        paid ? 'paid' : 'scheduled',
        paid || first.heldByPayment ? first.paymentId : null,
        paid ? now : null,
      ],
    );
  }
}

/** The installments still to collect, in order. */
export async function scheduledInstallments(sql: Sql, accountId: string, purchaseId: string): Promise<Installment[]> {
  const { rows } = await sql.query<InstallmentRow>("SELECT * FROM installments WHERE account_id = $1 AND purchase_id = $2 AND state = 'scheduled' ORDER BY index", [
    accountId,
    purchaseId,
  ]);
  return rows.map(toInstallment);
}

export async function findInstallment(sql: Sql, accountId: string, id: string, lock = false): Promise<Installment | undefined> {
  const { rows } = await sql.query<InstallmentRow>(`SELECT * FROM installments WHERE account_id = $1 AND id = $2 ${lock ? 'FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] && toInstallment(rows[0]);
}

/**
 * How many installments the purchase has, and how many are paid. Installments a refund
 * cancelled are not counted: the last one collected then completes the purchase.
 */
export async function installmentCounts(sql: Sql, accountId: string, purchaseId: string): Promise<{ total: number; paid: number }> {
  const { rows } = await sql.query<{ n: number; paid: number }>(
    "SELECT count(*) FILTER (WHERE state <> 'cancelled') AS n, count(*) FILTER (WHERE state = 'paid') AS paid FROM installments WHERE account_id = $1 AND purchase_id = $2",
    [accountId, purchaseId],
  );
  return { total: rows[0]!.n, paid: rows[0]!.paid };
}

export async function markInstallmentPaid(sql: Sql, i: Pick<Installment, 'accountId' | 'id'>, attempts: number, paymentId: string, now: Date): Promise<void> {
  await sql.query("UPDATE installments SET state = 'paid', attempts = $3, payment_id = $4, paid_at = $5 WHERE account_id = $1 AND id = $2", [
    i.accountId,
    i.id,
    attempts,
    paymentId,
    now,
  ]);
}

/** A refused attempt: counted, and with `failed` the installment is given up (dunning exhausted). */
export async function markInstallmentRefused(sql: Sql, i: Pick<Installment, 'accountId' | 'id'>, attempts: number, failed: boolean): Promise<void> {
  await sql.query(`UPDATE installments SET attempts = $3${failed ? ", state = 'failed'" : ''} WHERE account_id = $1 AND id = $2`, [i.accountId, i.id, attempts]);
}

/** The deferred purchase's single installment, for `trigger_capture`. */
export async function deferredInstallmentId(sql: Sql, accountId: string, purchaseId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM installments WHERE account_id = $1 AND purchase_id = $2 AND index = 0', [accountId, purchaseId]);
  return rows[0]?.id;
}

/** The plan's installments not cancelled, in order: due date ('yyyy-mm-dd'), amount with fees, state, and the collection attempts refused so far. */
export async function planLines(
  sql: Sql,
  accountId: string,
  purchaseId: string,
): Promise<{ id: string; index: number; dueDate: string; amountCents: number; state: string; attempts: number }[]> {
  const { rows } = await sql.query<{ id: string; index: number; due_date: string | Date; amount_cents: number; fees_cents: number; state: string; attempts: number }>(
    "SELECT id, index, due_date, amount_cents, fees_cents, state, attempts FROM installments WHERE account_id = $1 AND purchase_id = $2 AND state <> 'cancelled' ORDER BY index",
    [accountId, purchaseId],
  );
  return rows.map((r) => ({ id: r.id, index: r.index, dueDate: isoDay(r.due_date), amountCents: r.amount_cents + r.fees_cents, state: r.state, attempts: r.attempts }));
}

/** The installment's purchase and how many collection attempts it had (the pre-charge notice's check). */
export async function installmentAttempts(sql: Sql, accountId: string, id: string): Promise<{ purchaseId: string; attempts: number } | undefined> {
  const { rows } = await sql.query<{ purchase_id: string; attempts: number }>('SELECT purchase_id, attempts FROM installments WHERE account_id = $1 AND id = $2', [accountId, id]);
  const row = rows[0];
  return row && { purchaseId: row.purchase_id, attempts: row.attempts };
}

/** 'yyyy-mm-dd' from a `date` column, whatever the driver answers. */
function isoDay(d: string | Date): string {
  return typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10);
}

/** Every installment of the purchase, cancelled ones included, in order (the back office's purchase page). */
export async function purchaseInstallmentRows(
  sql: Sql,
  accountId: string,
  purchaseId: string,
): Promise<{ index: number; due_date: string | Date; amount_cents: number; fees_cents: number; state: string }[]> {
  const { rows } = await sql.query<{ index: number; due_date: string | Date; amount_cents: number; fees_cents: number; state: string }>(
    'SELECT index, due_date, amount_cents, fees_cents, state FROM installments WHERE account_id = $1 AND purchase_id = $2 ORDER BY index',
    [accountId, purchaseId],
  );
  return rows;
}

/** The installments still to collect, in order, locked until the caller's transaction ends (the shopper's payment reserves them). */
export async function lockScheduledInstallments(tx: Sql, accountId: string, purchaseId: string): Promise<Installment[]> {
  const { rows } = await tx.query<InstallmentRow>("SELECT * FROM installments WHERE account_id = $1 AND purchase_id = $2 AND state = 'scheduled' ORDER BY index FOR UPDATE", [
    accountId,
    purchaseId,
  ]);
  return rows.map(toInstallment);
}

/** Names the shopper's payment that is about to pay these installments (before the PSP call). */
export async function setShopperPayment(tx: Sql, accountId: string, installmentIds: readonly string[], paymentId: string): Promise<void> {
  await tx.query('UPDATE installments SET shopper_payment_id = $3 WHERE account_id = $1 AND id = ANY($2::uuid[])', [accountId, installmentIds, paymentId]);
}

/** The installments a shopper's payment was reserved for, in order, locked. */
export async function lockShopperPaymentInstallments(tx: Sql, accountId: string, paymentId: string): Promise<Installment[]> {
  const { rows } = await tx.query<InstallmentRow>('SELECT * FROM installments WHERE account_id = $1 AND shopper_payment_id = $2 ORDER BY index FOR UPDATE', [accountId, paymentId]);
  return rows.map(toInstallment);
}

/**
 * Paid by the shopper's payment. `waiveFees`: an early repayment, which charges the principal
 * only (docs/schedules.md#repaying-early), so the installment's fees become 0.
 */
export async function markInstallmentPaidByShopper(tx: Sql, i: Pick<Installment, 'accountId' | 'id'>, paymentId: string, waiveFees: boolean, now: Date): Promise<void> {
  await tx.query(
    `UPDATE installments SET state = 'paid', payment_id = $3, paid_at = $4${waiveFees ? ', fees_cents = 0' : ''} WHERE account_id = $1 AND id = $2 AND state = 'scheduled'`,
    [i.accountId, i.id, paymentId, now],
  );
}

/** The installment still to collect that a hold (a deferred payment's authorisation) is for, if any. */
export async function installmentHeldBy(sql: Sql, accountId: string, paymentId: string, lock = false): Promise<Installment | undefined> {
  const { rows } = await sql.query<InstallmentRow>(`SELECT * FROM installments WHERE account_id = $1 AND payment_id = $2 AND state = 'scheduled' ${lock ? 'FOR UPDATE' : ''}`, [
    accountId,
    paymentId,
  ]);
  return rows[0] && toInstallment(rows[0]);
}

/**
 * Points a scheduled installment at a re-authorised hold, only while it still points at the one
 * it replaces (docs/money-operations.md#re-authorisation). Answers whether it moved.
 */
export async function replaceInstallmentHold(tx: Sql, accountId: string, installmentId: string, fromPaymentId: string, toPaymentId: string): Promise<boolean> {
  const { rows } = await tx.query("UPDATE installments SET payment_id = $4 WHERE account_id = $1 AND id = $2 AND payment_id = $3 AND state = 'scheduled' RETURNING 1", [
    accountId,
    installmentId,
    fromPaymentId,
    toPaymentId,
  ]);
  return rows.length > 0;
}
