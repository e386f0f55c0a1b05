import type { Sql } from '../db/database.ts';

/**
 * The ledger (`ledger_entries`, migration 037, docs/money-operations.md#the-ledger): one row per
 * movement of money at the PSP, appended in the transaction that records it, never changed.
 * Captures and refunds are appended by `recordResult` (payment-repository.ts) in the same
 * statement that stores the PSP's answer; chargebacks and their reversals by
 * {@link appendLedgerEntry}.
 */

export type LedgerKind = 'capture' | 'refund' | 'chargeback' | 'chargeback_reversal';

/** A chargeback or its reversal, as the disputes' code records it. */
export interface DisputeLedgerEntry {
  accountId: string;
  /** The disputed payment: the entry takes its purchase, PSP, PSP account and currency. */
  paymentId: string;
  /** `chargeback` when a chargeback is lost (the money leaves the merchant); `chargeback_reversal` when it comes back. */
  kind: 'chargeback' | 'chargeback_reversal';
  /** > 0, minor units of the purchase's currency. */
  amountCents: number;
  /** The `disputes` row: at most one entry of each kind per dispute. */
  disputeId: string;
  /** When the money moved (the PSP's date, else the service clock's now). */
  occurredAt: Date;
}

/**
 * Appends a chargeback (or its reversal) to the ledger, in the caller's transaction (the one that
 * records the dispute's outcome). Idempotent per dispute and kind: a notification told twice
 * appends once. Answers whether it appended (false: already there, or no such payment in the
 * account). The reports count `chargeback` minus `chargeback_reversal` as charged back.
 */
export async function appendLedgerEntry(sql: Sql, e: DisputeLedgerEntry): Promise<boolean> {
  if (!Number.isSafeInteger(e.amountCents) || e.amountCents <= 0) throw new Error(`ledger amount must be a positive integer, got ${e.amountCents}`);
  const { rows } = await sql.query(
    `INSERT INTO ledger_entries (account_id, purchase_id, payment_id, psp, psp_account_id, kind, amount_cents, currency, dispute_id, occurred_at)
     SELECT p.account_id, p.purchase_id, p.id, p.psp, p.psp_account_id, $3, $4, pu.currency, $5, $6
       FROM payments p JOIN purchases pu ON pu.account_id = p.account_id AND pu.id = p.purchase_id
      WHERE p.account_id = $1 AND p.id = $2
     ON CONFLICT (dispute_id, kind) WHERE dispute_id IS NOT NULL DO NOTHING
     RETURNING 1`,
    [e.accountId, e.paymentId, e.kind, e.amountCents, e.disputeId, e.occurredAt],
  );
  return rows.length > 0;
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
