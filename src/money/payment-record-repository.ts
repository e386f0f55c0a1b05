import type { Sql } from '../db/database.ts';
import { newUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { backModeStatus } from '../domain/transaction-status.ts';
import type { LedgerKind } from '../payments/ledger-repository.ts';
import { PAYMENT_LEASE_SECONDS, writeEvent, type PaymentPurpose, type PaymentRow } from '../payments/payment-repository.ts';
import { bookLedgerEntries } from '../payments/transfer-booking-repository.ts';
import { processorData, type TransactionResult } from '../psp/connector.ts';
import { EVENT } from '../domain/events.ts';

/**
 * The two writes that move money on the books: a payment row reserved before its PSP call
 * ({@link insertPayment}) and a PSP answer recorded on it ({@link recordResult}: the row, its
 * event and outbox row, the ledger, transfer mode's balance). Private to the money engine
 * (docs/architecture.md#the-money-engine): `money-moves-through-the-engine` in
 * .dependency-cruiser.mjs lists the use cases not moved onto it yet, which still call them.
 */

/** A ledger entry as recordResult's statement answers it (json: the ids come as numbers). */
interface LedgerEntryJson {
  id: number | string;
  purchase_id: string;
  kind: LedgerKind;
  amount_cents: number | string;
}

/** A payment row to reserve before its PSP call. */
export interface NewPayment {
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
  /** A shopper's request runs it under a lease (renewPaymentLease); a job's payment is not leased. */
  leased?: boolean;
}

/** Records that we are about to call the PSP; the idempotency key is what the PSP call will carry. */
export async function insertPayment(sql: Sql, p: NewPayment, now: Date): Promise<PaymentRow> {
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
