import { PspIntegrationError, type ListTransactionsInput, type PspRecord, type PspRecordPage, type TransactionStatus } from '../connector.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Redacted } from '../../domain/redacted.ts';
import { isKnownCurrency, parseDecimalAmount } from '../../domain/money.ts';
import { parseCsv } from '../kit/csv.ts';
import type { PspClient } from '../kit/json-call.ts';
import { statusFault } from '../kit/status-fault.ts';

/**
 * Adyen's Payment accounting report (docs.adyen.com/reporting/invoice-reconciliation/payment-accounting-report),
 * read for reconciliation (docs/psp-connectors.md#reconciliation-list-or-retrieve): downloaded by
 * the connector's `listTransactions` ({@link listFromReports}) with the outbound client directly,
 * Adyen's SDK having no call for it. One daily CSV
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
function reportFileName(day: string): string {
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
interface ReportRow {
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
class ReportFormatError extends Error {
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

const DAY_MS = 86_400_000;

/**
 * How many days before a period {@link listFromReports} reads to total the payments that moved in
 * it: a day's report holds that day's records of a payment only, and Adyen has no payment read to
 * complete them. 35 days covers a hold's life (Adyen expires authorisations after 28 days) and a
 * month of refunds; a capture, refund or chargeback of a payment booked earlier than that is not
 * counted (docs/psp-connectors.md#reconciliation-list-or-retrieve).
 */
export const ADYEN_REPORT_LOOKBACK_DAYS = 35;
/** Payments per page of {@link listFromReports} unless the connector's constructor is told otherwise. */
export const REPORT_PAGE_SIZE = 200;
/** Report files downloaded at once while totalling a page. */
const REPORT_DOWNLOADS_AT_ONCE = 4;
/**
 * A day's report of a busy merchant account is far larger than an API answer (about 300 bytes a
 * record, several records a payment): read up to 64 MiB, within a minute.
 */
const REPORT_MAX_BYTES = 64 * 1_048_576;
const REPORT_TIMEOUT_MS = 60_000;
/**
 * Rows of the reports one run keeps read between its pages (each page totals its payments over
 * the same days): past this, a day's report is read again by each page that needs it,
 * so a busy account's run holds about this many rows at most, not every day's.
 */
const REPORT_CACHE_MAX_ROWS = 200_000;

/** The reports a run has read, by day, for its next pages: one period's, up to {@link REPORT_CACHE_MAX_ROWS} rows. */
interface ReportCache {
  period: string;
  days: Map<string, ReportRow[]>;
  rows: number;
}

/**
 * What reading the reports takes of a connector: its outbound client and clock, where and for
 * which merchant account the reports are downloaded, with which credential, the page size; and
 * `cache`, the current run's reports, which {@link listFromReports} replaces when a run starts.
 */
export interface ReportReading {
  readonly client: PspClient;
  readonly clock: Clock;
  /** The Customer Area's origin ({@link reportBaseUrl}). */
  readonly baseUrl: string;
  readonly merchantAccount: string;
  readonly keys: Redacted<{ reportApiKey: string }>;
  readonly pageSize: number;
  cache: ReportCache | undefined;
}

/**
 * Where the merchant account's reports are downloaded (docs.adyen.com/reporting/automatically-get-reports:
 * `https://ca-test.adyen.com/reports/download/MerchantAccount/…`; live, the Customer Area's live
 * host `ca-live.adyen.com`): Adyen's Customer Area host of the environment the Checkout API base
 * URL belongs to, or, for any other base URL (a local fake, an operator's own endpoint), that URL's
 * origin.
 */
export function reportBaseUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  if (u.hostname === 'checkout-test.adyen.com') return 'https://ca-test.adyen.com';
  if (u.hostname.endsWith('-checkout-live.adyenpayments.com')) return 'https://ca-live.adyen.com';
  return u.origin;
}

/** `YYYY-MM-DD` of a UTC instant. */
function utcDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
/** The UTC calendar days that `[from, to)` touches, oldest first. */
function daysOf(from: Date, to: Date): string[] {
  const days: string[] = [];
  if (to.getTime() <= from.getTime()) return days;
  const last = Date.parse(`${utcDay(to.getTime() - 1)}T00:00:00Z`);
  for (let d = Date.parse(`${utcDay(from.getTime())}T00:00:00Z`); d <= last; d += DAY_MS) days.push(utcDay(d));
  return days;
}

/**
 * The connector's `listTransactions`: the payments that moved in `[from, to)` with their totals,
 * from Adyen's daily Payment accounting reports (docs/psp-connectors.md#reconciliation-list-or-retrieve).
 * The cursor walks the period's days (`YYYY-MM-DD:<offset>`): a page is up to `pageSize` of the
 * payments a day's report shows, by Psp Reference; each is totalled over the reports of
 * {@link ADYEN_REPORT_LOOKBACK_DAYS} days before the period and of every day of the period.
 * A period day whose report Adyen does not have yet (404: generated the next morning) and a
 * 5xx are `unreachable`, so the run resumes at this page later; a lookback day without a report
 * counts as a day without records (the report did not exist then). An answer that is not the
 * report is `bad_response`; refused report credentials, or none saved, `bad_credentials`.
 */
export async function listFromReports(reading: ReportReading, input: ListTransactionsInput): Promise<PspRecordPage> {
  const days = daysOf(input.from, input.to);
  if (days.length === 0) return { records: [], nextCursor: null };
  const [day, offset] = parseReportCursor(input.cursor, days);
  // One run reads the same days for each of its pages: kept from its first page (a new first
  // page, or another period, starts afresh).
  const period = `${input.from.toISOString()}/${input.to.toISOString()}`;
  if (input.cursor === null || reading.cache?.period !== period) reading.cache = { period, days: new Map(), rows: 0 };
  const cache = reading.cache;
  const dayRows = await report(reading, day, true, cache);
  const moved = [...new Set(dayRows.map((r) => r.pspReference))].sort();
  const ids = moved.slice(offset, offset + reading.pageSize);
  const following = days[days.indexOf(day) + 1];
  const nextCursor = offset + reading.pageSize < moved.length ? `${day}:${offset + reading.pageSize}` : following ? `${following}:0` : null;
  if (ids.length === 0) return { records: [], nextCursor };
  const first = Date.parse(`${days[0]}T00:00:00Z`);
  const window: string[] = [];
  for (let n = ADYEN_REPORT_LOOKBACK_DAYS; n >= 1; n--) window.push(utcDay(first - n * DAY_MS));
  window.push(...days);
  // The reports after the period too, up to today's (not there yet: a day without records), so
  // that totals are as current as Chipin's, which the run compares them with: a refund made
  // the morning after the period is then not a mismatch.
  const today = utcDay(reading.clock.now().getTime());
  for (let d = Date.parse(`${days[days.length - 1]}T00:00:00Z`) + DAY_MS, n = 0; utcDay(d) <= today && n < ADYEN_REPORT_LOOKBACK_DAYS; d += DAY_MS, n++) window.push(utcDay(d));
  // Each day's rows of this page's payments only, as soon as it is read.
  const only = new Set(ids);
  const rows: ReportRow[] = [];
  for (let i = 0; i < window.length; i += REPORT_DOWNLOADS_AT_ONCE) {
    const chunk = window.slice(i, i + REPORT_DOWNLOADS_AT_ONCE);
    for (const read of await Promise.all(chunk.map((d) => (d === day ? dayRows : report(reading, d, days.includes(d), cache))))) {
      for (const r of read) if (only.has(r.pspReference)) rows.push(r);
    }
  }
  const records = recordsOf(rows, only);
  return { records: ids.map((id) => records.get(id)!), nextCursor };
}

/**
 * One day's Payment accounting report of the merchant account, downloaded as Adyen documents
 * (`GET {Customer Area}/reports/download/MerchantAccount/{account}/{file}` with the report
 * credential's `X-API-Key`). `required`: a day of the period, whose missing report (404) is
 * `unreachable`; otherwise a missing report is a day without records. Kept in the run's `cache`
 * while it has room: a report read, and a report missing for a day two days past (Adyen makes a
 * day's the next morning: it will not come).
 */
async function report(reading: ReportReading, day: string, required: boolean, cache: ReportCache): Promise<ReportRow[]> {
  const kept = cache.days.get(day);
  if (kept) return kept;
  const rows = await downloadReport(reading, day, required);
  const settled = rows !== undefined || day <= utcDay(reading.clock.now().getTime() - 2 * DAY_MS);
  if (settled && cache.rows + (rows?.length ?? 0) <= REPORT_CACHE_MAX_ROWS) {
    cache.days.set(day, rows ?? []);
    cache.rows += rows?.length ?? 0;
  }
  return rows ?? [];
}

/** One day's report as read; undefined: Adyen has none (404) for a day not `required`. */
async function downloadReport(reading: ReportReading, day: string, required: boolean): Promise<ReportRow[] | undefined> {
  const op = 'list_transactions';
  const fault = (code: PspIntegrationError['code'], message: string) => new PspIntegrationError('adyen', code, message);
  const key = reading.keys.reveal().reportApiKey;
  if (!key) throw fault('bad_credentials', `${op}: no report_api_key is saved for this account: Adyen's reports cannot be downloaded`);
  const url = `${reading.baseUrl}/reports/download/MerchantAccount/${encodeURIComponent(reading.merchantAccount)}/${reportFileName(day)}`;
  const res = await reading.client.request(op, url, { method: 'GET', headers: { 'X-API-Key': key, Accept: 'text/csv' }, timeoutMs: REPORT_TIMEOUT_MS, maxBytes: REPORT_MAX_BYTES });
  if (res.status === 404) {
    if (required) throw fault('unreachable', `${op}: Adyen has no payment accounting report for ${day} yet`);
    return undefined;
  }
  const status = statusFault('adyen', op, res.status);
  if (status) throw status;
  if (res.status !== 200) throw fault('bad_response', `${op}: the report of ${day} answered HTTP ${res.status}`);
  try {
    return readReport(res.text, reading.merchantAccount);
  } catch (err) {
    if (err instanceof ReportFormatError) throw fault('bad_response', `${op}: the report of ${day} cannot be read: ${err.message}`);
    throw err;
  }
}

/** A cursor of {@link listFromReports}: a day of the period and an offset into its payments. */
function parseReportCursor(cursor: string | null, days: readonly string[]): [string, number] {
  if (cursor === null) return [days[0]!, 0];
  const m = /^(\d{4}-\d{2}-\d{2}):(\d{1,9})$/.exec(cursor);
  if (!m || !days.includes(m[1]!)) throw new RangeError(`adyen: ${JSON.stringify(cursor)} is not a cursor of this period`);
  return [m[1]!, Number(m[2])];
}
