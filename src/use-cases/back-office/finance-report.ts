import type { Sql } from '../../db/database.ts';
import { dailyReportPage, type DailyReportRow, type ReportKey } from '../../reports/report-repository.ts';

/**
 * The account's daily finance report as the back office reads it (docs/money-operations.md#reports):
 * rows of a period in (day, PSP account, currency) order, a page at a time, for
 * `GET /api/backoffice/reports/daily`, its CSV and the Reports page. The period, the cursor and a
 * row's shapes are `reports/daily-report.ts`'s.
 */

export type { DailyReportRow, ReportKey };

/** `limit` rows of the report of `[from, to)` (instants, the days counted in `timeZone`) after `after`. */
export function dailyReportRows(
  db: Sql,
  accountId: string,
  range: { from: Date; to: Date; timeZone: string },
  after: ReportKey | undefined,
  limit: number,
): Promise<DailyReportRow[]> {
  return dailyReportPage(db, accountId, range, after, limit);
}
