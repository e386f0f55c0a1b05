import type { PspRecord } from '../connector.ts';
import { chargedBackCents, toTransactionResult, type PaymentView } from './mapping.ts';

/**
 * Mercado Pago's payments as reconciliation records (docs/money-operations.md#reconciliation).
 * Pure. Sources: the Payments API reference, `GET /v1/payments/search`
 * (www.mercadopago.com/developers/en/reference/payments/_payments_search/get) and the payment's
 * `status` / `status_detail` (a chargeback: `in_mediation` while the bank reviews it, then
 * `charged_back` with `settled`, the money taken back from the seller, or `reimbursed`, returned).
 *
 * A chargeback is not a refund: a disputed payment reads as `retrieve` reads it (`captured`, or
 * `refunded` if the merchant refunded part of it: `isDisputed` in mapping.ts), and what a settled
 * chargeback took back (the captured amount less the refunds) is `chargedBackCents`.
 * After a partial capture Mercado Pago's `transaction_amount` is the captured amount, and the
 * search tells nothing of the authorised one: `amountCents` is then the captured amount.
 */
export function toRecord(p: PaymentView): PspRecord {
  const r = toTransactionResult(p);
  return {
    transactionId: p.id,
    status: r.status,
    currency: p.currency,
    amountCents: r.amountCents,
    capturedCents: r.capturedCents,
    refundedCents: r.refundedCents,
    chargedBackCents: chargedBackCents(p),
  };
}

/**
 * The cursor of a listing: which search (`created`, payments created in the period, then
 * `updated`, payments last changed in it) and its offset.
 */
export type SearchCursor = { phase: 'created' | 'updated'; offset: number };

export function readCursor(cursor: string | null): SearchCursor | undefined {
  if (cursor === null) return { phase: 'created', offset: 0 };
  const m = /^(created|updated):(\d{1,9})$/.exec(cursor);
  return m ? { phase: m[1] as SearchCursor['phase'], offset: Number(m[2]) } : undefined;
}

export function writeCursor(c: SearchCursor): string {
  return `${c.phase}:${c.offset}`;
}
