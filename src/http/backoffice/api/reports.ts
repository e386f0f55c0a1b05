import { Type } from 'typebox';
import { streamCsvExport } from '../../csv-export.ts';
import { ApiError } from '../../errors.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { TokenApiError } from '../../routes/schemas.ts';
import type { App } from '../../types.ts';
import { DEFAULT_TIME_ZONE } from '../../../i18n/format.ts';
import { decodeReportCursor, encodeReportCursor, REPORT_CSV_COLUMNS, reportCsvCells, reportPeriod, reportRowJson, MAX_REPORT_DAYS } from '../../../reports/daily-report.ts';
import type { Services } from '../../../services.ts';
import { dailyReportRows, type DailyReportRow, type ReportKey } from '../../../use-cases/back-office/finance-report.ts';
import { csvCell } from '../purchases-csv.ts';
import { BackofficeErrors } from './webhook.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (docs/authentication.md). Admins only (docs/back-office.md#roles).';
/** Rows read per query of the CSV export: memory stays this small whatever the period's size. */
const EXPORT_BATCH = 200;
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', examples: ['2026-11-01'] });
// Optional in the schema, required by the handler: a request without credentials is answered 401
// before its query is judged.
const Range = {
  from: Type.Optional(Type.String({ ...Day, description: `Required. First day, inclusive, in the account’s time zone (\`YYYY-MM-DD\`)` })),
  to: Type.Optional(Type.String({ ...Day, description: `Required. Last day, inclusive, in the account’s time zone; at most ${MAX_REPORT_DAYS} days with from` })),
};
const Count = Type.Integer({ minimum: 0 });
const ReportRow = Type.Object(
  {
    day: Type.String({ description: 'The calendar day, in the account’s time zone (`time_zone`)' }),
    psp: Type.String({ description: 'The PSP connector (`sandbox`, `stripe` …)' }),
    psp_account_id: Type.Union([Type.String(), Type.Null()], { description: 'The merchant’s PSP account (`psa_…`); null: the built-in sandbox PSP' }),
    psp_account_label: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String({ description: 'ISO 4217; every amount of the row is in its minor units' }),
    captured_cents: Type.Integer({ description: 'Captured that day (the ledger’s `capture` entries)' }),
    refunded_cents: Type.Integer({ description: 'Refunded that day' }),
    charged_back_cents: Type.Integer({ description: 'Lost chargebacks minus their reversals that day' }),
    fees_cents: Type.Integer({ description: 'Fees charged to shoppers by the installments paid that day (part of `captured_cents`)' }),
    net_cents: Type.Integer({
      description:
        'captured − refunded − charged back: what the PSP account kept. In transfer mode that is the operator’s collecting account, so it is what the operator holds, not what the merchant is paid (see `payout_cents`)',
    }),
    gross_cents: Type.Integer({
      description:
        'What the day earned the merchant before commission. Back mode: the net of its back-mode purchases (the money is the merchant’s at its PSP). Transfer mode: the purchases validated that day at their amount, less what purchases gave up that day at the merchant’s expense (refunds, lost chargebacks net of reversals, installments cancelled, refunds by transfer) (docs/money-operations.md#reports)',
    }),
    commission_cents: Type.Integer({ description: 'The operator’s commission on the transfer-mode purchases validated that day; 0 in back mode' }),
    payout_cents: Type.Integer({
      description:
        'gross − commission. Transfer mode: what the operator came to owe the merchant that day, the sum of that day’s payout lines. Back mode: the net, paid by the merchant’s own PSP',
    }),
    purchases: Type.Object(
      { leader_processed: Count, successful: Count, failed: Count, cancelled: Count, aborted: Count, refunded: Count },
      { description: 'Purchases that reached each state that day' },
    ),
  },
  { title: 'DailyReportRow' },
);

/**
 * Back office: the account's daily finance report (docs/money-operations.md#reports), as JSON
 * pages with a cursor or as one CSV streamed in constant memory. Days are the account's calendar
 * days, and the answer says which time zone. Admins only (src/http/backoffice/roles.ts).
 */
export function registerBackofficeReports(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const db = services.reads;

  async function periodOf(accountId: string, query: { from?: string; to?: string }) {
    const timeZone = (await services.accounts.profileOf(accountId))?.timeZone ?? DEFAULT_TIME_ZONE;
    const period = reportPeriod(query, timeZone);
    if (!period.ok) throw invalid(period.message);
    return period;
  }

  app.get(
    '/api/backoffice/reports/daily',
    {
      schema: {
        tags: ['back office'],
        summary: 'The daily finance report of a period',
        description: `${AUTH_NOTE} One row per day, PSP account and currency where money moved or a purchase reached an outcome, oldest first, paged with an opaque cursor (\`next_cursor\`); the same rows as CSV at \`/api/backoffice/reports/daily.csv\`.`,
        security: SECURITY,
        querystring: Type.Object(
          {
            ...Range,
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            cursor: Type.Optional(Type.String({ maxLength: 400 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            time_zone: Type.String({ description: 'The account’s time zone (IANA), in which the days are counted' }),
            from: Type.String(),
            to: Type.String(),
            data: Type.Array(ReportRow),
            has_more: Type.Boolean(),
            next_cursor: Type.Optional(Type.String()),
          }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { limit = 100, cursor } = request.query;
      const after: ReportKey | undefined = cursor === undefined ? undefined : decodeReportCursor(cursor);
      if (cursor !== undefined && !after) throw invalid('query parameter cursor is not a cursor this API gave');
      const period = await periodOf(accountId, request.query);
      const rows = await dailyReportRows(db, accountId, period.range, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return {
        time_zone: period.range.timeZone,
        from: period.from,
        to: period.to,
        data: page.map(reportRowJson),
        has_more: rows.length > limit,
        ...(rows.length > limit && last ? { next_cursor: encodeReportCursor(last) } : {}),
      };
    },
  );

  app.get(
    '/api/backoffice/reports/daily.csv',
    {
      schema: {
        tags: ['back office'],
        summary: 'The daily finance report of a period as CSV',
        description: `${AUTH_NOTE} RFC 4180, oldest first, the whole period in one streamed file; columns: ${REPORT_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')} (docs/money-operations.md#reports).`,
        security: SECURITY,
        querystring: Type.Object(Range, { additionalProperties: false }),
        produces: ['text/csv'],
        response: {
          200: { description: 'The CSV file (`text/csv; charset=utf-8`, an attachment)', content: { 'text/csv': { schema: Type.String() } } },
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const period = await periodOf(accountId, request.query);
      return streamCsvExport<DailyReportRow>(reply, {
        filename: `chipin-daily-report-${period.from}-${period.to}.csv`,
        header: REPORT_CSV_COLUMNS.join(',') + '\r\n',
        batch: EXPORT_BATCH,
        page: (last) => dailyReportRows(db, accountId, period.range, last, EXPORT_BATCH),
        line: (r) => reportCsvCells(r, period.range.timeZone).map(csvCell).join(',') + '\r\n',
      });
    },
  );
}
