import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Offer } from '../../../../accounts/offer.ts';
import { toPublicId } from '../../../../domain/ids.ts';
import type { EnFr } from '../../../../i18n/lang.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { purchaseDetail } from '../../../../use-cases/back-office/purchase-detail.ts';
import { kindOf } from '../../pages/offers-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { purchaseIdOf } from '../../purchase-filter.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedInForm } from '../support.ts';

export const PAGE = { schema: { hide: true } };

/** The offer filter's choices: each offer's merchant_uid and its kind in words ("3 installments"), as the Offers page names it. */
export function offerLabels(offers: readonly Offer[], lang: EnFr): { merchantUid: string; label: string }[] {
  return offers.map((o) => ({ merchantUid: toPublicId('mer', o.id), label: kindOf(DASHBOARD_TEXT[lang], o) }));
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function purchaseNotFound(reply: FastifyReply, lang: EnFr): FastifyReply {
  const t = DASHBOARD_TEXT[lang];
  return sendPage(reply, 404, messagePage(lang, t.notFoundTitle, t.notFound));
}

/** The common steps of an action: session, CSRF token, the account's purchase. Undefined once answered. */
export async function actionContext(services: Services, sessions: DashboardSessions, request: FastifyRequest, reply: FastifyReply) {
  const ctx = await signedInForm(services, sessions, request, reply);
  if (!ctx) return undefined;
  const { form } = ctx;
  const purchaseId = purchaseIdOf((request.params as { id: string }).id);
  const detail = purchaseId && (await purchaseDetail(services.db, ctx.session.accountId, purchaseId));
  if (!detail) {
    void purchaseNotFound(reply, ctx.chrome.lang);
    return undefined;
  }
  return { ...ctx, form, detail, uid: toPublicId('pur', detail.purchase.id) };
}
