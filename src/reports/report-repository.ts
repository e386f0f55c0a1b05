import type { Sql } from '../db/database.ts';

/**
 * The finance reports' reads (docs/money-operations.md#reports): per calendar day of the
 * account's time zone, PSP account and currency, the money the ledger (`ledger_entries`) moved,
 * the fees charged to shoppers and the purchases' outcomes. Reads only; the ledger is written by
 * `payments/payment-repository.ts` (`recordResult`) and `payments/ledger-repository.ts`.
 */

/** The purchase states a report counts, as reached that day (`purchase_events` of a move). */
export const REPORT_OUTCOMES = ['LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'ABORTED', 'REFUNDED'] as const;
type ReportOutcome = (typeof REPORT_OUTCOMES)[number];

/** Where a row of the report sits: its day, PSP account and currency (the order of the rows). */
export interface ReportKey {
  /** `YYYY-MM-DD`, a calendar day of the account's time zone. */
  day: string;
  psp: string;
  /** The merchant's PSP account; null: the built-in sandbox PSP. */
  pspAccountId: string | null;
  currency: string;
}

export interface DailyReportRow extends ReportKey {
  /** The PSP account's label, when it still exists. */
  pspAccountLabel: string | null;
  capturedCents: number;
  refundedCents: number;
  /** Chargebacks lost minus their reversals. */
  chargedBackCents: number;
  /** Fees of the installments paid that day (part of the captured amount). */
  feesCents: number;
  /** captured − refunded − charged back: the money the PSP account kept (in transfer mode the operator's, not the merchant's). */
  netCents: number;
  /**
   * What the day's purchases earned the merchant before commission: in back mode its net (the
   * money is the merchant's at its PSP); in transfer mode the purchases validated that day at their
   * amount less what they gave up that day at the merchant's expense (docs/money-operations.md#reports).
   */
  grossCents: number;
  /** The operator's commission on the transfer-mode purchases validated that day (0 in back mode). */
  commissionCents: number;
  /** gross − commission: in transfer mode what the operator came to owe the merchant that day (the day's payout lines); in back mode the net. */
  payoutCents: number;
  /** Purchases that reached each state that day. */
  outcomes: Record<ReportOutcome, number>;
}

interface Row {
  day: string;
  psp: string;
  psp_account_id: string | null;
  psp_account_label: string | null;
  currency: string;
  captured: number;
  refunded: number;
  charged_back: number;
  fees: number;
  gross: number;
  commission: number;
  leader_processed: number;
  successful: number;
  failed: number;
  cancelled: number;
  aborted: number;
  refunded_count: number;
}

/**
 * One page of the daily report of `[from, to)` (instants: the first of the first day and the first
 * of the day after the last, in `timeZone`), rows after `after` in (day, psp, PSP account,
 * currency) order; only the rows where something happened.
 *
 * Money comes from the ledger (captures, refunds, chargebacks minus reversals) by the entry's
 * `occurred_at`; fees from the installments paid (`installments.paid_at`, the day their payment
 * was captured) on the PSP account of the payment that paid them; outcomes from the purchases'
 * state moves (`purchase_events` whose state changed), on the PSP account of the purchase's first
 * payment, else its offer's. Gross and commission: a back-mode purchase's from its ledger entries
 * (gross = its net, no commission); a transfer-mode purchase's from its `balance_postings` on
 * `merchant_payable` and `commission` (a payout's own excepted) by their `occurred_at`, on the PSP
 * account of the purchase's first payment, else its offer's: what its payout lines carry.
 */
export async function dailyReportPage(
  sql: Sql,
  accountId: string,
  range: { from: Date; to: Date; timeZone: string },
  after: ReportKey | undefined,
  limit: number,
): Promise<DailyReportRow[]> {
  const key = after ? [after.day, after.psp, after.pspAccountId ?? '', after.currency] : ['', '', '', ''];
  const { rows } = await sql.query<Row>(
    `WITH RECURSIVE money AS (
       SELECT to_char(l.occurred_at AT TIME ZONE $2, 'YYYY-MM-DD') AS day, l.psp, l.psp_account_id, l.currency,
              COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'capture'), 0) AS captured,
              COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'refund'), 0) AS refunded,
              COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'chargeback'), 0)
                - COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'chargeback_reversal'), 0) AS charged_back,
              0 AS fees,
              -- Back mode: the money is the merchant's at its PSP, its gross is its net.
              COALESCE(sum(CASE l.kind WHEN 'capture' THEN l.amount_cents WHEN 'chargeback_reversal' THEN l.amount_cents ELSE -l.amount_cents END)
                FILTER (WHERE pu.payment_mode = 'back'), 0) AS gross,
              0 AS commission,
              0 AS leader_processed, 0 AS successful, 0 AS failed, 0 AS cancelled, 0 AS aborted, 0 AS refunded_count
         FROM ledger_entries l
         JOIN purchases pu ON pu.account_id = l.account_id AND pu.id = l.purchase_id
        WHERE l.account_id = $1 AND l.occurred_at >= $3 AND l.occurred_at < $4
        GROUP BY 1, 2, 3, 4
     ), currencies AS (
       -- The merchant's currencies in its balance, one index probe each (balance_postings_book_idx
       -- leads with account and currency), so that its postings are read by (currency, book, day).
       SELECT (SELECT min(currency) FROM balance_postings WHERE account_id = $1) AS currency
       UNION ALL
       SELECT (SELECT min(b.currency) FROM balance_postings b WHERE b.account_id = $1 AND b.currency > c.currency) FROM currencies c WHERE c.currency IS NOT NULL
     ), owed AS (
       -- Transfer mode: what the day's postings owe the merchant before commission (gross), and the commission.
       SELECT to_char(b.occurred_at AT TIME ZONE $2, 'YYYY-MM-DD') AS day, COALESCE(first.psp, o.psp) AS psp,
              CASE WHEN first.psp IS NULL THEN o.psp_account_id ELSE first.psp_account_id END AS psp_account_id, b.currency,
              0, 0, 0, 0,
              -sum(b.amount_cents), COALESCE(-sum(b.amount_cents) FILTER (WHERE b.book = 'commission'), 0),
              0, 0, 0, 0, 0, 0
         FROM currencies c
        CROSS JOIN (VALUES ('merchant_payable'), ('commission')) AS bk (book)
         JOIN balance_postings b ON b.account_id = $1 AND b.currency = c.currency AND b.book = bk.book AND b.occurred_at >= $3 AND b.occurred_at < $4
         JOIN purchases pu ON pu.account_id = b.account_id AND pu.id = b.purchase_id
         JOIN offers o ON o.account_id = pu.account_id AND o.id = pu.offer_id
         LEFT JOIN LATERAL (
           SELECT p.psp, p.psp_account_id FROM payments p WHERE p.account_id = pu.account_id AND p.purchase_id = pu.id ORDER BY p.created_at, p.id LIMIT 1
         ) first ON true
        WHERE b.kind NOT IN ('payout', 'payout_returned')
        GROUP BY 1, 2, 3, 4
     ), fees AS (
       SELECT to_char(i.paid_at AT TIME ZONE $2, 'YYYY-MM-DD') AS day, p.psp, p.psp_account_id, pu.currency,
              0, 0, 0, sum(i.fees_cents), 0, 0, 0, 0, 0, 0, 0, 0
         FROM installments i
         JOIN payments p ON p.account_id = i.account_id AND p.id = i.payment_id
         JOIN purchases pu ON pu.account_id = i.account_id AND pu.id = i.purchase_id
        WHERE i.account_id = $1 AND i.state = 'paid' AND i.fees_cents > 0 AND i.paid_at >= $3 AND i.paid_at < $4
        GROUP BY 1, 2, 3, 4
     ), outcomes AS (
       SELECT to_char(e.created_at AT TIME ZONE $2, 'YYYY-MM-DD') AS day, COALESCE(first.psp, o.psp) AS psp,
              CASE WHEN first.psp IS NULL THEN o.psp_account_id ELSE first.psp_account_id END AS psp_account_id, pu.currency,
              0, 0, 0, 0, 0, 0,
              count(*) FILTER (WHERE e.to_state = 'LEADER_PROCESSED'), count(*) FILTER (WHERE e.to_state = 'SUCCESSFUL'),
              count(*) FILTER (WHERE e.to_state = 'FAILED'), count(*) FILTER (WHERE e.to_state = 'CANCELLED'),
              count(*) FILTER (WHERE e.to_state = 'ABORTED'), count(*) FILTER (WHERE e.to_state = 'REFUNDED')
         FROM purchase_events e
         JOIN purchases pu ON pu.account_id = e.account_id AND pu.id = e.purchase_id
         JOIN offers o ON o.account_id = pu.account_id AND o.id = pu.offer_id
         LEFT JOIN LATERAL (
           SELECT p.psp, p.psp_account_id FROM payments p WHERE p.account_id = pu.account_id AND p.purchase_id = pu.id ORDER BY p.created_at, p.id LIMIT 1
         ) first ON true
        WHERE e.account_id = $1 AND e.created_at >= $3 AND e.created_at < $4
          AND e.from_state IS DISTINCT FROM e.to_state
          AND e.to_state IN ('LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'ABORTED', 'REFUNDED')
        GROUP BY 1, 2, 3, 4
     ), rows AS (
       SELECT day, psp, psp_account_id, currency,
              sum(captured)::bigint AS captured, sum(refunded)::bigint AS refunded, sum(charged_back)::bigint AS charged_back,
              sum(fees)::bigint AS fees, sum(gross)::bigint AS gross, sum(commission)::bigint AS commission, sum(leader_processed)::int AS leader_processed, sum(successful)::int AS successful,
              sum(failed)::int AS failed, sum(cancelled)::int AS cancelled, sum(aborted)::int AS aborted, sum(refunded_count)::int AS refunded_count
         FROM (SELECT * FROM money UNION ALL SELECT * FROM owed UNION ALL SELECT * FROM fees UNION ALL SELECT * FROM outcomes) AS parts
        GROUP BY day, psp, psp_account_id, currency
     )
     SELECT r.*, a.label AS psp_account_label
       FROM rows r LEFT JOIN psp_accounts a ON a.id = r.psp_account_id AND (a.account_id = $1 OR a.account_id IS NULL)
      WHERE (r.day COLLATE "C", r.psp COLLATE "C", COALESCE(r.psp_account_id::text, '') COLLATE "C", r.currency COLLATE "C")
            > ($5 COLLATE "C", $6 COLLATE "C", $7 COLLATE "C", $8 COLLATE "C")
      ORDER BY r.day COLLATE "C", r.psp COLLATE "C", COALESCE(r.psp_account_id::text, '') COLLATE "C", r.currency COLLATE "C"
      LIMIT $9`,
    [accountId, range.timeZone, range.from, range.to, ...key, limit],
    // Unprepared: the best plan depends on the period's length (docs/performance.md#keyset-lists-run-unprepared).
    { prepare: false },
  );
  return rows.map((r) => ({
    day: r.day,
    psp: r.psp,
    pspAccountId: r.psp_account_id,
    pspAccountLabel: r.psp_account_label,
    currency: r.currency,
    capturedCents: r.captured,
    refundedCents: r.refunded,
    chargedBackCents: r.charged_back,
    feesCents: r.fees,
    netCents: r.captured - r.refunded - r.charged_back,
    grossCents: r.gross,
    commissionCents: r.commission,
    payoutCents: r.gross - r.commission,
    outcomes: {
      LEADER_PROCESSED: r.leader_processed,
      SUCCESSFUL: r.successful,
      FAILED: r.failed,
      CANCELLED: r.cancelled,
      ABORTED: r.aborted,
      REFUNDED: r.refunded_count,
    },
  }));
}
