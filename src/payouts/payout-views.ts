import type { JournalKind } from '../domain/balance-books.ts';
import { toPublicId } from '../domain/ids.ts';
import type { PayoutLineRow, PayoutRow } from './payout-repository.ts';

/**
 * A payout and its lines as the back office's API, CSV and pages show them
 * (docs/back-office.md#payouts): one shape for all three.
 */

export function payoutView(p: PayoutRow) {
  return {
    id: toPublicId('po', p.id),
    currency: p.currency,
    business_day: p.business_day,
    amount_cents: p.amount_cents,
    line_count: p.line_count,
    status: p.status,
    created_at: p.created_at.toISOString(),
    exported_at: p.exported_at?.toISOString() ?? null,
    sent_at: p.sent_at?.toISOString() ?? null,
    returned_at: p.returned_at?.toISOString() ?? null,
  };
}

/**
 * Every event a payout line can carry: the journal kinds that book on `merchant_payable`, a payout's
 * own excepted (docs/money-operations.md#bookings-per-event). `plan_cancelled` is what a shopper will
 * no longer pay: the purchase cancelled or refunded with installments still owed (journal
 * `plan_cancelled:…`), or a refund that lowered installments not collected yet (journal `lowered:…`).
 */
export const PAYOUT_LINE_EVENTS = [
  'validated',
  'refund',
  'chargeback',
  'chargeback_reversal',
  'plan_cancelled',
  'credit_by_transfer',
  'payout_returned',
] as const satisfies readonly JournalKind[];

/** A payout's totals from its lines: gross − commission = payout = `amount_cents`. */
export function payoutTotalsView(p: Pick<PayoutRow, 'amount_cents'> & { commission_cents: number }) {
  return { gross_cents: p.amount_cents + p.commission_cents, commission_cents: p.commission_cents, payout_cents: p.amount_cents };
}

/**
 * A line: `gross_cents` what its event earns or takes from the merchant before commission,
 * `commission_cents` the operator's commission its journal booked (only a validated purchase's),
 * `payout_cents` = gross − commission, what it adds to the payout (also `amount_cents`, its first name).
 */
export function payoutLineView(l: PayoutLineRow) {
  return {
    posting_id: l.posting_id,
    purchase_uid: l.purchase_id === null ? null : toPublicId('pur', l.purchase_id),
    // A line is a merchant_payable posting, a payout's own excepted: its kind is one of these (the database's check on kind).
    event: l.kind as (typeof PAYOUT_LINE_EVENTS)[number],
    journal: l.journal,
    amount_cents: l.amount_cents,
    gross_cents: l.amount_cents + l.commission_cents,
    commission_cents: l.commission_cents,
    payout_cents: l.amount_cents,
    occurred_at: l.occurred_at.toISOString(),
  };
}

/** The CSV of a payout's lines: its columns, in order (the figures added later come last, so the first ones keep their places). */
export const PAYOUT_LINE_CSV_COLUMNS = [
  'payout_id',
  'business_day',
  'currency',
  'posting_id',
  'purchase_uid',
  'event',
  'journal',
  'amount_cents',
  'occurred_at',
  'gross_cents',
  'commission_cents',
  'payout_cents',
] as const;

/** A journal key is written by Chipin's code from ids: quoted should one ever hold a comma or a quote (RFC 4180). */
const quoted = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * One line of that CSV (RFC 4180, CRLF). Every cell is an id, a code, a number or a date written
 * by Chipin, none typed by anyone: nothing to keep from reading as a formula.
 */
export function payoutLineCsv(p: Pick<PayoutRow, 'id' | 'business_day' | 'currency'>, l: PayoutLineRow): string {
  const v = payoutLineView(l);
  return `${toPublicId('po', p.id)},${p.business_day},${p.currency},${v.posting_id},${v.purchase_uid ?? ''},${v.event},${quoted(v.journal)},${v.amount_cents},${v.occurred_at},${v.gross_cents},${v.commission_cents},${v.payout_cents}\r\n`;
}
