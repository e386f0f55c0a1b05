import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSessions } from '../../dashboard/sessions.ts';
import { purchaseDetail } from '../../dashboard/purchase-detail.ts';
import { confirmPage, purchasePage, type PurchaseNotice } from '../../dashboard/purchase-page.ts';
import { purchasesPage, V1_STATES, type PurchaseQuery } from '../../dashboard/purchases-page.ts';
import { messagePage } from '../../dashboard/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../dashboard/texts.ts';
import { isStorableDate } from '../../domain/dates.ts';
import { isUuid, parsePublicId, toPublicId } from '../../domain/ids.ts';
import { parseTypedAmount } from '../../domain/money.ts';
import { internalStatesOf, V1_STATE, type V1State } from '../../domain/purchase-states.ts';
import type { Lang } from '../../i18n/lang.ts';
import { listPurchases } from '../../purchases/repository.ts';
import type { Services } from '../../services.ts';
import { cancelPurchase } from '../../use-cases/cancel-purchase.ts';
import { refundPurchase } from '../../use-cases/refund-purchase.ts';
import type { App } from '../types.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { formOf, refuseForm, seeOther, sendPage, signedIn } from './dashboard-support.ts';

const PAGE = { schema: { hide: true } };
const PAGE_SIZE = 20;
const MAX_REASON = 500;

/** `pur_<uuid>` or the bare uuid, as the back-office API takes them. */
function purchaseIdOf(value: string): string | undefined {
  return parsePublicId('pur', value) ?? (isUuid(value.toLowerCase()) ? value.toLowerCase() : undefined);
}

/** A `YYYY-MM-DD` day (UTC) of the date filters, or undefined. */
function dayOf(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const d = new Date(`${text}T00:00:00Z`);
  return isStorableDate(d) && d.toISOString().startsWith(text) ? d : undefined;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * Back office: the purchases list and a purchase's page, with its refund and cancel actions.
 * The actions call the same use cases as the API (refundPurchase, cancelPurchase), each through
 * one confirmation step: the first POST shows what will happen, the second (`confirm=yes`) does it.
 * Every read and action is scoped to the session's account: another account's purchase is a 404.
 */
export function registerDashboardPurchases(app: App, services: Services, sessions: DashboardSessions): void {
  const { db } = services;



  function notFound(reply: FastifyReply, lang: Lang): FastifyReply {
    const t = DASHBOARD_TEXT[lang];
    return sendPage(reply, 404, messagePage(lang, t.notFoundTitle, t.notFound));
  }

  app.get('/dashboard/purchases', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const raw = request.query as Record<string, unknown>;
    const query: PurchaseQuery = { q: str(raw.q), state: str(raw.state), offer: str(raw.offer), from: str(raw.from), to: str(raw.to) };
    const offers = await services.offers.list(session.accountId);
    const errors: string[] = [];

    // Search: a purchase id, else an e-mail (it has an @), else the merchant's reference.
    const q = query.q;
    const id = q ? purchaseIdOf(q) : undefined;
    const byEmail = !id && q.includes('@') ? q : undefined;
    const byRef = q && !id && !byEmail ? q : undefined;
    const state = V1_STATES.includes(query.state as V1State) ? (query.state as V1State) : undefined;
    if (query.state && !state) errors.push(`${t.state}: ${query.state}?`);
    const offer = query.offer ? offers.find((o) => toPublicId('mer', o.id) === query.offer) : undefined;
    if (query.offer && !offer) errors.push(`${t.offer}: ${query.offer}?`);
    const from = query.from ? dayOf(query.from) : undefined;
    if (query.from && !from) errors.push(t.badDate(t.createdFrom));
    const to = query.to ? dayOf(query.to) : undefined;
    if (query.to && !to) errors.push(t.badDate(t.createdTo));
    const cursor = str(raw.cursor);
    const before = cursor ? decodeCursor(cursor) : undefined;
    if (cursor && !before) errors.push(t.badCursor);

    let purchases: Awaited<ReturnType<typeof listPurchases>> = [];
    let next: string | undefined;
    if (errors.length === 0) {
      const rows = await listPurchases(db, session.accountId, {
        id,
        clientEmail: byEmail,
        ref: byRef,
        states: state && internalStatesOf(state),
        offerId: offer?.id,
        createdFrom: from,
        // The "to" day is inclusive: up to the start of the next one.
        createdTo: to && new Date(to.getTime() + 86_400_000),
        before,
        limit: PAGE_SIZE + 1,
      });
      purchases = rows.slice(0, PAGE_SIZE);
      const last = purchases[purchases.length - 1];
      if (rows.length > PAGE_SIZE && last) next = `/dashboard/purchases?${new URLSearchParams({ ...query, cursor: encodeCursor(last.createdAt, last.id) }).toString()}`;
    }
    const labels = offers.map((o) => ({
      merchantUid: toPublicId('mer', o.id),
      label: o.type === 'INSTALLMENTS' ? `${o.type} ×${o.installments}` : o.type === 'DEFERRED' ? `${o.type} +${o.deferredDays}d` : o.type,
    }));
    return sendPage(reply, errors.length ? 400 : 200, purchasesPage(chrome, { query, offers: labels, purchases, next, paged: Boolean(before), errors }));
  });

  app.get('/dashboard/purchases/:id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const purchaseId = purchaseIdOf((request.params as { id: string }).id);
    const detail = purchaseId && (await purchaseDetail(db, session.accountId, purchaseId));
    if (!detail) return notFound(reply, chrome.lang);
    const done = (request.query as Record<string, unknown>).done;
    return sendPage(reply, 200, purchasePage(chrome, detail, { done: done === 'refund' || done === 'cancel' ? done : undefined }));
  });

  /** The common steps of an action: session, CSRF token, the account's purchase. */
  async function actionContext(request: FastifyRequest, reply: FastifyReply) {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return undefined;
    const form = formOf(request);
    if (!sessions.csrfMatches(ctx.session, form.csrf)) {
      void refuseForm(reply, ctx.chrome.lang);
      return undefined;
    }
    const purchaseId = purchaseIdOf((request.params as { id: string }).id);
    const detail = purchaseId && (await purchaseDetail(db, ctx.session.accountId, purchaseId));
    if (!detail) {
      void notFound(reply, ctx.chrome.lang);
      return undefined;
    }
    return { ...ctx, form, detail, uid: toPublicId('pur', detail.purchase.id) };
  }

  app.post('/dashboard/purchases/:id/refund', PAGE, async (request, reply) => {
    const ctx = await actionContext(request, reply);
    if (!ctx) return reply;
    const { chrome, form, detail, session, uid } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const amount = str(form.amount);
    const reason = str(form.reason).slice(0, MAX_REASON);
    const amountCents = amount ? parseTypedAmount(amount, detail.purchase.currency) : undefined;
    const refusal = (status: number, error: string) => sendPage(reply, status, purchasePage(chrome, detail, { error, amount, reason }));
    if (amount && (amountCents === undefined || amountCents <= 0)) return refusal(400, t.badAmount);
    if (form.confirm !== 'yes') return sendPage(reply, 200, confirmPage(chrome, detail, { kind: 'refund', amountCents, amount, reason }));
    const outcome = await refundPurchase(services.payments, {
      accountId: session.accountId,
      purchaseId: detail.purchase.id,
      amountCents,
      reason: reason || undefined,
      actor: { userId: session.userId, label: session.email },
    });
    if (outcome.kind === 'not_found') return notFound(reply, chrome.lang);
    // The use case's message names the field (`amount`), as the API's does.
    if (outcome.kind === 'invalid') return refusal(400, outcome.message);
    return seeOther(reply, `/dashboard/purchases/${uid}?done=refund`);
  });

  app.post('/dashboard/purchases/:id/cancel', PAGE, async (request, reply) => {
    const ctx = await actionContext(request, reply);
    if (!ctx) return reply;
    const { chrome, form, detail, session, uid } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    if (form.confirm !== 'yes') return sendPage(reply, 200, confirmPage(chrome, detail, { kind: 'cancel' }));
    const outcome = await cancelPurchase(services.payments, { accountId: session.accountId, purchaseId: detail.purchase.id, actor: { userId: session.userId, label: session.email } });
    if (outcome.kind === 'not_found') return notFound(reply, chrome.lang);
    if (outcome.kind !== 'cancelled') {
      const error = outcome.kind === 'captured' ? t.cannotCancelCaptured : t.cannotCancelState(V1_STATE[outcome.state]);
      return sendPage(reply, 409, purchasePage(chrome, detail, { error }));
    }
    return seeOther(reply, `/dashboard/purchases/${uid}?done=cancel`);
  });
}
