import type { FastifyReply } from 'fastify';
import { actorOf } from '../../../audit/audit-log.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { decodeCursor, encodeCursor } from '../../routes/cursor.ts';
import type { App } from '../../types.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import type { Services } from '../../../services.ts';
import { markEvidenceSent } from '../../../use-cases/disputes/dispute.ts';
import { disputeList, disputeOf } from '../../../use-cases/disputes/dispute-list.ts';
import { EVIDENCE_MAX_LENGTH, NO_DEADLINE } from '../api/disputes.ts';
import { disputesPage } from '../pages/disputes-page.ts';
import { purchasePage } from '../pages/purchase-page.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { purchaseDetail } from '../../../use-cases/back-office/purchase-detail.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
const PAGE_SIZE = 50;

/**
 * Back office: the open disputes by deadline, and the form that marks a dispute's evidence as
 * sent (CSRF, audited; submitted to the PSP where it has an API: docs/money-operations.md#disputes).
 * Admins and support users; scoped to the session's account.
 */
export function registerDashboardDisputes(app: App, services: Services, sessions: DashboardSessions): void {
  const { db } = services;

  function notFound(reply: FastifyReply, lang: EnFr): FastifyReply {
    const t = DASHBOARD_TEXT[lang];
    return sendPage(reply, 404, messagePage(lang, t.notFoundTitle, t.disputes.notFound));
  }

  app.get('/dashboard/disputes', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const raw = (request.query as Record<string, unknown>).cursor;
    const after = typeof raw === 'string' && raw !== '' ? decodeCursor(raw) : undefined;
    if (typeof raw === 'string' && raw !== '' && !after) return sendPage(reply, 400, disputesPage(chrome, { disputes: [], error: DASHBOARD_TEXT[chrome.lang].badCursor }));
    const rows = await disputeList(db, session.accountId, ['open', 'evidence_sent'], after ? { dueAt: after.createdAt, id: after.id } : null, PAGE_SIZE + 1);
    const page = rows.slice(0, PAGE_SIZE);
    const last = page[page.length - 1];
    const next = rows.length > PAGE_SIZE && last ? `/dashboard/disputes?cursor=${encodeCursor(last.evidence_due_at ?? NO_DEADLINE, last.id)}` : undefined;
    return sendPage(reply, 200, disputesPage(chrome, { disputes: page, ...(next ? { next } : {}) }));
  });

  app.post('/dashboard/disputes/:id/evidence', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    const td = DASHBOARD_TEXT[chrome.lang].disputes;
    const id = parsePublicId('dsp', (request.params as { id: string }).id);
    const dispute = id && (await disputeOf(db, session.accountId, id));
    if (!dispute) return notFound(reply, chrome.lang);
    const text = (typeof form.text === 'string' ? form.text.trim() : '').slice(0, EVIDENCE_MAX_LENGTH);
    const outcome = await markEvidenceSent(services.payments, actorOf(session), session.accountId, dispute.id, text);
    const uid = toPublicId('pur', dispute.purchase_id);
    if (outcome.kind === 'not_found') return notFound(reply, chrome.lang);
    if (outcome.kind === 'marked') return seeOther(reply, `/dashboard/purchases/${uid}?done=${outcome.submitted ? 'evidence_submitted' : 'evidence'}#disputes`);
    const detail = await purchaseDetail(db, session.accountId, dispute.purchase_id);
    if (!detail) return notFound(reply, chrome.lang);
    const error = outcome.kind === 'not_open' ? td.notOpen : td.pspRefused(outcome.message);
    return sendPage(reply, outcome.kind === 'not_open' ? 409 : 502, purchasePage(chrome, detail, { error }));
  });
}
