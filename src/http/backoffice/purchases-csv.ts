import { toPublicId } from '../../domain/ids.ts';
import { V1_STATE } from '../../domain/purchase-states.ts';
import type { PurchaseExportRow } from '../../purchases/purchase-repository.ts';

/** The export's columns, in order (docs/back-office.md lists them). */
const COLUMNS = ['id', 'reference', 'created_at', 'state', 'merchant_uid', 'title', 'amount_cents', 'currency', 'client_email', 'refunded_cents'] as const;

const FORMULA_START = /^[=+\-@\t\r]/;
/** Either rule of `csvCell` applies: one test, so that the plain text most cells hold costs one scan. */
const NEEDS_CARE = /^[=+\-@\t\r]|[",\r\n]/;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * A text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe
 * first: a spreadsheet would otherwise run it as a formula (CSV injection) — a shopper's e-mail
 * or the merchant's reference is typed by someone else than the person who opens the file.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  if (!NEEDS_CARE.test(value)) return value;
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
  return COLUMNS.join(',') + '\r\n';
}

/**
 * A purchase as one line of the export; money in integer minor units, the state as Merchant API v1
 * shows it. Only the texts someone typed (reference, title, e-mail) go through `csvCell`: ids,
 * the state, the currency code and integers never hold a comma, a quote or a formula sign, and
 * this runs for every row of an export of millions (docs/performance.md#the-csv-export).
 */
export function csvLine(p: PurchaseExportRow): string {
  return (
    `${toPublicId('pur', p.id)},${csvCell(p.ref)},${p.createdAt},${V1_STATE[p.state]},${toPublicId('mer', p.offerId)},` +
    `${csvCell(p.title)},${p.amountCents},${p.currency},${csvCell(p.clientEmail)},${p.refundedCents}\r\n`
  );
}
