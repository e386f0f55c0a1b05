import type { Services } from '../../../../services.ts';
import { getPspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { notFound } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, Params, PspAccount, SECURITY } from './schemas.ts';

/** GET /api/backoffice/psp_accounts/{id}: one PSP account of the account; another account's is a 404. */
export function registerPspAccountRead(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  app.get(
    '/api/backoffice/psp_accounts/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Read a PSP account',
        description: `${AUTH_NOTE} Secrets read as \`…\` and their last 4 characters.`,
        security: SECURITY,
        params: Params,
        response: { 200: PspAccount, 404: { ...TokenApiError, description: 'No such PSP account in this account' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const account = await getPspAccount(deps, accountId, request.params.id);
      if (!account) throw notFound('PSP account');
      void reply.header('cache-control', 'no-store');
      return account;
    },
  );
}
