import { actorOf } from '../../../audit/audit-log.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Offer } from '../../../accounts/offer.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { purchaseDetail } from '../../../use-cases/purchase-detail.ts';
import { confirmPage, purchasePage } from '../pages/purchase-page.ts';
import { purchaseFilterOf, purchaseIdOf, purchaseQueryOf } from '../purchase-filter.ts';
import { purchasesPage } from '../pages/purchases-page.ts';
import { kindOf } from '../pages/offers-page.ts';
import { csvHeader, csvLine } from '../purchases-csv.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { parseTypedAmount } from '../../../domain/money.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { formatMoney } from '../../../i18n/format.ts';
import type { Lang } from '../../../i18n/lang.ts';
import type { Services } from '../../../services.ts';
import { cancelPurchase } from '../../../use-cases/cancel-purchase.ts';
import { purchaseList, purchasesForExport } from '../../../use-cases/purchase-list.ts';
import { refundPurchase } from '../../../use-cases/refund-purchase.ts';
import { previewRefund } from '../../../use-cases/refund-preview.ts';
import type { App } from '../../types.ts';
import { decodeCursor, encodeCursor } from '../../routes/cursor.ts';
import { streamCsvExport } from '../../csv-export.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
const PAGE_SIZE = 20;
/** Rows read per query of the CSV export: memory stays this small whatever the export's size. */
const EXPORT_BATCH = 1000;
const MAX_REASON = 500;

/** The offer filter's choices: each offer's merchant_uid and its kind in words ("3 installments"), as the Offers page names it. */
function offerLabels(offers: readonly Offer[], lang: Lang): { merchantUid: string; label: string }[] {
  return offers.map((o) => ({ merchantUid: toPublicId('mer', o.id), label: kindOf(DASHBOARD_TEXT[lang], o) }));
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

  // The list's purchases (same filters, same parser, same query) as CSV, streamed: read by keyset
  // pages of EXPORT_BATCH and written as they come, so any size is sent in constant memory.
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

  app.get('/dashboard/purchases/:id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const purchaseId = purchaseIdOf((request.params as { id: string }).id);
    const detail = purchaseId && (await purchaseDetail(db, session.accountId, purchaseId));
    if (!detail) return notFound(reply, chrome.lang);
    const done = (request.query as Record<string, unknown>).done;
    const shown = done === 'refund' || done === 'cancel' || done === 'evidence' || done === 'evidence_submitted' ? done : undefined;
    return sendPage(reply, 200, purchasePage(chrome, detail, { done: shown }));
  });

  /** The common steps of an action: session, CSRF token, the account's purchase. */
  async function actionContext(request: FastifyRequest, reply: FastifyReply) {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return undefined;
    const { form } = ctx;
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
    if (outcome.kind === 'not_found') return notFound(reply, chrome.lang);
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

  app.post('/dashboard/purchases/:id/cancel', PAGE, async (request, reply) => {
    const ctx = await actionContext(request, reply);
    if (!ctx) return reply;
    const { chrome, form, detail, session, uid } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    if (form.confirm !== 'yes') return sendPage(reply, 200, confirmPage(chrome, detail, { kind: 'cancel' }));
    const outcome = await cancelPurchase(services.payments, { accountId: session.accountId, purchaseId: detail.purchase.id, actor: actorOf(session) });
    if (outcome.kind === 'not_found') return notFound(reply, chrome.lang);
    if (outcome.kind !== 'cancelled') {
      const error =
        outcome.kind === 'captured' ? t.cannotCancelCaptured : outcome.kind === 'operation_in_progress' ? t.operationInProgress : t.cannotCancelState(V1_STATE[outcome.state]);
      return sendPage(reply, 409, purchasePage(chrome, detail, { error }));
    }
    return seeOther(reply, `/dashboard/purchases/${uid}?done=cancel`);
  });
}
