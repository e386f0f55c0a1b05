import { actorOf } from '../../../../audit/audit-log.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { recordStaffAction } from '../../../../use-cases/back-office/audit-trail.ts';
import { deletePspAccount, listPspAccounts } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { App } from '../../../types.ts';
import { confirmDeletePage, pspAccountsPage } from '../../pages/psp-accounts-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { seeOther, sendPage } from '../support.ts';
import { addableConnectors, ownAccountForm, PAGE } from './support.ts';

/** POST /dashboard/psp-accounts/{psa_id}/delete: a confirmation first, then the delete (refused while an offer or a payment needs it). */
export function registerPspAccountsDelete(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;

  app.post('/dashboard/psp-accounts/:psa_id/delete', PAGE, async (request, reply) => {
    const own = await ownAccountForm(services, sessions, request, reply);
    if (!own) return reply;
    const { session, chrome, t, fields, id, account } = own;
    if (fields.confirm !== 'yes') return sendPage(reply, 200, confirmDeletePage(chrome, account));
    const outcome = await deletePspAccount(deps, session.accountId, id);
    if (outcome.kind === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    if (outcome.kind === 'in_use') {
      return sendPage(
        reply,
        409,
        pspAccountsPage(chrome, await listPspAccounts(deps, session.accountId), addableConnectors(services), undefined, t.pspAccountInUse(outcome.offers, outcome.payments)),
      );
    }
    await recordStaffAction(services.db, {
      accountId: session.accountId,
      actor: actorOf(session),
      action: 'psp_account_delete',
      subject: account.id,
      details: { psp: account.psp },
    });
    request.log.info({ account_id: session.accountId, psp_account_id: account.id }, 'PSP account deleted (back office)');
    return seeOther(reply, '/dashboard/psp-accounts?done=deleted');
  });
}
