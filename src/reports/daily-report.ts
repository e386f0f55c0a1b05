import { addDays, DAY_RULE, isDay } from '../domain/dates.ts';
import { isUuid, toPublicId } from '../domain/ids.ts';
import { zonedMidnight } from '../i18n/format.ts';
import { REPORT_OUTCOMES, type DailyReportRow, type ReportKey } from './report-repository.ts';

/**
 * The daily report's rules shared by its JSON API, its CSV and its back-office page
 * (docs/money-operations.md#reports): the period asked for, the cursor, and a row's shapes.
 */

/** The longest period one request may ask for, in days (both ends included). */
export const MAX_REPORT_DAYS = 366;

export type ReportPeriod = { ok: true; from: string; to: string; range: { from: Date; to: Date; timeZone: string } } | { ok: false; field: 'from' | 'to'; message: string };

/**
 * The period of `from` to `to` (both `YYYY-MM-DD`, included) in the account's time zone, as the
 * instants the repository reads between; or which field is wrong and why.
 */
export function reportPeriod(query: { from?: string; to?: string }, timeZone: string): ReportPeriod {
  const bad = (field: 'from' | 'to', message: string): ReportPeriod => ({ ok: false, field, message: `query parameter ${field} ${message}` });
  if (query.from === undefined) return bad('from', 'is required');
  if (query.to === undefined) return bad('to', 'is required');
  // The days any route may name (src/domain/dates.ts): one rule for the report, the risk decisions, the purchases list and reconciliation.
  if (!isDay(query.from)) return bad('from', `must be ${DAY_RULE}`);
  if (!isDay(query.to)) return bad('to', `must be ${DAY_RULE}`);
  if (query.to < query.from) return bad('to', 'must be on or after from');
  const days = (Date.parse(`${query.to}T00:00:00Z`) - Date.parse(`${query.from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days > MAX_REPORT_DAYS) return bad('to', `must be at most ${MAX_REPORT_DAYS} days from from (both included)`);
  return {
    ok: true,
    from: query.from,
    to: query.to,
    range: { from: zonedMidnight(query.from, timeZone), to: zonedMidnight(addDays(query.to, 1), timeZone), timeZone },
  };
}

/** Opaque cursor: the key of the last row of a page. */
export function encodeReportCursor(k: ReportKey): string {
  return Buffer.from(JSON.stringify([k.day, k.psp, k.pspAccountId, k.currency])).toString('base64url');
}

export function decodeReportCursor(cursor: string): ReportKey | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 4) return undefined;
    const [day, psp, pspAccountId, currency] = v as unknown[];
    if (typeof day !== 'string' || !isDay(day) || typeof psp !== 'string' || psp.length > 40 || typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return undefined;
    if (pspAccountId !== null && (typeof pspAccountId !== 'string' || !isUuid(pspAccountId))) return undefined;
    return { day, psp, pspAccountId, currency };
  } catch {
    return undefined;
  }
}

/** A row as the JSON API answers it. */
export function reportRowJson(r: DailyReportRow) {
  return {
    day: r.day,
    psp: r.psp,
    psp_account_id: r.pspAccountId === null ? null : toPublicId('psa', r.pspAccountId),
    psp_account_label: r.pspAccountLabel,
    currency: r.currency,
    captured_cents: r.capturedCents,
    refunded_cents: r.refundedCents,
    charged_back_cents: r.chargedBackCents,
    fees_cents: r.feesCents,
    net_cents: r.netCents,
    gross_cents: r.grossCents,
    commission_cents: r.commissionCents,
    payout_cents: r.payoutCents,
    purchases: Object.fromEntries(REPORT_OUTCOMES.map((o) => [o.toLowerCase(), r.outcomes[o]])) as Record<Lowercase<(typeof REPORT_OUTCOMES)[number]>, number>,
  };
}

/** The CSV's columns, in order (docs/money-operations.md#reports lists them). */
export const REPORT_CSV_COLUMNS = [
  'day',
  'time_zone',
  'psp',
  'psp_account_id',
  'psp_account_label',
  'currency',
  'captured_cents',
  'refunded_cents',
  'charged_back_cents',
  'fees_cents',
  'net_cents',
  ...REPORT_OUTCOMES.map((o) => `purchases_${o.toLowerCase()}`),
  // Added after the outcomes, so that the columns before keep their places.
  'gross_cents',
  'commission_cents',
  'payout_cents',
] as const;

/** A row's CSV cells, in {@link REPORT_CSV_COLUMNS} order (the caller quotes them). */
export function reportCsvCells(r: DailyReportRow, timeZone: string): (string | number | null)[] {
  const j = reportRowJson(r);
  return [
    j.day,
    timeZone,
    j.psp,
    j.psp_account_id,
    j.psp_account_label,
    j.currency,
    j.captured_cents,
    j.refunded_cents,
    j.charged_back_cents,
    j.fees_cents,
    j.net_cents,
    ...REPORT_OUTCOMES.map((o) => r.outcomes[o]),
    j.gross_cents,
    j.commission_cents,
    j.payout_cents,
  ];
}
