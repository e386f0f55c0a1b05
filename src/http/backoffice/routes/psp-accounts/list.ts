import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { listPspAccounts } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { App } from '../../../types.ts';
import { pspAccountsPage } from '../../pages/psp-accounts-page.ts';
import { sendPage, signedIn } from '../support.ts';
import { addableConnectors, PAGE } from './support.ts';

/** GET /dashboard/psp-accounts: the account's PSP accounts and the connectors one can add. */
export function registerPspAccountsList(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;

  app.get('/dashboard/psp-accounts', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const done = (request.query as Record<string, unknown>).done;
    const notice = done === 'deleted' ? done : undefined;
    return sendPage(reply, 200, pspAccountsPage(ctx.chrome, await listPspAccounts(deps, ctx.session.accountId), addableConnectors(services), notice));
  });
}
