import type { PspRecord, TransactionStatus } from '../connector.ts';
import { isKnownCurrency, parseDecimalAmount } from '../../domain/money.ts';
import { parseCsv } from '../kit/csv.ts';

/**
 * Adyen's Payment accounting report (docs.adyen.com/reporting/invoice-reconciliation/payment-accounting-report),
 * read for reconciliation (docs/psp-connectors.md#reconciliation-list-or-retrieve): one daily CSV
 * file, `payments_accounting_report_YYYY_MM_DD.csv`, a header line then one line per status change
 * (record) of a payment or of one of its modifications, each naming the payment's `Psp Reference`.
 *
 * Columns are found by their header name (Adyen lets the merchant add and reorder columns). The
 * sign of the amount columns is not stated in Adyen's public reference, so it is never read: each
 * record type counts the magnitude of the one column that holds its amount, with the direction the
 * type itself says (a refund adds to what was refunded, a reversed chargeback takes back from the
 * charged-back total).
 */

/** The daily file of a UTC calendar day `YYYY-MM-DD`. */
export function reportFileName(day: string): string {
  return `payments_accounting_report_${day.replace(/-/g, '_')}.csv`;
}

/** The columns read; a file without one of them is not the report we read (`bad_response`). */
const REPORT_COLUMNS = ['Merchant Account', 'Psp Reference', 'Record Type', 'Payment Currency', 'Authorised (PC)', 'Captured (PC)'] as const;

/** What one record type does to a payment's totals, and from which column. */
type Effect =
  | { kind: 'authorised' }
  | { kind: 'ends'; status: 'voided' | 'expired' | 'declined' }
  | { kind: 'amount'; total: 'captured' | 'refunded' | 'chargedBack'; sign: 1 | -1 }
  | { kind: 'none' };

/**
 * The record types of the report and what each does (docs.adyen.com/reporting/reports-and-the-payments-lifecycle
 * and docs.adyen.com/account/payments-lifecycle). Money is counted once, when Adyen records the
 * request (SentForSettle, SentForRefund), as Chipin does: the later Settled and Refunded records
 * of the same money move nothing here. Amounts of captures, refunds and chargebacks are in
 * `Captured (PC)`, the authorisation's in `Authorised (PC)` (payment currency).
 */
const EFFECTS: Readonly<Record<string, Effect>> = {
  Authorised: { kind: 'authorised' },
  SentForSettle: { kind: 'amount', total: 'captured', sign: 1 },
  CaptureFailed: { kind: 'amount', total: 'captured', sign: -1 },
  SentForRefund: { kind: 'amount', total: 'refunded', sign: 1 },
  RefundFailed: { kind: 'amount', total: 'refunded', sign: -1 },
  RefundedReversed: { kind: 'amount', total: 'refunded', sign: -1 },
  Chargeback: { kind: 'amount', total: 'chargedBack', sign: 1 },
  SecondChargeback: { kind: 'amount', total: 'chargedBack', sign: 1 },
  ChargebackReversed: { kind: 'amount', total: 'chargedBack', sign: -1 },
  Cancelled: { kind: 'ends', status: 'voided' },
  Expired: { kind: 'ends', status: 'expired' },
  Refused: { kind: 'ends', status: 'declined' },
  Error: { kind: 'ends', status: 'declined' },
};

/** One line of the report, as read. */
export interface ReportRow {
  pspReference: string;
  recordType: string;
  currency: string;
  /** Magnitude of `Authorised (PC)` in minor units; undefined when empty. */
  authorised: number | undefined;
  /** Magnitude of `Captured (PC)` in minor units; undefined when empty. */
  captured: number | undefined;
  /** Magnitude of `Received (PC)` (the amount asked), when the file has the column and the row a value. */
  received: number | undefined;
}

/** Why a file cannot be read; the connector turns it into `bad_response`. */
export class ReportFormatError extends Error {
  override readonly name = 'ReportFormatError';
}

/**
 * An amount of the report (`12.34`, `-12.34`, `0`) as the magnitude in minor units. Zeros past the
 * currency's decimals say nothing (`10.00` JPY is 10, `12.340` EUR 1234): dropped before the
 * decimals are checked; a digit other than 0 there is not an amount.
 */
function magnitude(text: string, currency: string, where: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const unsigned = t.startsWith('-') || t.startsWith('+') ? t.slice(1) : t;
  const significant = unsigned.includes('.') ? unsigned.replace(/0+$/, '').replace(/\.$/, '') : unsigned;
  const cents = /^[+-]?\d+(?:\.\d+)?$/.test(t) ? parseDecimalAmount(significant, currency) : undefined;
  if (cents === undefined) throw new ReportFormatError(`${where}: "${t}" is not an amount in ${currency}`);
  return cents;
}

/**
 * The rows of one daily file of `merchantAccount`. A file made for a company account may hold
 * several merchant accounts: the others' rows are left out.
 */
export function readReport(text: string, merchantAccount: string): ReportRow[] {
  const records = parseCsv(text);
  if (!records || records.length === 0) throw new ReportFormatError('the report is not CSV');
  const header = records[0]!.map((h) => h.trim());
  const at = Object.fromEntries(REPORT_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<(typeof REPORT_COLUMNS)[number], number>;
  const receivedAt = header.indexOf('Received (PC)');
  const missing = REPORT_COLUMNS.filter((c) => at[c] < 0);
  if (missing.length > 0) throw new ReportFormatError(`the report has no column ${missing.map((m) => `"${m}"`).join(', ')}`);
  const rows: ReportRow[] = [];
  for (let n = 1; n < records.length; n++) {
    const r = records[n]!;
    if (r.length === 1 && r[0] === '') continue; // a blank line
    if (r.length !== header.length) throw new ReportFormatError(`line ${n + 1} has ${r.length} fields, the header ${header.length}`);
    if (r[at['Merchant Account']]!.trim() !== merchantAccount) continue;
    const pspReference = r[at['Psp Reference']]!.trim();
    const recordType = r[at['Record Type']]!.trim();
    const currency = r[at['Payment Currency']]!.trim();
    if (!/^[A-Za-z0-9]{1,64}$/.test(pspReference) || recordType === '') throw new ReportFormatError(`line ${n + 1} has no Psp Reference or Record Type`);
    if (!isKnownCurrency(currency)) throw new ReportFormatError(`line ${n + 1}: unknown Payment Currency "${currency}"`);
    const where = `line ${n + 1}`;
    rows.push({
      pspReference,
      recordType,
      currency,
      authorised: magnitude(r[at['Authorised (PC)']]!, currency, where),
      captured: magnitude(r[at['Captured (PC)']]!, currency, where),
      received: receivedAt < 0 ? undefined : magnitude(r[receivedAt]!, currency, where),
    });
  }
  return rows;
}

/** A payment's totals as its rows add up, in the order of the days they were booked. */
interface Totals {
  currency: string;
  authorised: number | undefined;
  received: number | undefined;
  captured: number;
  refunded: number;
  chargedBack: number;
  ended: 'voided' | 'expired' | 'declined' | undefined;
  /** A refund or chargeback row was read: the payment was captured, maybe before the rows read. */
  settledBefore: boolean;
}

/**
 * Each payment's record from its rows (oldest first): the sums of what its record types moved, its
 * status from them. `amountCents` is the authorised amount when the rows show the authorisation,
 * else the amount asked (`Received (PC)`, a refused payment's), else what was captured (the
 * authorisation was booked before the rows read).
 */
export function recordsOf(rows: readonly ReportRow[], only: ReadonlySet<string>): Map<string, PspRecord> {
  const totals = new Map<string, Totals>();
  for (const row of rows) {
    if (!only.has(row.pspReference)) continue;
    let t = totals.get(row.pspReference);
    if (!t) {
      t = { currency: row.currency, authorised: undefined, received: undefined, captured: 0, refunded: 0, chargedBack: 0, ended: undefined, settledBefore: false };
      totals.set(row.pspReference, t);
    }
    if (row.received !== undefined) t.received = row.received;
    const effect = EFFECTS[row.recordType] ?? { kind: 'none' };
    switch (effect.kind) {
      case 'authorised':
        t.authorised = row.authorised ?? t.authorised;
        break;
      case 'ends':
        t.ended = effect.status;
        break;
      case 'amount': {
        const v = (row.captured ?? 0) * effect.sign;
        if (effect.total === 'captured') t.captured += v;
        else if (effect.total === 'refunded') t.refunded += v;
        else t.chargedBack += v;
        if (effect.total !== 'captured') t.settledBefore = true;
        break;
      }
      case 'none':
        break;
    }
  }
  const out = new Map<string, PspRecord>();
  for (const [transactionId, t] of totals) {
    const captured = Math.max(0, t.captured);
    const refunded = Math.max(0, t.refunded);
    // Neither authorised nor ended in the rows read: received, awaiting the shopper (3-D Secure).
    // Only refund or chargeback rows (the capture booked before the lookback): money was taken, so captured.
    const status: TransactionStatus =
      refunded > 0 ? 'refunded' : captured > 0 || t.settledBefore ? 'captured' : (t.ended ?? (t.authorised !== undefined ? 'authorized' : 'requires_action'));
    out.set(transactionId, {
      transactionId,
      status,
      currency: t.currency,
      amountCents: t.authorised ?? t.received ?? captured,
      capturedCents: captured,
      refundedCents: refunded,
      chargedBackCents: Math.max(0, t.chargedBack),
    });
  }
  return out;
}
