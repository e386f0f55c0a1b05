import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { deletePspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { ApiError, notFound } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, Params, SECURITY } from './schemas.ts';

/** DELETE /api/backoffice/psp_accounts/{id}: refused while an offer or a payment needs the account. */
export function registerPspAccountDelete(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  app.delete(
    '/api/backoffice/psp_accounts/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Delete a PSP account',
        description: `${AUTH_NOTE} Refused (409) while an offer uses it, or a payment was made on it (its captures and refunds need it).`,
        security: SECURITY,
        params: Params,
        response: {
          204: Type.Null({ description: 'Deleted' }),
          404: { ...TokenApiError, description: 'No such PSP account in this account' },
          409: { ...TokenApiError, description: '`psp_account_in_use`: an offer uses it or a payment was made on it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const outcome = await deletePspAccount(deps, accountId, request.params.id);
      if (outcome.kind === 'not_found') throw notFound('PSP account');
      if (outcome.kind === 'in_use') {
        throw new ApiError(
          409,
          'psp_account_in_use',
          `the PSP account is used by ${outcome.offers} offer(s) and ${outcome.payments} payment(s); bind the offers to another account first`,
        );
      }
      return reply.code(204).send(null);
    },
  );
}
