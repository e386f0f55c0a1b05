import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { updatePspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { ApiError } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { answer } from './answer.ts';
import { AUTH_NOTE, EndpointUrl, Label, Params, PspAccount, SaveErrors, SECURITY, Verify } from './schemas.ts';

/** PATCH /api/backoffice/psp_accounts/{id}: changes a PSP account, what changed checked with the PSP again unless `?verify=false`. */
export function registerPspAccountUpdate(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  app.patch(
    '/api/backoffice/psp_accounts/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Change a PSP account',
        description:
          `${AUTH_NOTE} Changes the label, environment, endpoint or credentials (fields given replace the saved ones, \`null\` removes one). ` +
          'Changed credentials, environment or endpoint are checked with the PSP again (`?verify=false` skips it). Offers using the account use the new settings from their next payment on. Audited (`psp_account_update`: the names of the changed settings, never a value).',
        security: SECURITY,
        params: Params,
        querystring: Verify,
        body: Type.Object(
          {
            label: Type.Optional(Label),
            environment: Type.Optional(Type.String({ enum: ['test', 'live'] })),
            credentials: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]))),
            endpoint_url: Type.Optional(Type.Union([EndpointUrl, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: PspAccount, ...SaveErrors, 404: { ...TokenApiError, description: 'No such PSP account in this account' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const result = answer(await updatePspAccount(deps, accountId, request.params.id, request.body, { verify: request.query.verify !== false, actor: { userId, label: email } }));
      if (result instanceof ApiError) throw result;
      void reply.header('cache-control', 'no-store');
      return result;
    },
  );
}
