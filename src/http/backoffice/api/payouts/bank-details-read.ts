import type { Services } from '../../../../services.ts';
import { readBankDetails } from '../../../../use-cases/payouts/payout-bank-details.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { notFound } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, BankDetails, SECURITY } from './schemas.ts';

/** GET /api/backoffice/payout_bank_details: the bank details payouts are sent to, the IBAN masked. */
export function registerPayoutBankDetailsRead(app: App, services: Services, guard: DashboardGuard): void {
  const bankDeps = { db: services.db, box: services.box, clock: services.clock };

  app.get(
    '/api/backoffice/payout_bank_details',
    {
      schema: {
        tags: ['back office'],
        summary: 'Read the payout bank details',
        description: `${AUTH_NOTE} The account holder’s name, the IBAN masked (its country, check digits and last four characters) and the BIC the payouts are sent to.`,
        security: SECURITY,
        response: { 200: BankDetails, 404: { ...TokenApiError, description: 'No bank details are set' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const details = await readBankDetails(bankDeps, await guard.accountOf(request));
      if (!details) throw notFound('bank details');
      void reply.header('cache-control', 'no-store');
      return details;
    },
  );
}
