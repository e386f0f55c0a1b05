import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import { OUTBOX_CHANNEL } from '../domain/events.ts';
import { isUuid } from '../domain/ids.ts';
import type { LeaderPurpose } from '../domain/leader-plan.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import type { DeclineReason, PspState, TransactionRef, TransactionResult } from '../psp/connector.ts';

/**
 * The payments aggregate: `payments` (one row per PSP transaction we start) and the stateless
 * events that record their outcomes (`payment.transaction`, `payment.failed`, `pledge.paid`,
 * `installment.*`). Beside it: the payments not resolved yet (`unresolved-payment-repository.ts`),
 * the cards saved with the PSP (`payment-method-repository.ts`), those events read back
 * (`transaction-event-repository.ts`) and what the payments add up to (`payment-figures-repository.ts`).
 */

/** Why we started a PSP transaction. */
export type PaymentPurpose = LeaderPurpose | 'pledge' | 'rest' | 'installment' | 'card_check';

export type PaymentRow = RowType<
  'payments',
  {
    id: string;
    account_id: string;
    purchase_id: string;
    pledge_id: string | null;
    purpose: PaymentPurpose;
    psp: string;
    /** The merchant PSP account the payment ran on (back mode); null: the built-in sandbox PSP. */
    psp_account_id: string | null;
    idempotency_key: string;
    psp_transaction_id: string | null;
    amount_cents: number;
    captured_cents: number;
    refunded_cents: number;
    status: 'pending' | TransactionResult['status'];
    decline_reason: string | null;
    challenge_url: string | null;
    /** The PSP token the row's call uses, stored before the call (replayed after a crash). */
    psp_method_id: string | null;
    /** The 3-D Secure return URL the row's authorisation carries (replayed as it was). */
    psp_return_url: string | null;
    /** The card scheme's id of a customer-initiated transaction that stored the card (PSD2), when the PSP gave one. */
    network_transaction_id: string | null;
    /**
     * What the payment's connector learnt from its PSP (`TransactionResult.pspState`), given back in
     * every later call on the transaction ({@link pspRef}). NULL: written by a build that stored none,
     * or the PSP's answer not recorded yet.
     */
    psp_state: PspState | null;
    /** The Idempotency-Key request that started it (docs/api-conventions.md#idempotency-key); null without a key, or written by a build that did not record it. */
    request_key: string | null;
    /** Until when the request running it is known to be alive (docs/money-operations.md#payments-in-doubt); null: no request runs it under a lease. */
    run_lease_until: Date | null;
    /** Written before the PSP call: a hold placed by the call lapses no earlier than its validity after it. */
    created_at: Date;
    updated_at: Date;
  }
>;

/** The transaction of a PSP answer about the payment, with the answer's state, else the stored one. */
export function resultRef(payment: PaymentRow, r: TransactionResult): TransactionRef {
  return { transactionId: r.transactionId, pspState: r.pspState ?? payment.psp_state };
}

/** The payment's PSP transaction as its connector's later calls take it: the id and the stored state. */
export function pspRef(payment: PaymentRow): TransactionRef {
  if (!payment.psp_transaction_id) throw new TypeError(`payment ${payment.id} has no PSP transaction yet`);
  return { transactionId: payment.psp_transaction_id, pspState: payment.psp_state };
}

/**
 * How long a payment's lease lives without renewal, on the database's clock: three renewals
 * ({@link PAYMENT_LEASE_RENEW_MS}) may fail before a live request's payment is taken for in doubt
 * (docs/money-operations.md#payments-in-doubt).
 */
export const PAYMENT_LEASE_SECONDS = 10;
export const PAYMENT_LEASE_RENEW_MS = 3_000;

/** Extends the lease of a payment its request is still running; nothing once its outcome is recorded. */
export async function renewPaymentLease(sql: Sql, payment: PaymentRow): Promise<void> {
  await sql.query(
    "UPDATE payments SET run_lease_until = now() + make_interval(secs => $3) WHERE account_id = $1 AND id = $2 AND status = 'pending' AND run_lease_until IS NOT NULL",
    [payment.account_id, payment.id, PAYMENT_LEASE_SECONDS],
  );
}

/**
 * Ends a payment's lease: `lapsed` when its request failed after the PSP may have acted (the
 * payment is in doubt at once), else cleared, back to the 20-minute rule (a PSP fault, which
 * leaves the payment to the shopper's next attempt). Only while the payment is pending.
 */
export async function endPaymentLease(sql: Sql, payment: PaymentRow, how: 'lapsed' | 'cleared'): Promise<void> {
  await sql.query(
    `UPDATE payments SET run_lease_until = CASE WHEN $3 THEN now() - interval '1 millisecond' END
      WHERE account_id = $1 AND id = $2 AND status = 'pending' AND run_lease_until IS NOT NULL`,
    [payment.account_id, payment.id, how === 'lapsed'],
  );
}

/** The card the row's call is about to use, stored in the transaction that saves it, before the PSP call. */
export async function setPaymentPspMethod(sql: Sql, payment: PaymentRow, pspMethodId: string, returnUrl: string): Promise<boolean> {
  // Only while pending: a row the reconciliation marked abandoned must not be charged after all.
  const { rows } = await sql.query("UPDATE payments SET psp_method_id = $3, psp_return_url = $4 WHERE account_id = $1 AND id = $2 AND status = 'pending' RETURNING 1", [
    payment.account_id,
    payment.id,
    pspMethodId,
    returnUrl,
  ]);
  return rows.length > 0;
}

/** The merchant account's payment with this idempotency key, if it was ever recorded. */
export async function findPaymentByKey(sql: Sql, accountId: string, idempotencyKey: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE account_id = $1 AND idempotency_key = $2', [accountId, idempotencyKey]);
  return rows[0];
}

export async function findPayment(sql: Sql, accountId: string, id: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0];
}

/** The latest payment of a purchase that the Idempotency-Key request `requestKey` started (docs/api-conventions.md#idempotency-key). */
export async function findPaymentByRequestKey(sql: Sql, accountId: string, purchaseId: string, requestKey: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE account_id = $1 AND purchase_id = $2 AND request_key = $3 ORDER BY created_at DESC LIMIT 1', [
    accountId,
    purchaseId,
    requestKey,
  ]);
  return rows[0];
}

/**
 * One purchase's payment, by the purchase AND the payment (docs/security.md#returns-and-ids): the
 * lookup of every return from 3-D Secure that names a purchase, so that another purchase's payment,
 * even of the same account, is not found, as an unknown one is. A malformed id finds nothing,
 * without a query.
 */
export async function findPurchasePayment(sql: Sql, accountId: string, purchaseId: string, paymentId: string): Promise<PaymentRow | undefined> {
  if (!isUuid(purchaseId) || !isUuid(paymentId)) return undefined;
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE account_id = $1 AND purchase_id = $2 AND id = $3', [accountId, purchaseId, paymentId]);
  return rows[0];
}

/** One pledge's payment, by the pledge AND the payment: the pledger's return (as {@link findPurchasePayment}). */
export async function findPledgePayment(sql: Sql, accountId: string, pledgeId: string, paymentId: string): Promise<PaymentRow | undefined> {
  if (!isUuid(pledgeId) || !isUuid(paymentId)) return undefined;
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE account_id = $1 AND pledge_id = $2 AND id = $3', [accountId, pledgeId, paymentId]);
  return rows[0];
}

/**
 * The leader's checkout attempts so far (`n`, which numbers the next idempotency key) and those
 * still running (pending or awaiting 3-D Secure, touched after `busySince`).
 */
export async function leaderAttempts(sql: Sql, accountId: string, purchaseId: string, purposes: readonly string[], busySince: Date): Promise<{ n: number; busy: number }> {
  const { rows } = await sql.query<{ n: number; busy: number }>(
    `SELECT count(*) AS n, count(*) FILTER (WHERE status IN ('pending', 'requires_action') AND updated_at > $3) AS busy
     FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = ANY($4::text[])`,
    [accountId, purchaseId, busySince, purposes],
  );
  return rows[0]!;
}

/** How many payments a pledge has had (numbers the next idempotency key). */
export async function countPledgePayments(sql: Sql, accountId: string, pledgeId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*) AS n FROM payments WHERE account_id = $1 AND pledge_id = $2', [accountId, pledgeId]);
  return rows[0]!.n;
}

/**
 * Stores what a notification taught the connector about a payment still unresolved (Adyen's
 * AUTHORISATION after 3-D Secure), for the resolution that follows to read it from the row as
 * every other path does. Only while the row is in the status it was read in.
 */
export async function storePspState(sql: Sql, payment: PaymentRow, pspState: PspState): Promise<PaymentRow> {
  const { rows } = await sql.query<PaymentRow>('UPDATE payments SET psp_state = $3 WHERE account_id = $1 AND id = $2 AND status = $4 RETURNING *', [
    payment.account_id,
    payment.id,
    JSON.stringify(pspState),
    payment.status,
  ]);
  return rows[0] ?? payment;
}

/** The row as it stands after {@link recordResult} stored `r` on it (to record a next answer about it). */
export function afterResult(payment: PaymentRow, r: TransactionResult): PaymentRow {
  // As recordResult stores it: the refunded total never lower than recorded.
  const refunded = Math.max(Number(payment.refunded_cents), r.refundedCents);
  return {
    ...payment,
    status: r.status === 'captured' && refunded > 0 ? 'refunded' : r.status,
    psp_transaction_id: r.transactionId,
    captured_cents: r.capturedCents,
    refunded_cents: refunded,
    decline_reason: r.decline?.reason ?? null,
    psp_state: r.pspState ?? payment.psp_state,
  };
}

/** A refusal before any PSP transaction existed (the card could not even be attached): no transaction event. */
export async function markDeclined(sql: Sql, payment: PaymentRow, reason: DeclineReason | 'abandoned' | 'risk_refused', now: Date): Promise<void> {
  await sql.query("UPDATE payments SET status = 'declined', decline_reason = $3, updated_at = $4 WHERE account_id = $1 AND id = $2 AND status = 'pending'", [
    payment.account_id,
    payment.id,
    reason,
    now,
  ]);
}

/** An event that changes no state (`payment.failed`, `pledge.paid`, ...): from and to are the current state. */
export async function writeEvent(sql: Sql, accountId: string, purchaseId: string, type: string, state: PurchaseState, data: object, now: Date): Promise<void> {
  await sql.query(
    `WITH e AS (
       INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
       VALUES ($1, $2, $3, $4, $4, $5, $6, $6) RETURNING id, account_id, purchase_id
     )
     INSERT INTO event_outbox (event_id, account_id, purchase_id) SELECT id, account_id, purchase_id FROM e`,
    [accountId, purchaseId, type, state, JSON.stringify(data), now],
  );
  sql.notify(OUTBOX_CHANNEL);
}

/**
 * The customer-initiated transaction that stored the leader's card (PSD2): the purchase's latest
 * leader checkout payment the PSP accepted. Every later merchant-initiated charge on the card
 * references it, and runs on the PSP account that holds the card (`psp_account_id`). A
 * re-authorisation (`…:reauth:<n>`, itself merchant-initiated) is never one.
 */
export async function storedCredentialPayment(sql: Sql, accountId: string, purchaseId: string, purposes: readonly string[]): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>(
    `SELECT * FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = ANY($3::text[])
       AND idempotency_key NOT LIKE '%:share' AND idempotency_key NOT LIKE '%:reauth:%' AND psp_transaction_id IS NOT NULL
       AND status IN ('authorized', 'captured', 'refunded', 'voided', 'expired')
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [accountId, purchaseId, purposes],
  );
  return rows[0];
}

/** The payment a PSP notification names: a transaction of one PSP account of one merchant account. */
export async function findPaymentByPspTransaction(sql: Sql, accountId: string, pspAccountId: string, transactionId: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>(
    'SELECT * FROM payments WHERE account_id = $1 AND psp_account_id = $2 AND psp_transaction_id = $3 ORDER BY created_at DESC LIMIT 1',
    [accountId, pspAccountId, transactionId],
  );
  return rows[0];
}

/**
 * The payment a notification to an operator's collecting account names (transfer mode): that
 * account's transactions are several merchants', so this is an owner lookup across accounts, like
 * `pspAccountOwner`; its caller scopes everything after by the payment's `account_id`.
 */
export async function findOperatorAccountPayment(sql: Sql, pspAccountId: string, transactionId: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE psp_account_id = $1 AND psp_transaction_id = $2 ORDER BY created_at DESC LIMIT 1', [
    pspAccountId,
    transactionId,
  ]);
  return rows[0];
}

/**
 * After a PSP fault (unreachable, timeout, 5xx) the attempt is no longer "in progress": its row
 * stays pending with its card, so the shopper's next attempt resolves it first by replaying the
 * call with the same idempotency key (the PSP answers what it did, or does it once), and is not
 * told to wait. Only a row still pending is touched.
 */
export async function releasePendingAttempt(sql: Sql, payment: PaymentRow, busyMs: number, now: Date): Promise<void> {
  await sql.query("UPDATE payments SET updated_at = $3 WHERE account_id = $1 AND id = $2 AND status = 'pending'", [
    payment.account_id,
    payment.id,
    new Date(now.getTime() - busyMs - 1),
  ]);
}

/** How many payments of the purchase have an idempotency key starting with `prefix` (numbers the next one). */
export async function countPaymentsKeyed(sql: Sql, accountId: string, purchaseId: string, prefix: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*) AS n FROM payments WHERE account_id = $1 AND purchase_id = $2 AND starts_with(idempotency_key, $3)', [
    accountId,
    purchaseId,
    prefix,
  ]);
  return Number(rows[0]!.n);
}

/**
 * The card change (`card_check`) whose customer-initiated authorisation stored the card
 * `pspMethodId`: authorised by the PSP (then voided), never one abandoned in 3-D Secure.
 */
export async function cardCheckOf(sql: Sql, accountId: string, purchaseId: string, pspMethodId: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>(
    `SELECT * FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = 'card_check' AND psp_method_id = $3
       AND psp_transaction_id IS NOT NULL AND status IN ('authorized', 'voided', 'captured')
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [accountId, purchaseId, pspMethodId],
  );
  return rows[0];
}
