import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { setBankDetails } from '../../../../use-cases/payout-bank-details.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, BankDetails, invalid, SECURITY } from './schemas.ts';

/** PUT /api/backoffice/payout_bank_details: replaces the bank details whole, checked, sealed and audited. */
export function registerPayoutBankDetailsSet(app: App, services: Services, guard: DashboardGuard): void {
  const bankDeps = { db: services.db, box: services.box, clock: services.clock };

  app.put(
    '/api/backoffice/payout_bank_details',
    {
      schema: {
        tags: ['back office'],
        summary: 'Set the payout bank details',
        description:
          `${AUTH_NOTE} Replaces them whole. The IBAN (spaces allowed) must be valid and of a SEPA country, the BIC valid and of the IBAN’s country (checked with ibantools); ` +
          'they are stored encrypted and shown masked from then on. Audited (`payout_bank_details_set`, the IBAN masked); the same details again write nothing. The next daily payout uses them.',
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
          },
          { additionalProperties: false },
        ),
        response: {
          200: BankDetails,
          400: { ...TokenApiError, description: '`invalid_request`: a wrong holder_name, iban or bic, or an unknown field (the message names it)' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const outcome = await setBankDetails(bankDeps, accountId, { userId, label: email }, request.body);
      if (outcome.kind === 'invalid') throw invalid(outcome.message);
      void reply.header('cache-control', 'no-store');
      return outcome.details;
    },
  );
}
