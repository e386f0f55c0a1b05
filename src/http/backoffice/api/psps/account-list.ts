import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { listPspAccounts } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, PspAccount, SECURITY } from './schemas.ts';

/** GET /api/backoffice/psp_accounts: the account's PSP accounts, oldest first. */
export function registerPspAccountList(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  app.get(
    '/api/backoffice/psp_accounts',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the PSP accounts',
        description: `${AUTH_NOTE} The account's PSP accounts, oldest first; secrets read as \`…\` and their last 4 characters.`,
        security: SECURITY,
        response: { 200: Type.Array(PspAccount), ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      void reply.header('cache-control', 'no-store');
      return listPspAccounts(deps, accountId);
    },
  );
}
