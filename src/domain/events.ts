import { MOVES } from './purchase-states.ts';

/**
 * Every kind of event written to `purchase_events` (in the same transaction as what it records).
 * The delivery worker turns them into webhooks and back-mode notifications.
 *
 * - Lifecycle moves: one event each, named in MOVES (`purchase.created` for creation).
 * - `payment.failed`: a card was refused or 3-D Secure failed; the purchase may keep its state
 *   (the leader can retry). `data`: `{ reason, payment_id, attempt, transaction? }` (a risk
 *   refusal adds `risk: { decision_id, reasons }`); the purchase's `errorNotificationUrl` gets
 *   the error notification when the last attempt fails (docs/webhooks.md#error-notification).
 * - `payment.transaction`: a PSP transaction happened (authorised, captured, voided, refunded,
 *   failed). `data.transaction`: `{ id, status: 'authorized'|'completed'|'failed'|'voided'|'refunded',
 *   amount_cents, created_at, error }` — the back-mode notification is built from it.
 * - `pledge.paid`: a pledger contributed. `data`: `{ pledge_id, client_id, amount_cents }`.
 * - `installment.paid` / `installment.failed`: `data`: `{ installment_id, index, amount_cents, attempt?, reason? }`.
 * - `pledge.refused`: the risk rules (or the account's scoring hook) refused a pledger's card before
 *   anything was charged; the pot goes on. `data`: `{ pledge_id, reason: 'risk_refused', risk: { decision_id, reasons } }`.
 * - `refund.made`: a merchant refund moved money (every refund, partial or full; the full one
 *   also moves the purchase to REFUNDED). `data`: `{ refund_id, state, amount_cents, refunded_cents }`
 *   (`amount_cents` what this refund gave back, `refunded_cents` the purchase's total so far).
 * - `purchase.offer_changed`: after a risk refusal, the leader took one of the offer's fallbacks
 *   (docs/risk.md#the-fallback); the purchase stays CREATED. `data`: `{ from, to }` (`mer_…` ids).
 *   No webhook trigger sends it: the back office's timeline shows it.
 * - `payment.reauthorized`: a hold (the pot's guarantee, a deferred payment's authorisation) was
 *   renewed before it lapsed (docs/money-operations.md#re-authorisation). `data`:
 *   `{ payment_id, replaced_payment_id, purpose, amount_cents, hold_expires_at }`.
 * - `payment.reauthorization_failed`: renewing it was refused; the old hold stays until it lapses.
 *   `data`: `{ payment_id, attempted_payment_id, purpose, amount_cents, reason, hold_expires_at }`.
 * - `reconciliation.mismatch`: a reconciliation run found a new difference between Chipin's
 *   payment and the PSP's records (docs/money-operations.md#reconciliation); written for a
 *   mismatch whose payment Chipin knows (the purchase's state unchanged). `data`:
 *   `{ reconciliation_mismatch_id, kind, operation, transaction_id, payment_id, chipin_cents,
 *   psp_cents, chipin_status, psp_status, currency }`.
 * - `purchase.disputed`: the PSP notified a dispute on one of the purchase's payments (a
 *   chargeback, a retrieval request or a fraud warning; docs/money-operations.md#disputes).
 *   `data`: `{ dispute_id, payment_id, kind, reason, amount_cents, currency, evidence_due_at }`.
 * - `dispute.closed`: a dispute ended. `data`: `{ dispute_id, payment_id, kind, outcome: 'won'|'lost'|'closed', amount_cents, currency }`;
 *   a chargeback may end twice (a reversal after a loss): each outcome is an event.
 * - `payment.release_failed`: a hold (or money) a purchase must give back (cancelled, or money taken
 *   after its purpose was gone) was refused by its PSP, or the PSP could not be reached; a durable job tries again hourly until it is released
 *   (docs/money-operations.md#one-money-operation-at-a-time). Written once per payment. `data`:
 *   `{ payment_id, amount_cents, reason }`.
 * - `payout.paid`: the operator marked a payout of transfer mode sent: its credit transfer to the
 *   merchant's bank account was made (docs/money-operations.md#payouts). The merchant's, about no
 *   purchase: `purchase_id`, `from_state` and `to_state` are NULL. `data`:
 *   `{ payout_id, amount_cents, currency, business_day, line_count }` (`po_…`).
 */
/**
 * Notified (`Sql.notify`) with every write of events or due deliveries: wakes the delivery
 * workers of every process. Whoever writes an event notifies it in the same handle.
 */
export const OUTBOX_CHANNEL = 'chipin_delivery';

export const EVENT = {
  purchaseCreated: 'purchase.created',
  paymentFailed: 'payment.failed',
  transaction: 'payment.transaction',
  pledgePaid: 'pledge.paid',
  installmentPaid: 'installment.paid',
  installmentFailed: 'installment.failed',
  refundMade: 'refund.made',
  pledgeRefused: 'pledge.refused',
  offerChanged: 'purchase.offer_changed',
  paymentReauthorized: 'payment.reauthorized',
  paymentReauthorizationFailed: 'payment.reauthorization_failed',
  reconciliationMismatch: 'reconciliation.mismatch',
  purchaseDisputed: 'purchase.disputed',
  disputeClosed: 'dispute.closed',
  releaseFailed: 'payment.release_failed',
  payoutPaid: 'payout.paid',
} as const;

export type EventType = (typeof EVENT)[keyof typeof EVENT] | (typeof MOVES)[keyof typeof MOVES]['event'];

/** Webhook trigger names of the contract, and the events they are sent for. */
export const CONTRACT_TRIGGERS: Record<string, EventType> = {
  paymentProcessed: MOVES.leaderProcessed.event,
  paymentFailed: EVENT.paymentFailed,
  pledgerContributes: EVENT.pledgePaid,
};
