import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { purchasesForExport } from '../../../../use-cases/back-office/purchase-list.ts';
import { streamCsvExport } from '../../../csv-export.ts';
import type { App } from '../../../types.ts';
import { purchasesPage } from '../../pages/purchases-page.ts';
import { purchaseFilterOf, purchaseQueryOf } from '../../purchase-filter.ts';
import { csvHeader, csvLine } from '../../purchases-csv.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedIn } from '../support.ts';
import { offerLabels, PAGE } from './support.ts';

/** Rows read per query of the CSV export: memory stays this small whatever the export's size. */
const EXPORT_BATCH = 1000;

/**
 * GET /dashboard/purchases.csv: the list's purchases (same filters, same parser, same query) as
 * CSV, streamed: read by keyset pages of EXPORT_BATCH and written as they come, so any size is
 * sent in constant memory. It reads the replica while fresh, as the list does.
 */
export function registerPurchasesExportCsv(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/purchases.csv', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const query = purchaseQueryOf(request.query as Record<string, unknown>);
    const offers = await services.offers.list(session.accountId);
    const { filter, errors } = purchaseFilterOf(query, offers, t, chrome.timeZone);
    if (errors.length) return sendPage(reply, 400, purchasesPage(chrome, { query, offers: offerLabels(offers, chrome.lang), purchases: [], paged: false, errors }));
    const { accountId } = session;
    const day = services.clock.now().toISOString().slice(0, 10);
    return streamCsvExport(reply, {
      filename: `chipin-purchases-${day}.csv`,
      header: csvHeader(),
      batch: EXPORT_BATCH,
      page: (last) => purchasesForExport(services.reads, accountId, { ...filter, before: last && { createdAt: new Date(last.createdAt), id: last.id }, limit: EXPORT_BATCH }),
      line: csvLine,
    });
  });
}
