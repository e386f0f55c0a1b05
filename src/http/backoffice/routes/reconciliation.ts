import { addDays, isDay } from '../../../domain/dates.ts';
import { isUuid } from '../../../domain/ids.ts';
import type { App } from '../../types.ts';
import { zonedDay, zonedMidnight } from '../../../i18n/format.ts';
import type { Services } from '../../../services.ts';
import { MAX_RECON_DAYS, reconcileAccountPeriod, updateMismatch } from '../../../use-cases/reconciliation/reconcile-psp.ts';
import { reconciliationMismatches, reconciliationRuns } from '../../../use-cases/reconciliation/reconciliation-log.ts';
import { reconciliationPage } from '../pages/reconciliation-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import type { Chrome } from '../pages/layout.ts';
import { sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
const SHOWN = 50;

/**
 * The Reconciliation page (docs/back-office.md, docs/money-operations.md#reconciliation): every
 * user reads the runs and open mismatches; admins run a period (every PSP, platform's or own,
 * the account's payments used in it) and mark mismatches (the same use cases as the API; roles:
 * src/http/backoffice/roles.ts).
 */
export function registerDashboardReconciliation(app: App, services: Services, sessions: DashboardSessions): void {
  const { db } = services;

  async function render(chrome: Chrome, accountId: string, status: number, outcome?: { error: string } | { saved: true } | { ran: number }) {
    const yesterday = addDays(zonedDay(services.clock.now(), chrome.timeZone), -1);
    const [runs, open] = await Promise.all([reconciliationRuns(db, accountId, SHOWN, null), reconciliationMismatches(db, accountId, 'open', SHOWN, null)]);
    return reconciliationPage(chrome, { runs, open, days: { from: yesterday, to: yesterday } }, outcome);
  }

  app.get('/dashboard/reconciliation', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return sendPage(reply, 200, await render(ctx.chrome, ctx.session.accountId, 200));
  });

  app.post('/dashboard/reconciliation/runs', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    const from = form.from ?? '';
    const to = form.to ?? '';
    if (!isDay(from) || !isDay(to) || to < from || addDays(from, MAX_RECON_DAYS) <= to) {
      return sendPage(reply, 400, await render(chrome, session.accountId, 400, { error: DASHBOARD_TEXT[chrome.lang].recon.badDays }));
    }
    const period = { from: zonedMidnight(from, chrome.timeZone), to: zonedMidnight(addDays(to, 1), chrome.timeZone) };
    const ran = await reconcileAccountPeriod(services.payments, { accountId: session.accountId, ...period });
    return sendPage(reply, 200, await render(chrome, session.accountId, 200, { ran }));
  });

  app.post<{ Params: { id: string } }>('/dashboard/reconciliation/mismatches/:id', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    const state = form.state === 'explained' || form.state === 'resolved' ? form.state : undefined;
    const id = request.params.id;
    if (!state || !isUuid(id)) return sendPage(reply, 404, await render(chrome, session.accountId, 404));
    const note = (form.note ?? '').trim().slice(0, 2000) || null;
    const outcome = await updateMismatch(services.payments, session.accountId, { userId: session.userId, label: session.email }, id, { state, note });
    if (outcome.kind === 'not_found') return sendPage(reply, 404, await render(chrome, session.accountId, 404));
    return sendPage(reply, 200, await render(chrome, session.accountId, 200, { saved: true }));
  });
}
