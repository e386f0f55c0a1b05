import { addDays } from '../../../domain/dates.ts';
import { zonedDay } from '../../../i18n/format.ts';
import { reportPeriod } from '../../../reports/daily-report.ts';
import type { Services } from '../../../services.ts';
import { dailyReportRows } from '../../../use-cases/back-office/finance-report.ts';
import type { App } from '../../types.ts';
import { reportsPage } from '../pages/reports-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { sendPage, signedIn } from './support.ts';

const PAGE = { schema: { hide: true } };
/** Rows the page shows at most; the CSV has the whole period. */
const PAGE_ROWS = 1000;
/** The period shown when none is asked: the last 30 days, today included. */
const DEFAULT_DAYS = 30;

/**
 * Back office: the daily finance report (admins, docs/money-operations.md#reports), its period in
 * the query (`from`, `to`: days of the account's time zone; the last 30 days by default). A period
 * refused answers 400 with the form and the message naming the field.
 */
export function registerDashboardReports(app: App, services: Services, sessions: DashboardSessions): void {
  app.get<{ Querystring: { from?: string; to?: string } }>('/dashboard/reports', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { chrome } = ctx;
    const today = zonedDay(services.clock.now(), chrome.timeZone);
    const asked = {
      from: typeof request.query.from === 'string' && request.query.from ? request.query.from.slice(0, 20) : addDays(today, 1 - DEFAULT_DAYS),
      to: typeof request.query.to === 'string' && request.query.to ? request.query.to.slice(0, 20) : today,
    };
    const period = reportPeriod(asked, chrome.timeZone);
    if (!period.ok) return sendPage(reply, 400, reportsPage(chrome, { ...asked, rows: [], truncated: false, error: period.message }));
    const rows = await dailyReportRows(services.reads, ctx.session.accountId, period.range, undefined, PAGE_ROWS + 1);
    return sendPage(reply, 200, reportsPage(chrome, { from: period.from, to: period.to, rows: rows.slice(0, PAGE_ROWS), truncated: rows.length > PAGE_ROWS ? PAGE_ROWS : false }));
  });
}
