import { listAudit, type AuditEntry } from '../../audit/audit-repository.ts';
import { cancelBar, type CancelBar } from '../../domain/purchase-states.ts';
import type { Database } from '../../db/database.ts';
import { purchaseInstallmentRows } from '../../payments/installment-repository.ts';
import { purchasePaymentRows } from '../../payments/payment-figures-repository.ts';
import { listPledges, type Pledge } from '../../payments/pledge-repository.ts';
import type { Refund } from '../../payments/refund-repository.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import type { DeclineReason } from '../../psp/connector.ts';
import { findPurchase, purchaseEventRows } from '../../purchases/purchase-repository.ts';
import { purchaseRefunds } from '../refunds/refund-purchase.ts';
import { previewRefund } from '../refunds/refund-preview.ts';
import { purchaseDecisions, type RiskDecisionRow } from '../../risk/risk-decision-repository.ts';
import { chargedBackCents, disputesOfPurchase, type DisputeRow } from '../../payments/dispute-repository.ts';
import { listDeliveries, listPurchaseAttempts, type DeliveryView, type PurchaseAttemptView } from '../../delivery/delivery-repository.ts';

/** A purchase has a few dozen events at most: these bounds only stop a runaway page. */
const SHOWN_DELIVERIES = 100;
const SHOWN_ATTEMPTS = 500;

interface PaymentLine {
  purpose: string;
  status: string;
  /** Why the PSP refused it, as the payment recorded it (the connector's DeclineReason); null when not declined or not told. */
  declineReason: DeclineReason | null;
  /** The pledge a friend's share pays (one of `pledges`); null for the leader's payments. */
  pledgeId: string | null;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  createdAt: Date;
}

interface InstallmentLine {
  index: number;
  dueDate: string;
  amountCents: number;
  feesCents: number;
  state: string;
}

interface EventLine {
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
  /**
   * What a refund may still take, by the refund's own rule (captured money not yet refunded or
   * given back, and installments not collected yet): the refund form's "up to".
   */
  refundableCents: number;
  /**
   * Why the cancel would be refused, by the cancel's own rule (`cancelBar`, as
   * src/use-cases/checkout/cancel-purchase.ts applies it): `undefined` when it may go ahead.
   */
  cancelBar: CancelBar | undefined;
  events: EventLine[];
  /** Staff actions on this purchase (audit log), newest first. */
  audit: AuditEntry[];
  /** Its webhooks and notifications, newest first, and every attempt at sending them, oldest first. */
  deliveries: DeliveryView[];
  attempts: PurchaseAttemptView[];
  /** Its payment-time risk decisions (leader and pledgers), oldest first (docs/risk.md#decisions-as-records). */
  decisions: RiskDecisionRow[];
  /** Its disputes, oldest first, and what lost chargebacks took back (docs/money-operations.md#disputes). */
  disputes: DisputeRow[];
  chargedBackCents: number;
}

export async function purchaseDetail(sql: Database, accountId: string, purchaseId: string): Promise<PurchaseDetail | undefined> {
  const purchase = await findPurchase(sql, accountId, purchaseId);
  if (!purchase) return undefined;
  const [payments, pledges, installments, refunds, refundable, events, audit, deliveries, attempts, decisions, disputes, chargedBack] = await Promise.all([
    purchasePaymentRows(sql, accountId, purchaseId),
    listPledges(sql, accountId, purchaseId),
    purchaseInstallmentRows(sql, accountId, purchaseId),
    purchaseRefunds({ db: sql }, accountId, purchaseId),
    previewRefund(sql, accountId, purchaseId),
    purchaseEventRows(sql, accountId, purchaseId),
    listAudit(sql, accountId, { subject: purchaseId, limit: 100 }),
    listDeliveries(sql, accountId, { purchaseId, limit: SHOWN_DELIVERIES }),
    listPurchaseAttempts(sql, accountId, purchaseId, SHOWN_ATTEMPTS),
    purchaseDecisions(sql, accountId, purchaseId),
    disputesOfPurchase(sql, accountId, purchaseId),
    chargedBackCents(sql, accountId, purchaseId),
  ]);
  return {
    purchase,
    payments: payments.map((r) => ({
      purpose: r.purpose,
      status: r.status,
      declineReason: r.status === 'declined' ? ((r.decline_reason as DeclineReason | null) ?? null) : null,
      pledgeId: r.pledge_id,
      amountCents: Number(r.amount_cents),
      capturedCents: Number(r.captured_cents),
      refundedCents: Number(r.refunded_cents),
      createdAt: r.created_at,
    })),
    pledges,
    installments: installments.map((r) => ({
      index: r.index,
      dueDate: r.due_date instanceof Date ? r.due_date.toISOString().slice(0, 10) : String(r.due_date).slice(0, 10),
      amountCents: Number(r.amount_cents),
      feesCents: Number(r.fees_cents),
      state: r.state,
    })),
    refunds: refunds ?? [],
    refundableCents: refundable.kind === 'ok' ? refundable.amountCents : refundable.refundableCents,
    // Captured as the cancel reads it (anyCaptured): any payment of the purchase with money captured.
    cancelBar: cancelBar(
      purchase.state,
      payments.some((r) => Number(r.captured_cents) > 0),
    ),
    events: events.map((r) => ({ type: r.type, fromState: r.from_state, toState: r.to_state, createdAt: r.created_at })),
    audit,
    deliveries,
    attempts,
    decisions,
    disputes,
    chargedBackCents: chargedBack,
  };
}
