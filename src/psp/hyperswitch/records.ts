import type { PspRecord } from '../connector.ts';
import { readRefund, toTransactionResult, type IntentStatus, type PaymentView } from './mapping.ts';

/**
 * Hyperswitch's lists read for reconciliation (docs/money-operations.md#reconciliation). Pure.
 * Sources: the published OpenAPI document and its source (juspay/hyperswitch
 * crates/api_models/src/payments.rs `PaymentListConstraints`, `PaymentListResponse`;
 * crates/api_models/src/refunds.rs `RefundListRequest`, `RefundListResponse`).
 */

/**
 * The statuses of a payment whose money may have moved: a listed payment carries no `refunds`
 * (it is built from its intent and attempt), so these are read again (`GET /payments/{id}`).
 */
export const MONEY_MOVED: readonly IntentStatus[] = ['succeeded', 'partially_captured', 'partially_captured_and_capturable', 'cancelled_post_capture'];

/** A payment's current totals as a record, with what its lost disputes took back; undefined without its currency. */
export function toRecord(p: PaymentView, chargedBackCents = 0): PspRecord | undefined {
  if (!p.currency) return undefined;
  const r = toTransactionResult(p);
  return {
    transactionId: p.paymentId,
    status: r.status,
    currency: p.currency,
    amountCents: r.amountCents,
    capturedCents: r.capturedCents,
    refundedCents: r.refundedCents,
    chargedBackCents,
  };
}

/**
 * The dispute statuses whose amount the processor took back (`DisputeStatus`): lost, accepted by
 * the merchant, or expired (not answered in time), as the dispute webhooks read them
 * (src/psp/hyperswitch/disputes.ts). Opened, challenged, won and cancelled ones take nothing back.
 */
export const LOST_DISPUTES = ['dispute_lost', 'dispute_accepted', 'dispute_expired'] as const;

/** Whether a payment read lists a dispute that took money back (then `GET /disputes/list` gives the amounts). */
export function hasLostDispute(p: PaymentView): boolean {
  return (p.disputeStatuses ?? []).some((s) => (LOST_DISPUTES as readonly string[]).includes(s));
}

/** The sum of a `GET /disputes/list` answer's `amount`s (`StringMinorUnit`: minor units as a string); undefined when unreadable. */
export function disputedCents(value: unknown): number | undefined {
  if (!Array.isArray(value)) return undefined;
  let sum = 0;
  for (const d of value) {
    const amount = (d as { amount?: unknown } | null)?.amount;
    if (typeof amount !== 'string' || !/^\d{1,15}$/.test(amount)) return undefined;
    sum += Number(amount);
  }
  return sum;
}

/** The payment ids of a `RefundListResponse`'s refunds, in order; undefined when it is not one. */
export function refundListPayments(value: unknown): string[] | undefined {
  const data = (value as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const ids: string[] = [];
  for (const item of data) {
    const refund = readRefund(item);
    if (!refund) return undefined;
    ids.push(refund.paymentId);
  }
  return ids;
}

/** Where a listing stands: the payments created in the period (after a payment id), then the refunds made in it (at an offset). */
export type ListCursor = { phase: 'payments'; after: string | null } | { phase: 'refunds'; offset: number };

export function readCursor(cursor: string | null): ListCursor | undefined {
  if (cursor === null) return { phase: 'payments', after: null };
  let m = /^payments:([A-Za-z0-9_-]{30})$/.exec(cursor);
  if (m) return { phase: 'payments', after: m[1]! };
  m = /^refunds:(\d{1,9})$/.exec(cursor);
  return m ? { phase: 'refunds', offset: Number(m[1]) } : undefined;
}

export function writeCursor(c: ListCursor): string {
  return c.phase === 'payments' ? `payments:${c.after ?? ''}` : `refunds:${c.offset}`;
}
