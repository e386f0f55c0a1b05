import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { purchaseList } from '../../../../use-cases/back-office/purchase-list.ts';
import { decodeCursor, encodeCursor } from '../../../routes/cursor.ts';
import type { App } from '../../../types.ts';
import { purchasesPage } from '../../pages/purchases-page.ts';
import { purchaseFilterOf, purchaseQueryOf } from '../../purchase-filter.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedIn } from '../support.ts';
import { offerLabels, PAGE, str } from './support.ts';

const PAGE_SIZE = 20;

/** GET /dashboard/purchases: the filtered list, a page at a time. */
export function registerPurchasesList(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/purchases', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const raw = request.query as Record<string, unknown>;
    const query = purchaseQueryOf(raw);
    const offers = await services.offers.list(session.accountId);
    const { filter, errors } = purchaseFilterOf(query, offers, t, chrome.timeZone);
    const cursor = str(raw.cursor);
    const before = cursor ? decodeCursor(cursor) : undefined;
    if (cursor && !before) errors.push(t.badCursor);

    // The list and its export read the replica while fresh (docs/deployment.md#read-replicas); a
    // purchase's page reads the primary: staff land there after a refund or a cancel.
    let purchases: Awaited<ReturnType<typeof purchaseList>> = [];
    let next: string | undefined;
    if (errors.length === 0) {
      const rows = await purchaseList(services.reads, session.accountId, { ...filter, before, limit: PAGE_SIZE + 1 });
      purchases = rows.slice(0, PAGE_SIZE);
      const last = purchases[purchases.length - 1];
      if (rows.length > PAGE_SIZE && last) next = `/dashboard/purchases?${new URLSearchParams({ ...query, cursor: encodeCursor(last.createdAt, last.id) }).toString()}`;
    }
    return sendPage(reply, errors.length ? 400 : 200, purchasesPage(chrome, { query, offers: offerLabels(offers, chrome.lang), purchases, next, paged: Boolean(before), errors }));
  });
}
