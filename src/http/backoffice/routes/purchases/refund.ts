import { actorOf } from '../../../../audit/audit-log.ts';
import { parseTypedAmount } from '../../../../domain/money.ts';
import { formatMoney } from '../../../../i18n/format.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { refundPurchase } from '../../../../use-cases/refunds/refund-purchase.ts';
import { previewRefund } from '../../../../use-cases/refunds/refund-preview.ts';
import type { App } from '../../../types.ts';
import { confirmPage, purchasePage } from '../../pages/purchase-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { seeOther, sendPage } from '../support.ts';
import { actionContext, PAGE, purchaseNotFound, str } from './support.ts';

const MAX_REASON = 500;

/** POST /dashboard/purchases/{id}/refund: the preview first, then (`confirm=yes`) the refund, through refundPurchase as the API. */
export function registerPurchasesRefund(app: App, services: Services, sessions: DashboardSessions): void {
  app.post('/dashboard/purchases/:id/refund', PAGE, async (request, reply) => {
    const ctx = await actionContext(services, sessions, request, reply);
    if (!ctx) return reply;
    const { chrome, form, detail, session, uid } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const amount = str(form.amount);
    const reason = str(form.reason).slice(0, MAX_REASON);
    const amountCents = amount ? parseTypedAmount(amount, detail.purchase.currency) : undefined;
    // Every refusal here is about the amount: said by its field, which gets the focus.
    const refusal = (status: number, error: string) => sendPage(reply, status, purchasePage(chrome, detail, { error, field: 'amount', amount, reason }));
    if (amount && (amountCents === undefined || amountCents <= 0)) return refusal(400, t.badAmount);
    if (form.confirm !== 'yes') {
      const preview = await previewRefund(services.db, session.accountId, detail.purchase.id, amountCents);
      if (preview.kind === 'invalid') {
        const left = preview.refundableCents;
        return refusal(400, left > 0 ? t.refundAtMost(formatMoney(left, detail.purchase.currency, chrome.lang)) : t.nothingToRefund);
      }
      if (preview.kind === 'charge_disputed') return refusal(409, t.chargeDisputed(formatMoney(preview.refundableCents, detail.purchase.currency, chrome.lang)));
      return sendPage(reply, 200, confirmPage(chrome, detail, { kind: 'refund', amountCents, amount, reason, shares: preview.shares }));
    }
    const outcome = await refundPurchase(services.payments, {
      accountId: session.accountId,
      purchaseId: detail.purchase.id,
      amountCents,
      reason: reason || undefined,
      actor: actorOf(session),
    });
    if (outcome.kind === 'not_found') return purchaseNotFound(reply, chrome.lang);
    if (outcome.kind === 'operation_in_progress') return sendPage(reply, 409, purchasePage(chrome, detail, { error: t.operationInProgress }));
    // Refused under the lock (a refund made since the preview): said in the page's language, as the preview says it.
    if (outcome.kind === 'invalid') {
      const left = await previewRefund(services.db, session.accountId, detail.purchase.id);
      const refundable = left.kind === 'ok' ? left.amountCents : left.refundableCents;
      return refusal(400, refundable > 0 ? t.refundAtMost(formatMoney(refundable, detail.purchase.currency, chrome.lang)) : t.nothingToRefund);
    }
    if (outcome.kind === 'charge_disputed') {
      const left = await previewRefund(services.db, session.accountId, detail.purchase.id);
      return refusal(409, t.chargeDisputed(formatMoney(left.kind === 'ok' ? left.amountCents : left.refundableCents, detail.purchase.currency, chrome.lang)));
    }
    return seeOther(reply, `/dashboard/purchases/${uid}?done=refund`);
  });
}
