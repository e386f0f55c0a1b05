import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { purchaseDetail } from '../../../../use-cases/back-office/purchase-detail.ts';
import type { App } from '../../../types.ts';
import { purchasePage } from '../../pages/purchase-page.ts';
import { purchaseIdOf } from '../../purchase-filter.ts';
import { sendPage, signedIn } from '../support.ts';
import { PAGE, purchaseNotFound } from './support.ts';

/** GET /dashboard/purchases/{id}: a purchase's page, read on the primary (staff land there after a refund or a cancel). */
export function registerPurchasesPurchase(app: App, services: Services, sessions: DashboardSessions): void {
  const { db } = services;

  app.get('/dashboard/purchases/:id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const purchaseId = purchaseIdOf((request.params as { id: string }).id);
    const detail = purchaseId && (await purchaseDetail(db, session.accountId, purchaseId));
    if (!detail) return purchaseNotFound(reply, chrome.lang);
    const done = (request.query as Record<string, unknown>).done;
    const shown = done === 'refund' || done === 'cancel' || done === 'evidence' || done === 'evidence_submitted' ? done : undefined;
    return sendPage(reply, 200, purchasePage(chrome, detail, { done: shown }));
  });
}
