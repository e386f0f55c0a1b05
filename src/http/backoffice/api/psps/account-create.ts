import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { createPspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { ApiError } from '../../../errors.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { answer } from './answer.ts';
import { AUTH_NOTE, Credentials, EndpointUrl, Label, PspAccount, SaveErrors, SECURITY, Verify } from './schemas.ts';

/** POST /api/backoffice/psp_accounts: adds a PSP account, its credentials checked with the PSP unless `?verify=false`. */
export function registerPspAccountCreate(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  app.post(
    '/api/backoffice/psp_accounts',
    {
      schema: {
        tags: ['back office'],
        summary: 'Add a PSP account',
        description:
          `${AUTH_NOTE} Saves the merchant's own PSP account. The credentials are checked against the connector's fields, then with one ` +
          'harmless authenticated call to the PSP (`?verify=false` skips it), sealed at rest and never shown again: secrets read as `…` and their last 4 characters.',
        security: SECURITY,
        querystring: Verify,
        body: Type.Object(
          {
            psp: Type.String({ maxLength: 32 }),
            environment: Type.String({ enum: ['test', 'live'] }),
            label: Label,
            credentials: Credentials,
            endpoint_url: Type.Optional(Type.Union([EndpointUrl, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 201: PspAccount, ...SaveErrors, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const result = answer(await createPspAccount(deps, accountId, request.body, { verify: request.query.verify !== false }));
      if (result instanceof ApiError) throw result;
      return reply.code(201).header('cache-control', 'no-store').send(result);
    },
  );
}
