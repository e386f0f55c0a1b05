import type { Sql } from '../db/database.ts';
import { bookLedgerEntries } from './transfer-booking-repository.ts';

/**
 * The ledger (`ledger_entries`, migration 037, docs/money-operations.md#the-ledger): one row per
 * movement of money at the PSP, appended in the transaction that records it, never changed.
 * Captures and refunds are appended by `recordResult` (payment-repository.ts) in the same
 * statement that stores the PSP's answer; chargebacks and their reversals by
 * {@link bookDisputeLedger}. In transfer mode each entry's journal is booked with it
 * (src/payments/transfer-booking-repository.ts).
 */

export type LedgerKind = 'capture' | 'refund' | 'chargeback' | 'chargeback_reversal';

/** What a dispute has taken from the merchant, as the disputes' code records it. */
export interface DisputeLedgerTarget {
  accountId: string;
  /** The disputed payment: an entry takes its purchase, PSP, PSP account and currency. */
  paymentId: string;
  /** The `disputes` row. */
  disputeId: string;
  /**
   * What the dispute has taken, minor units of the purchase's currency: a lost chargeback's
   * `amount_cents`, at most what its payment held after its refunds and the lost chargebacks
   * opened before it (`chargebackTakes`, docs/money-operations.md#refunds-and-disputes); else 0.
   */
  chargedBackCents: number;
  /** When the money moved (the PSP's date, else the service clock's now). */
  occurredAt: Date;
}

/**
 * Brings the dispute's entries to what it has taken, in the caller's transaction (the one that
 * records the dispute, its row locked): appends the difference between `chargedBackCents` and the
 * dispute's Σ `chargeback` − Σ `chargeback_reversal` so far, a `chargeback` when more was taken (a
 * loss, a larger amount told again), a `chargeback_reversal` when some came back (a loss reversed,
 * a smaller amount). The dispute's first entry of each kind carries `dispute_id` (migration 037);
 * any further one is an adjustment (`adjusts_dispute_id`, `adjustment_no`: migration 041). A
 * notice applied twice finds no difference and appends nothing. Answers the entry appended, if any
 * (none also when the payment is not the account's). The reports count `chargeback` minus
 * `chargeback_reversal` as charged back, so the ledger's figure of each dispute is always what it
 * took, however often its amount or outcome moved.
 */
export async function bookDisputeLedger(sql: Sql, e: DisputeLedgerTarget): Promise<{ kind: 'chargeback' | 'chargeback_reversal'; amountCents: number } | undefined> {
  if (!Number.isSafeInteger(e.chargedBackCents) || e.chargedBackCents < 0)
    throw new Error(`a dispute's charged-back amount must be a non-negative integer, got ${e.chargedBackCents}`);
  const { rows } = await sql.query<{ net: number; chargebacks: number; reversals: number; adjustments: number }>(
    `SELECT COALESCE(sum(CASE WHEN kind = 'chargeback' THEN amount_cents ELSE -amount_cents END), 0)::bigint AS net,
            count(*) FILTER (WHERE dispute_id = $3 AND kind = 'chargeback')::int AS chargebacks,
            count(*) FILTER (WHERE dispute_id = $3 AND kind = 'chargeback_reversal')::int AS reversals,
            COALESCE(max(adjustment_no), 0)::int AS adjustments
       FROM ledger_entries
      WHERE account_id = $1 AND payment_id = $2 AND (dispute_id = $3 OR adjusts_dispute_id = $3)`,
    [e.accountId, e.paymentId, e.disputeId],
  );
  const booked = rows[0]!;
  const difference = e.chargedBackCents - Number(booked.net);
  if (difference === 0) return undefined;
  const kind = difference > 0 ? 'chargeback' : 'chargeback_reversal';
  const first = (kind === 'chargeback' ? booked.chargebacks : booked.reversals) === 0;
  const amountCents = Math.abs(difference);
  const inserted = await sql.query<{ id: number; purchase_id: string }>(
    `INSERT INTO ledger_entries (account_id, purchase_id, payment_id, psp, psp_account_id, kind, amount_cents, currency, dispute_id, adjusts_dispute_id, adjustment_no, occurred_at)
     SELECT p.account_id, p.purchase_id, p.id, p.psp, p.psp_account_id, $3, $4, pu.currency, $5, $6, $7, $8
       FROM payments p JOIN purchases pu ON pu.account_id = p.account_id AND pu.id = p.purchase_id
      WHERE p.account_id = $1 AND p.id = $2
     ON CONFLICT DO NOTHING
     RETURNING id, purchase_id`,
    [e.accountId, e.paymentId, kind, amountCents, first ? e.disputeId : null, first ? null : e.disputeId, first ? null : booked.adjustments + 1, e.occurredAt],
  );
  const entry = inserted.rows[0];
  if (!entry) return undefined;
  // Transfer mode: the entry's journal in the merchant's balance, in this transaction (docs/money-operations.md#bookings-per-event).
  await bookLedgerEntries(sql, e.accountId, [{ id: Number(entry.id), purchaseId: entry.purchase_id, kind, amountCents, occurredAt: e.occurredAt }]);
  return { kind, amountCents };
}

/** Per payment of a purchase: what its ledger entries add up to, by kind (0 when none). */
export interface PaymentLedgerSums {
  paymentId: string;
  capturedCents: number;
  refundedCents: number;
  chargedBackCents: number;
}

/** The ledger's sums of each payment of a purchase that has entries (the check against the payments' totals). */
export async function ledgerSumsOfPurchase(sql: Sql, accountId: string, purchaseId: string): Promise<PaymentLedgerSums[]> {
  const { rows } = await sql.query<{ payment_id: string; captured: number; refunded: number; charged_back: number }>(
    `SELECT payment_id,
            COALESCE(sum(amount_cents) FILTER (WHERE kind = 'capture'), 0)::bigint AS captured,
            COALESCE(sum(amount_cents) FILTER (WHERE kind = 'refund'), 0)::bigint AS refunded,
            (COALESCE(sum(amount_cents) FILTER (WHERE kind = 'chargeback'), 0) - COALESCE(sum(amount_cents) FILTER (WHERE kind = 'chargeback_reversal'), 0))::bigint AS charged_back
       FROM ledger_entries WHERE account_id = $1 AND purchase_id = $2 GROUP BY payment_id ORDER BY payment_id`,
    [accountId, purchaseId],
  );
  return rows.map((r) => ({ paymentId: r.payment_id, capturedCents: r.captured, refundedCents: r.refunded, chargedBackCents: r.charged_back }));
}
