import { actorOf } from '../../../../audit/audit-log.ts';
import { V1_STATE } from '../../../../domain/purchase-states.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { cancelPurchase } from '../../../../use-cases/checkout/cancel-purchase.ts';
import type { App } from '../../../types.ts';
import { confirmPage, purchasePage } from '../../pages/purchase-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { seeOther, sendPage } from '../support.ts';
import { actionContext, PAGE, purchaseNotFound } from './support.ts';

/** POST /dashboard/purchases/{id}/cancel: a confirmation first, then (`confirm=yes`) the cancel, through cancelPurchase as the API. */
export function registerPurchasesCancel(app: App, services: Services, sessions: DashboardSessions): void {
  app.post('/dashboard/purchases/:id/cancel', PAGE, async (request, reply) => {
    const ctx = await actionContext(services, sessions, request, reply);
    if (!ctx) return reply;
    const { chrome, form, detail, session, uid } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    if (form.confirm !== 'yes') return sendPage(reply, 200, confirmPage(chrome, detail, { kind: 'cancel' }));
    const outcome = await cancelPurchase(services.payments, { accountId: session.accountId, purchaseId: detail.purchase.id, actor: actorOf(session) });
    if (outcome.kind === 'not_found') return purchaseNotFound(reply, chrome.lang);
    if (outcome.kind !== 'cancelled') {
      const error =
        outcome.kind === 'captured' ? t.cannotCancelCaptured : outcome.kind === 'operation_in_progress' ? t.operationInProgress : t.cannotCancelState(V1_STATE[outcome.state]);
      return sendPage(reply, 409, purchasePage(chrome, detail, { error }));
    }
    return seeOther(reply, `/dashboard/purchases/${uid}?done=cancel`);
  });
}
