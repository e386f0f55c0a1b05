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

export function payoutLineView(l: PayoutLineRow) {
  return {
    posting_id: l.posting_id,
    purchase_uid: l.purchase_id === null ? null : toPublicId('pur', l.purchase_id),
    event: l.kind,
    journal: l.journal,
    amount_cents: l.amount_cents,
    occurred_at: l.occurred_at.toISOString(),
  };
}

/** The CSV of a payout's lines: its columns, in order. */
export const PAYOUT_LINE_CSV_COLUMNS = ['payout_id', 'business_day', 'currency', 'posting_id', 'purchase_uid', 'event', 'journal', 'amount_cents', 'occurred_at'] as const;

/** A journal key is written by Chipin's code from ids: quoted should one ever hold a comma or a quote (RFC 4180). */
const quoted = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * One line of that CSV (RFC 4180, CRLF). Every cell is an id, a code, a number or a date written
 * by Chipin, none typed by anyone: nothing to keep from reading as a formula.
 */
export function payoutLineCsv(p: Pick<PayoutRow, 'id' | 'business_day' | 'currency'>, l: PayoutLineRow): string {
  const v = payoutLineView(l);
  return `${toPublicId('po', p.id)},${p.business_day},${p.currency},${v.posting_id},${v.purchase_uid ?? ''},${v.event},${quoted(v.journal)},${v.amount_cents},${v.occurred_at}\r\n`;
}
