import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { getPspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { App } from '../../../types.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedIn } from '../support.ts';
import { PAGE, showAccount } from './support.ts';

/** GET /dashboard/psp-accounts/{psa_id}: the account's page; another account's is not found. */
export function registerPspAccountsAccount(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;

  app.get('/dashboard/psp-accounts/:psa_id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const account = await getPspAccount(deps, session.accountId, (request.params as { psa_id: string }).psa_id);
    if (!account) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    const done = (request.query as Record<string, unknown>).done;
    return showAccount(services, reply, chrome, session.accountId, account, 200, { notice: done === 'saved' || done === 'created' || done === 'verified' ? done : undefined });
  });
}
