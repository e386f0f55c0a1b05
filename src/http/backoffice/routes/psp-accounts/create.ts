import { actorOf } from '../../../../audit/audit-log.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { recordStaffAction } from '../../../../use-cases/back-office/audit-trail.ts';
import { createPspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { App } from '../../../types.ts';
import { newPspAccountPage } from '../../pages/psp-accounts-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { seeOther, sendPage, signedIn, signedInForm } from '../support.ts';
import { addableConnectors, PAGE, typedAccount } from './support.ts';

/** GET /dashboard/psp-accounts/new (the form for one connector) and its POST /dashboard/psp-accounts. */
export function registerPspAccountsCreate(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;

  app.get('/dashboard/psp-accounts/new', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const def = addableConnectors(services).find((d) => d.name === (request.query as Record<string, unknown>).psp);
    if (!def) return sendPage(reply, 404, messagePage(ctx.chrome.lang, DASHBOARD_TEXT[ctx.chrome.lang].notFoundTitle, DASHBOARD_TEXT[ctx.chrome.lang].unknownPsp));
    return sendPage(reply, 200, newPspAccountPage(ctx.chrome, def));
  });

  app.post('/dashboard/psp-accounts', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const def = addableConnectors(services).find((d) => d.name === fields.psp);
    if (!def) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.unknownPsp));
    const { credentials, typed } = typedAccount(def, fields);
    const outcome = await createPspAccount(
      deps,
      session.accountId,
      { psp: def.name, environment: fields.environment ?? '', label: fields.label ?? '', credentials, endpoint_url: fields.endpoint_url ? fields.endpoint_url : null },
      { verify: fields.verify === 'yes' },
    );
    switch (outcome.kind) {
      case 'ok':
        await recordStaffAction(services.db, {
          accountId: session.accountId,
          actor: actorOf(session),
          action: 'psp_account_create',
          subject: outcome.account.id,
          details: { psp: def.name, environment: outcome.account.environment },
        });
        request.log.info({ account_id: session.accountId, psp_account_id: outcome.account.id, psp: def.name }, 'PSP account created (back office)');
        // To the account's page: it shows the notification URL to set at the PSP, and what the PSP gives for it can be added there.
        return seeOther(reply, `/dashboard/psp-accounts/${encodeURIComponent(outcome.account.id)}?done=created`);
      case 'invalid':
        return sendPage(reply, 400, newPspAccountPage(chrome, def, typed, { field: outcome.field, message: outcome.message }));
      case 'rejected':
        return sendPage(reply, 422, newPspAccountPage(chrome, def, typed, { field: 'credentials', message: t.pspRejected(outcome.message) }));
      case 'unreachable':
        return sendPage(reply, 502, newPspAccountPage(chrome, def, typed, { field: 'credentials', message: t.pspUnreachable }));
      case 'not_found':
        return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.unknownPsp));
    }
  });
}
