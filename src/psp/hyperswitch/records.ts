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

/** A payment's current totals as a record; undefined without its currency. Hyperswitch's disputes are not read (yet): `chargedBackCents` is 0. */
export function toRecord(p: PaymentView): PspRecord | undefined {
  if (!p.currency) return undefined;
  const r = toTransactionResult(p);
  return {
    transactionId: p.paymentId,
    status: r.status,
    currency: p.currency,
    amountCents: r.amountCents,
    capturedCents: r.capturedCents,
    refundedCents: r.refundedCents,
    chargedBackCents: 0,
  };
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
