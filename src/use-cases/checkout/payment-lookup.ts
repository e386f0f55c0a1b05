import type { Database } from '../../db/database.ts';
import { loadPayState, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { paymentEnvironment } from '../../payments/payment-figures-repository.ts';
import { findPayment, findPaymentByRequestKey, type PaymentRow } from '../../payments/payment-repository.ts';
import { findPaymentWithLease, type UnresolvedPayment } from '../../payments/unresolved-payment-repository.ts';
import { findPledge, listPledges, type Pledge } from '../../payments/pledge-repository.ts';

/**
 * The payment side of an account's purchase as the hosted pages and the sandbox helpers show it:
 * its money state, its pledges and its payments. Reads only; the payments themselves are made by
 * `pay-as-leader.ts` and `pay-pledge.ts`.
 */

/** The purchase's payment state (its state, the leader's share, the pot's deadline …); undefined when unknown. */
export function payStateOf(deps: { db: Database }, accountId: string, purchaseId: string): Promise<PurchasePayState | undefined> {
  return loadPayState(deps.db, accountId, purchaseId);
}

/** The purchase's pledges, drafts included, in the leader's order. */
export function pledgesOf(deps: { db: Database }, accountId: string, purchaseId: string): Promise<Pledge[]> {
  return listPledges(deps.db, accountId, purchaseId);
}

/** The account's pledge (bare uuid), drafts included; undefined when unknown. */
export function pledgeOf(deps: { db: Database }, accountId: string, pledgeId: string): Promise<Pledge | undefined> {
  return findPledge(deps.db, accountId, pledgeId);
}

/** The account's payment (bare uuid); undefined when unknown. */
export function paymentOf(deps: { db: Database }, accountId: string, paymentId: string): Promise<PaymentRow | undefined> {
  return findPayment(deps.db, accountId, paymentId);
}

/** The payment with its lease as the database's clock reads it now (docs/money-operations.md#payments-in-doubt). */
export function paymentWithLease(deps: { db: Database }, accountId: string, paymentId: string): Promise<UnresolvedPayment | undefined> {
  return findPaymentWithLease(deps.db, accountId, paymentId);
}

/** The purchase's latest payment made by the request of this Idempotency-Key (docs/api-conventions.md#idempotency-key). */
export function paymentOfRequest(deps: { db: Database }, accountId: string, purchaseId: string, requestKey: string): Promise<PaymentRow | undefined> {
  return findPaymentByRequestKey(deps.db, accountId, purchaseId, requestKey);
}

/**
 * Whether the purchase's first payment (a pledge's, given `pledgeId`) ran on a test or a live PSP
 * account; undefined before any payment. The pages' test-mode banner follows it once money moved.
 */
export function paidEnvironment(deps: { db: Database }, accountId: string, purchaseId: string, pledgeId?: string): Promise<'test' | 'live' | undefined> {
  return paymentEnvironment(deps.db, accountId, purchaseId, pledgeId);
}
