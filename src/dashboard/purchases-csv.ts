import { toPublicId } from '../domain/ids.ts';
import { V1_STATE } from '../domain/purchase-states.ts';
import type { Purchase } from '../purchases/purchase.ts';

/** The export's columns, in order (docs/back-office.md lists them). */
const COLUMNS = ['id', 'reference', 'created_at', 'state', 'merchant_uid', 'title', 'amount_cents', 'currency', 'client_email', 'refunded_cents'] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * A text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe
 * first: a spreadsheet would otherwise run it as a formula (CSV injection) — a shopper's e-mail
 * or the merchant's reference is typed by someone else than the person who opens the file.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
  return COLUMNS.join(',') + '\r\n';
}

/** A purchase as one line of the export; money in integer minor units, the state as Merchant API v1 shows it. */
export function csvLine(p: Purchase): string {
  const cells = [
    toPublicId('pur', p.id),
    p.ref,
    p.createdAt.toISOString(),
    V1_STATE[p.state],
    toPublicId('mer', p.offerId),
    p.title,
    p.amountCents,
    p.currency,
    p.client.email,
    p.refundedCents,
  ];
  return cells.map(csvCell).join(',') + '\r\n';
}
