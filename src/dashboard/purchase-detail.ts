import { listAudit, type AuditEntry } from '../audit/audit-repository.ts';
import type { Database } from '../db/database.ts';
import { listPledges, type Pledge } from '../payments/pledge-repository.ts';
import type { Refund } from '../payments/refund-repository.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { findPurchase } from '../purchases/purchase-repository.ts';
import { purchaseRefunds } from '../use-cases/refund-purchase.ts';
import { listDeliveries, listPurchaseAttempts, type DeliveryView, type PurchaseAttemptView } from '../delivery/delivery-repository.ts';

/** A purchase has a few dozen events at most: these bounds only stop a runaway page. */
const SHOWN_DELIVERIES = 100;
const SHOWN_ATTEMPTS = 500;

export interface PaymentLine {
  purpose: string;
  status: string;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  createdAt: Date;
}

export interface InstallmentLine {
  index: number;
  dueDate: string;
  amountCents: number;
  feesCents: number;
  state: string;
}

export interface EventLine {
  type: string;
  fromState: string | null;
  toState: string;
  createdAt: Date;
}

/** Everything the purchase page shows, read for one account: another account's purchase is not found. */
export interface PurchaseDetail {
  purchase: Purchase;
  payments: PaymentLine[];
  pledges: Pledge[];
  installments: InstallmentLine[];
  refunds: Refund[];
  events: EventLine[];
  /** Staff actions on this purchase (audit log), newest first. */
  audit: AuditEntry[];
  /** Its webhooks and notifications, newest first, and every attempt at sending them, oldest first. */
  deliveries: DeliveryView[];
  attempts: PurchaseAttemptView[];
}

export async function purchaseDetail(sql: Database, accountId: string, purchaseId: string): Promise<PurchaseDetail | undefined> {
  const purchase = await findPurchase(sql, accountId, purchaseId);
  if (!purchase) return undefined;
  const [payments, pledges, installments, refunds, events, audit, deliveries, attempts] = await Promise.all([
    sql.query<{ purpose: string; status: string; amount_cents: number; captured_cents: number; refunded_cents: number; created_at: Date }>(
      `SELECT purpose, status, amount_cents, captured_cents, refunded_cents, created_at
         FROM payments WHERE account_id = $1 AND purchase_id = $2 ORDER BY created_at, id`,
      [accountId, purchaseId],
    ),
    listPledges(sql, accountId, purchaseId),
    sql.query<{ index: number; due_date: string | Date; amount_cents: number; fees_cents: number; state: string }>(
      'SELECT index, due_date, amount_cents, fees_cents, state FROM installments WHERE account_id = $1 AND purchase_id = $2 ORDER BY index',
      [accountId, purchaseId],
    ),
    purchaseRefunds({ db: sql }, accountId, purchaseId),
    sql.query<{ type: string; from_state: string | null; to_state: string; created_at: Date }>(
      'SELECT type, from_state, to_state, created_at FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 ORDER BY id',
      [accountId, purchaseId],
    ),
    listAudit(sql, accountId, { subject: purchaseId, limit: 100 }),
    listDeliveries(sql, accountId, { purchaseId, limit: SHOWN_DELIVERIES }),
    listPurchaseAttempts(sql, accountId, purchaseId, SHOWN_ATTEMPTS),
  ]);
  return {
    purchase,
    payments: payments.rows.map((r) => ({
      purpose: r.purpose,
      status: r.status,
      amountCents: Number(r.amount_cents),
      capturedCents: Number(r.captured_cents),
      refundedCents: Number(r.refunded_cents),
      createdAt: r.created_at,
    })),
    pledges,
    installments: installments.rows.map((r) => ({
      index: r.index,
      dueDate: r.due_date instanceof Date ? r.due_date.toISOString().slice(0, 10) : String(r.due_date).slice(0, 10),
      amountCents: Number(r.amount_cents),
      feesCents: Number(r.fees_cents),
      state: r.state,
    })),
    refunds: refunds ?? [],
    events: events.rows.map((r) => ({ type: r.type, fromState: r.from_state, toState: r.to_state, createdAt: r.created_at })),
    audit,
    deliveries,
    attempts,
  };
}
