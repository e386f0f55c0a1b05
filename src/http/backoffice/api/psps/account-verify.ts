import type { Services } from '../../../../services.ts';
import { updatePspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { ApiError } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { answer } from './answer.ts';
import { AUTH_NOTE, Params, PspAccount, SaveErrors, SECURITY } from './schemas.ts';

/** POST /api/backoffice/psp_accounts/{id}/verify: the saved settings checked with the PSP again, through the same use case as a change. */
export function registerPspAccountVerify(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  app.post(
    '/api/backoffice/psp_accounts/:id/verify',
    {
      schema: {
        tags: ['back office'],
        summary: 'Check a PSP account with the PSP again',
        description:
          `${AUTH_NOTE} Makes the harmless authenticated call to the PSP with the saved settings (the one a save makes) and, when the PSP accepts them, ` +
          'records when (`verified_at`). A refusal (422) or an unreachable PSP (502) changes nothing. Audited (`psp_account_verify`).',
        security: SECURITY,
        params: Params,
        response: { 200: PspAccount, ...SaveErrors, 404: { ...TokenApiError, description: 'No such PSP account in this account' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const result = answer(await updatePspAccount(deps, accountId, request.params.id, {}, { verify: true, recheck: true, actor: { userId, label: email } }));
      if (result instanceof ApiError) throw result;
      void reply.header('cache-control', 'no-store');
      return result;
    },
  );
}
