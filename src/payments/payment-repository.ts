import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import { EVENT, OUTBOX_CHANNEL } from '../domain/events.ts';
import { isUuid, newUuid } from '../domain/ids.ts';
import type { LeaderPurpose } from '../domain/leader-plan.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { backModeStatus } from '../domain/transaction-status.ts';
import { processorData, type DeclineReason, type PspState, type TransactionRef, type TransactionResult } from '../psp/connector.ts';
import type { LedgerKind } from './ledger-repository.ts';
import { bookLedgerEntries } from './transfer-booking-repository.ts';

/** A ledger entry as recordResult's statement answers it (json: the ids come as numbers). */
interface LedgerEntryJson {
  id: number | string;
  purchase_id: string;
  kind: LedgerKind;
  amount_cents: number | string;
}

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

/** Records that we are about to call the PSP; the idempotency key is what the PSP call will carry. */
export async function insertPayment(
  sql: Sql,
  p: {
    accountId: string;
    purchaseId: string;
    pledgeId?: string;
    purpose: PaymentPurpose;
    psp: string;
    pspAccountId?: string | null;
    idempotencyKey: string;
    amountCents: number;
    /** The Idempotency-Key request that starts it (docs/api-conventions.md#idempotency-key), if any. */
    requestKey?: string;
    /** A shopper's request runs it under a lease ({@link renewPaymentLease}); a job's payment is not leased. */
    leased?: boolean;
  },
  now: Date,
): Promise<PaymentRow> {
  const { rows } = await sql.query<PaymentRow>(
    `INSERT INTO payments (id, account_id, purchase_id, pledge_id, purpose, psp, psp_account_id, idempotency_key, amount_cents, status, created_at, updated_at, request_key, run_lease_until)
     VALUES ($1, $2, $3, $4, $5, $6, $10, $7, $8, 'pending', $9, $9, $11, CASE WHEN $12::boolean THEN now() + make_interval(secs => $13) END)
     ON CONFLICT (idempotency_key) DO UPDATE SET updated_at = payments.updated_at
     RETURNING *`,
    [
      newUuid(),
      p.accountId,
      p.purchaseId,
      p.pledgeId ?? null,
      p.purpose,
      p.psp,
      p.idempotencyKey,
      p.amountCents,
      now,
      p.pspAccountId ?? null,
      p.requestKey ?? null,
      p.leased === true,
      PAYMENT_LEASE_SECONDS,
    ],
  );
  return rows[0]!;
}

/**
 * How long a payment's lease lives without renewal, on the database's clock: three renewals
 * ({@link PAYMENT_LEASE_RENEW_MS}) may fail before a live request's payment is taken for in doubt
 * (docs/money-operations.md#payments-in-doubt).
 */
const PAYMENT_LEASE_SECONDS = 10;
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
 * Stores the PSP's answer on the payment row, appends to the ledger what it added to
 * `captured_cents` and `refunded_cents` (`ledger_entries`: one `capture` and/or `refund` entry by
 * the difference, in the same statement; docs/money-operations.md#the-ledger) and, for an outcome,
 * writes the purchase's `payment.transaction` event (the back-mode notification is built from
 * it), in the caller's transaction.
 *
 * Recorded once: only if the row is still in the status `payment` was read in (the state the
 * outcome applies to) and the answer changes it. A concurrent recorder of the same replayed
 * answer (two `trigger_capture`, a job and a retry), or a late answer about a row another path
 * already moved on (a void refused because the hold was captured meanwhile), writes nothing.
 * With `notify: false` the row is written without an event: a pledge's money given back is
 * never announced (docs/hosted-payment.md, "The pot and late payments"). With `reauth: true` the
 * event is marked as a hold's renewal (or the release of the hold it replaced,
 * docs/money-operations.md#re-authorisation): never the checkout's result. With `outcome: true`
 * the transaction is one the merchant asked for (a refund, a cancel's void) and its back-mode
 * notification is sent; other transactions are the purchase's inner workings, which the
 * notification does not report (docs/webhooks.md#back-mode-notification). With
 * `merchantRefund: true` what it refunds is the merchant's refund (a refund allocation): in
 * transfer mode the merchant bears it, where money given back for another reason goes back
 * against what the shopper owes (src/payments/transfer-booking-repository.ts).
 * Answers whether it recorded.
 */
export async function recordResult(
  sql: Sql,
  payment: PaymentRow,
  r: TransactionResult,
  purchaseState: PurchaseState,
  now: Date,
  options: { notify?: boolean; reauth?: boolean; outcome?: boolean; merchantRefund?: boolean } = {},
): Promise<boolean> {
  // One statement (the payment hot path): the row as it was (locked), the update, and the ledger's
  // entries for what the answer added to captured_cents and refunded_cents (docs/money-operations.md#the-ledger).
  // The refunded total never goes down: the ledger only books what grew, so a lower answer (a
  // payment charged back before this release, recorded then as refunded and read now as captured;
  // a refund that failed at the PSP after it was answered) keeps the recorded total, and its
  // status `refunded`, for reconciliation to show the difference.
  const { rows } = await sql.query<{ status: TransactionResult['status']; refunded_cents: number; payment_mode: 'back' | 'transfer'; entries: LedgerEntryJson[] | null }>(
    `WITH old AS (
       SELECT id, captured_cents, refunded_cents FROM payments WHERE account_id = $1 AND id = $2 AND status = $10 FOR UPDATE
     ), next AS (
       SELECT id, GREATEST($6::bigint, refunded_cents) AS refunded,
              CASE WHEN $4::text = 'captured' AND GREATEST($6::bigint, refunded_cents) > 0 THEN 'refunded' ELSE $4::text END AS status
         FROM old
     ), updated AS (
       UPDATE payments p SET psp_transaction_id = $3, status = n.status, captured_cents = $5, refunded_cents = n.refunded,
         decline_reason = $7, challenge_url = $8, updated_at = $9, network_transaction_id = COALESCE($11, p.network_transaction_id),
         psp_state = COALESCE($12::jsonb, p.psp_state)
         FROM old JOIN next n ON n.id = old.id
       WHERE p.account_id = $1 AND p.id = old.id AND p.status = $10
         AND (p.status, p.captured_cents, p.refunded_cents, p.decline_reason, p.psp_transaction_id)
             IS DISTINCT FROM (n.status, $5::bigint, n.refunded, $7::text, $3::text)
       RETURNING p.account_id, p.purchase_id, p.id, p.psp, p.psp_account_id, p.status, p.refunded_cents,
         p.captured_cents - old.captured_cents AS captured, p.refunded_cents - old.refunded_cents AS refunded
     ), entries AS (
       INSERT INTO ledger_entries (account_id, purchase_id, payment_id, psp, psp_account_id, kind, amount_cents, currency, occurred_at)
       SELECT u.account_id, u.purchase_id, u.id, u.psp, u.psp_account_id, v.kind, v.amount_cents, pu.currency, $9
         FROM updated u
         JOIN purchases pu ON pu.account_id = u.account_id AND pu.id = u.purchase_id
         CROSS JOIN LATERAL (VALUES ('capture', u.captured), ('refund', u.refunded)) AS v (kind, amount_cents)
        WHERE v.amount_cents > 0
       RETURNING id, purchase_id, kind, amount_cents
     )
     SELECT u.status, u.refunded_cents, pu.payment_mode,
            (SELECT json_agg(json_build_object('id', e.id, 'purchase_id', e.purchase_id, 'kind', e.kind, 'amount_cents', e.amount_cents) ORDER BY e.id) FROM entries e) AS entries
       FROM updated u JOIN purchases pu ON pu.account_id = u.account_id AND pu.id = u.purchase_id`,
    [
      payment.account_id,
      payment.id,
      r.transactionId,
      r.status,
      r.capturedCents,
      r.refundedCents,
      r.decline?.reason ?? null,
      r.challengeUrl ?? null,
      now,
      payment.status,
      r.networkTransactionId ?? null,
      r.pspState ? JSON.stringify(r.pspState) : null,
    ],
  );
  const stored = rows[0];
  if (!stored) return false;
  // Transfer mode: each entry's journal in the merchant's balance, in this transaction
  // (docs/money-operations.md#bookings-per-event). A back-mode purchase books nothing.
  if (stored.payment_mode === 'transfer' && stored.entries) {
    const entries = stored.entries.map((e) => ({ id: Number(e.id), purchaseId: e.purchase_id, kind: e.kind, amountCents: Number(e.amount_cents), occurredAt: now }));
    await bookLedgerEntries(sql, payment.account_id, entries, { merchantRefund: options.merchantRefund === true });
  }
  const status = backModeStatus(stored.status);
  if (!status || options.notify === false) return true;
  await writeEvent(
    sql,
    payment.account_id,
    payment.purchase_id,
    EVENT.transaction,
    purchaseState,
    {
      payment_id: payment.id,
      purpose: payment.purpose,
      pledge_id: payment.pledge_id,
      // A hold's renewal or the release of the hold it replaced: not the leader's checkout (lastTransactionEvent).
      ...(options.reauth ? { reauth: true } : {}),
      // Asked for by the merchant: its back-mode notification is sent (src/delivery/outcomes.ts).
      ...(options.outcome ? { outcome: true } : {}),
      transaction: {
        id: r.transactionId,
        status,
        amount_cents: status === 'refunded' ? Number(stored.refunded_cents) : status === 'completed' ? r.capturedCents : r.amountCents,
        created_at: now.toISOString(),
        error: r.decline ? r.decline.reason : '',
        ...(r.processor ? { processor: processorData(r.processor) } : {}),
      },
    },
    now,
  );
  return true;
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
