import { Type } from 'typebox';
import type { Services } from '../../services.ts';
import { bindOfferToPspAccount, listOffersWithPsp } from '../../use-cases/psp-accounts.ts';
import type { DashboardGuard } from '../dashboard-guard.ts';
import { ApiError, notFound } from '../errors.ts';
import type { App } from '../types.ts';
import { BackofficeErrors } from './backoffice-webhook.ts';
import { TokenApiError } from './schemas.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE = 'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

const OfferPsp = Type.Object(
  {
    merchant_uid: Type.String({ examples: ['mer_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    type: Type.String({ enum: ['SHARED', 'INSTALLMENTS', 'DEFERRED'] }),
    installments: Type.Integer(),
    deferred_days: Type.Integer(),
    currency: Type.String(),
    psp: Type.String({ description: 'The connector its payments run on' }),
    psp_account_id: Type.Union([Type.String(), Type.Null()], { description: 'The PSP account it pays through; null: the built-in sandbox PSP' }),
  },
  { title: 'OfferPsp' },
);

/** Back office: the account's offers and the PSP account each pays through (back mode, DESIGN §6). */
export function registerBackofficeOffers(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;

  app.get(
    '/api/backoffice/offers',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the offers and their PSP accounts',
        description: `${AUTH_NOTE} Every offer of the account with the PSP account it pays through (null: the built-in sandbox PSP).`,
        security: SECURITY,
        response: { 200: Type.Array(OfferPsp), ...BackofficeErrors },
      },
    },
    async (request) => {
      const accountId = await guard.accountOf(request);
      return listOffersWithPsp(deps, accountId);
    },
  );

  app.patch(
    '/api/backoffice/offers/:merchant_uid',
    {
      schema: {
        tags: ['back office'],
        summary: "Choose an offer's PSP account",
        description:
          `${AUTH_NOTE} The offer pays through this PSP account from its next payment on (payments already made keep theirs for captures and refunds). ` +
          '`null` puts it back on the built-in sandbox PSP (refused in production).',
        security: SECURITY,
        params: Type.Object({ merchant_uid: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ psp_account_id: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]) }, { additionalProperties: false }),
        response: {
          200: OfferPsp,
          400: { ...TokenApiError, description: 'Invalid input (a production offer needs a PSP account)' },
          404: { ...TokenApiError, description: 'No such offer, or no such PSP account, in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const accountId = await guard.accountOf(request);
      const outcome = await bindOfferToPspAccount(deps, accountId, request.params.merchant_uid, request.body.psp_account_id);
      switch (outcome.kind) {
        case 'ok':
          return outcome.offer;
        case 'not_found':
          throw notFound(outcome.what);
        case 'invalid':
          throw new ApiError(400, 'invalid_request', `field ${outcome.field}: ${outcome.message}`);
      }
    },
  );
}
