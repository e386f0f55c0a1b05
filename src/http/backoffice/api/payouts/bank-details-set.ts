import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { setBankDetails } from '../../../../use-cases/payouts/payout-bank-details.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, BankDetails, invalid, SECURITY } from './schemas.ts';
import { bankDetailsDeps } from '../../bank-details-deps.ts';

/** The refusal of a missing or wrong password re-check: the same words whatever is wrong with it. */
const WRONG_PASSWORD = 'field current_password is not your current password';

/** PUT /api/backoffice/payout_bank_details: replaces the bank details whole, checked, sealed and audited. */
export function registerPayoutBankDetailsSet(app: App, services: Services, guard: DashboardGuard): void {
  const bankDeps = bankDetailsDeps(services, app.log);

  app.put(
    '/api/backoffice/payout_bank_details',
    {
      schema: {
        tags: ['back office'],
        summary: 'Set the payout bank details',
        description:
          `${AUTH_NOTE} Replaces them whole. The IBAN (spaces allowed) must be valid and of a SEPA country, the BIC valid and of the IBAN’s country (checked with ibantools); ` +
          'they are stored encrypted and shown masked from then on. The user’s current password is asked again (`current_password`). Audited (`payout_bank_details_set`, the IBAN masked); the same details again write nothing. ' +
          'Each change is e-mailed to every admin of the account (the IBANs masked). The next daily payout uses them; when the IBAN replaces another, the payouts are held until `payouts_held_until` ' +
          '(PAYOUT_BANK_DETAILS_HOLD_HOURS, default 3 days, unless the operator releases them first: docs/money-operations.md#bank-details).',
        security: SECURITY,
        body: Type.Object(
          {
            holder_name: Type.String({
              maxLength: 200,
              description: 'The account holder, as the bank knows it (at most 70 characters, Latin letters)',
              examples: ['Boutique Exemple SARL'],
            }),
            iban: Type.String({ maxLength: 64, examples: ['FR76 3000 6000 0112 3456 7890 189'] }),
            bic: Type.String({ maxLength: 32, examples: ['AGRIFRPP'] }),
            current_password: Type.String({
              maxLength: 1024,
              description: 'The signed-in user’s password, asked again: a session left open does not let anyone divert the payouts',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: BankDetails,
          400: {
            ...TokenApiError,
            description:
              '`invalid_request`: a wrong holder_name, iban or bic, a missing or wrong current_password (`field current_password is not your current password`), or an unknown field (the message names it); nothing is changed',
          },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const { current_password: password, ...details } = request.body;
      if (!(await services.accounts.dashboardUser(email, password))) throw invalid(WRONG_PASSWORD);
      const outcome = await setBankDetails(bankDeps, accountId, { userId, label: email }, details);
      if (outcome.kind === 'invalid') throw invalid(outcome.message);
      void reply.header('cache-control', 'no-store');
      return outcome.details;
    },
  );
}
