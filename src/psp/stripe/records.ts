import type { PspRecord, TransactionStatus } from '../connector.ts';

/**
 * Stripe's balance transactions read for reconciliation (docs/money-operations.md#reconciliation).
 * Pure: no I/O; a missing or mistyped field reads as `undefined`, which the connector turns into
 * `bad_response`. Sources: docs.stripe.com/api/balance_transactions/object and /list,
 * /api/charges/object, /api/refunds/object, /api/disputes/object, and the types and reporting
 * categories of docs.stripe.com/reports/balance-transaction-types (as typed in stripe-node 23.1.0).
 *
 * A balance transaction is one movement of funds: a capture (`charge`, or `payment` for some
 * payment methods), a refund (`refund`, `payment_refund`, `payment_failure_refund`), a dispute's
 * withdrawal and reinstatement (`adjustment`, reporting categories `dispute` and
 * `dispute_reversal`). Authorisations move no funds: an intent that is only held, voided or
 * lapsed has none, so it is not listed (reconciliation asks `retrieve` about those).
 */

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
/** An expandable field: its id, whether Stripe sent the id or the object. */
const ref = (v: unknown): string | undefined => str(v) ?? str(obj(v)?.id);

/** The parts of a Charge that reconciliation reads. */
export interface ChargeTotals {
  id: string;
  /** The PaymentIntent (Chipin's transaction id); null for a charge made without one. */
  paymentIntent: string | null;
  currency: string;
  amount: number;
  amountCaptured: number;
  amountRefunded: number;
  captured: boolean;
  status: string;
  disputed: boolean;
}

export function readChargeTotals(value: unknown): ChargeTotals | undefined {
  const c = obj(value);
  if (!c || c.object !== 'charge') return undefined;
  const id = str(c.id);
  const currency = str(c.currency);
  const amount = int(c.amount);
  const amountCaptured = int(c.amount_captured);
  const amountRefunded = int(c.amount_refunded);
  const status = str(c.status);
  if (!id || !currency || !status || amount === undefined || amountCaptured === undefined || amountRefunded === undefined) return undefined;
  if (typeof c.captured !== 'boolean' || typeof c.disputed !== 'boolean') return undefined;
  return { id, paymentIntent: ref(c.payment_intent) ?? null, currency, amount, amountCaptured, amountRefunded, captured: c.captured, status, disputed: c.disputed };
}

/** What one balance transaction says about a payment: the charge it concerns (and the charge itself when it is the source). */
type Movement = { kind: 'charge'; charge: ChargeTotals } | { kind: 'refund' | 'dispute'; chargeId: string } | { kind: 'other' };

export interface BalanceTransactionView {
  id: string;
  movement: Movement;
}

const CHARGE_TYPES = ['charge', 'payment'];
const REFUND_TYPES = ['refund', 'payment_refund', 'payment_failure_refund'];

/**
 * Reads a balance transaction listed with `expand[]=data.source`. Undefined when it is not one we
 * can trust (then the page is a `bad_response`); a movement that concerns no payment (payouts,
 * Stripe's fees, top-ups, transfers…) is `other`.
 */
export function readBalanceTransaction(value: unknown): BalanceTransactionView | undefined {
  const t = obj(value);
  if (!t || t.object !== 'balance_transaction') return undefined;
  const id = str(t.id);
  const type = str(t.type);
  const category = str(t.reporting_category);
  if (!id || !type || !category) return undefined;
  const source = obj(t.source);
  if (CHARGE_TYPES.includes(type)) {
    const charge = readChargeTotals(source);
    return charge ? { id, movement: { kind: 'charge', charge } } : undefined;
  }
  if (REFUND_TYPES.includes(type)) {
    if (source?.object !== 'refund') return undefined;
    const chargeId = ref(source.charge);
    return chargeId ? { id, movement: { kind: 'refund', chargeId } } : undefined;
  }
  if (type === 'adjustment' && (category === 'dispute' || category === 'dispute_reversal')) {
    if (source?.object !== 'dispute') return undefined;
    const chargeId = ref(source.charge);
    return chargeId ? { id, movement: { kind: 'dispute', chargeId } } : undefined;
  }
  return { id, movement: { kind: 'other' } };
}

/**
 * The amount lost chargebacks took back (docs.stripe.com/api/disputes/object): a dispute's amount
 * leaves the balance when it opens and comes back only if it is won, so only `lost` ones count.
 * Inquiries (`warning_*`) never move funds.
 */
export function lostDisputeCents(disputes: readonly unknown[]): number | undefined {
  let sum = 0;
  for (const value of disputes) {
    const d = obj(value);
    const amount = int(d?.amount);
    const status = str(d?.status);
    if (!d || d.object !== 'dispute' || amount === undefined || !status) return undefined;
    if (status === 'lost') sum += amount;
  }
  return sum;
}

/**
 * A charge's current totals as a reconciliation record, named by its PaymentIntent (the id
 * Chipin stores; a charge without one keeps its own id, and reconciliation finds it unknown).
 * The status reads as `toStatus` reads a succeeded intent; refunds count on a captured charge
 * only (Stripe shows a released authorisation as refunded on its uncaptured charge).
 */
export function toRecord(charge: ChargeTotals, chargedBackCents: number): PspRecord {
  const refundedCents = charge.captured ? charge.amountRefunded : 0;
  let status: TransactionStatus;
  if (charge.status === 'failed') status = 'declined';
  else if (!charge.captured) status = 'authorized';
  else status = refundedCents > 0 ? 'refunded' : 'captured';
  return {
    transactionId: charge.paymentIntent ?? charge.id,
    status,
    currency: charge.currency.toUpperCase(),
    amountCents: charge.amount,
    capturedCents: charge.captured ? charge.amountCaptured : 0,
    refundedCents,
    chargedBackCents,
  };
}
