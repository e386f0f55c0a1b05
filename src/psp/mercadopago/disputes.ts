import type { DisputeStatus, NotifiedDispute } from '../connector.ts';
import { fromMpAmount, type PaymentView } from './mapping.ts';

/**
 * Mercado Pago's chargebacks (docs/money-operations.md#disputes; docs/psp/mercadopago.md lists
 * the sources: "Configure chargeback notifications", "Manage chargebacks" and the reference of
 * `GET /v1/chargebacks/{id}`). The *Chargebacks* webhook (`type` `topic_chargebacks_wh`) names
 * the chargeback (`data.id`) and its payment (`data.payment_id`), and is sent when a chargeback
 * is created or its status changes; the chargeback is then read with `GET /v1/chargebacks/{id}`:
 * `id`, `payments` (the payment ids of the case), `currency`, `amount` (decimal), `reason`,
 * `coverage_applied`, `coverage_elegible`, `documentation_required`, `documentation_status`
 * (`pending`, `review_pending`, `valid`, `invalid`, `not_supplied`, `not_applicable`),
 * `date_documentation_deadline`, `date_created`, `date_last_updated`.
 *
 * Every Mercado Pago chargeback is a chargeback (it documents no retrieval request or fraud
 * warning). Its outcome is read from the disputed payment, as reconciliation reads it
 * (`records.ts`): `charged_back` with `status_detail` `settled` (the money retained from the
 * seller) is lost, `reimbursed` (the money returned) won; anything else is still open:
 * `evidence_needed` while `documentation_status` is `pending` (no documentation received yet),
 * `opened` otherwise. `coverage_applied` is not read for the outcome: the reference's examples
 * disagree on it (`null` on an undecided case, `false` beside documentation judged `valid`),
 * while the payment's `status_detail` is where the money went.
 */

/** A chargeback id: digits (the reference's example is `"234000062890459000"`, beyond a JSON number's exact integers). */
const CHARGEBACK_ID = /^\d{1,30}$/;

/** The part of a chargeback Chipin reads. */
export interface ChargebackView {
  id: string;
  paymentIds: readonly string[];
  currency: string;
  /** `amount`, in minor units; undefined when absent or unreadable in `currency`. */
  amountCents: number | undefined;
  reason: string | null;
  documentationStatus: string | undefined;
  deadline: Date | undefined;
}

function digits(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  return typeof v === 'string' && CHARGEBACK_ID.test(v) ? v : undefined;
}

/** Reads `GET /v1/chargebacks/{id}`'s answer; undefined when its id, payments or currency are missing. */
export function readChargeback(value: unknown): ChargebackView | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const c = value as Record<string, unknown>;
  const id = digits(c.id);
  const currency = typeof c.currency === 'string' && /^[A-Z]{3}$/.test(c.currency) ? c.currency : undefined;
  if (!id || !currency || !Array.isArray(c.payments)) return undefined;
  const paymentIds = c.payments.map(digits);
  if (paymentIds.some((p) => p === undefined)) return undefined;
  let amountCents: number | undefined;
  try {
    amountCents = fromMpAmount(c.amount, currency);
  } catch {
    amountCents = undefined;
  }
  const deadline = typeof c.date_documentation_deadline === 'string' ? new Date(c.date_documentation_deadline) : undefined;
  return {
    id,
    paymentIds: paymentIds as string[],
    currency,
    amountCents,
    reason: typeof c.reason === 'string' && c.reason !== '' ? c.reason : null,
    documentationStatus: typeof c.documentation_status === 'string' ? c.documentation_status : undefined,
    deadline: deadline && !Number.isNaN(deadline.getTime()) ? deadline : undefined,
  };
}

/**
 * Which payment of the case the notice is about: the notification's `payment_id` when the case
 * lists it, else the case's only payment; undefined when neither tells one.
 */
export function disputedPaymentId(cb: ChargebackView, notifiedPaymentId: string | undefined): string | undefined {
  if (notifiedPaymentId !== undefined && cb.paymentIds.includes(notifiedPaymentId)) return notifiedPaymentId;
  return cb.paymentIds.length === 1 ? cb.paymentIds[0] : undefined;
}

/** The chargeback's status: the payment's money first, then whether documentation is awaited. */
function chargebackStatus(cb: ChargebackView, payment: PaymentView): DisputeStatus {
  if (payment.status === 'charged_back' && payment.statusDetail === 'settled') return 'lost';
  if (payment.status === 'charged_back' && payment.statusDetail === 'reimbursed') return 'won';
  return cb.documentationStatus === 'pending' ? 'evidence_needed' : 'opened';
}

/** The dispute a chargeback notice reports on `payment` (one of the case's payments). */
export function toNotifiedDispute(cb: ChargebackView, payment: PaymentView): NotifiedDispute {
  const dispute: NotifiedDispute = {
    pspDisputeId: cb.id,
    transactionId: payment.id,
    kind: 'chargeback',
    status: chargebackStatus(cb, payment),
    reason: cb.reason,
  };
  // The case's amount is the disputed payment's only when the case has one payment and is in the
  // payment's currency; else the payment's captured amount less its refunds is taken.
  if (cb.paymentIds.length === 1 && cb.currency === payment.currency && cb.amountCents !== undefined && cb.amountCents > 0) {
    dispute.amountCents = cb.amountCents;
    dispute.currency = cb.currency;
  }
  if (cb.deadline) dispute.evidenceDueAt = cb.deadline;
  return dispute;
}
