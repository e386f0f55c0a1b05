import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { merchantBalance } from '../../../../use-cases/payouts/payouts.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, SECURITY } from './schemas.ts';

const CurrencyBalance = Type.Object(
  {
    currency: Type.String(),
    owed_cents: Type.Integer({ description: 'What the operator owes the account now; negative: a debit balance, deducted from the next payouts' }),
    in_payouts_cents: Type.Integer({ description: 'Payouts created or exported, not yet sent' }),
    paid_out_cents: Type.Integer({ description: 'Payouts sent' }),
    returned_cents: Type.Integer({ description: 'Payouts returned (their amount is owed again)' }),
    last_payout_day: Type.Union([Type.String(), Type.Null()]),
    next_payout: Type.Union([Type.Literal('on_next_run'), Type.Literal('no_bank_details'), Type.Literal('held'), Type.Literal('debit_balance'), Type.Literal('nothing_owed')], {
      description:
        'What the next daily run does with it: `on_next_run` pays what is owed up to the end of the day; `no_bank_details`: nothing until the bank details are set; `held`: nothing until the cooling-off after an IBAN change ends (`payouts_held_until` of the bank details); `debit_balance` and `nothing_owed`: nothing to pay',
    }),
  },
  { title: 'CurrencyBalance' },
);

/** GET /api/backoffice/balance: per currency, what is owed, in payouts, paid out and returned. */
export function registerPayoutBalance(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const reads = services.reads;

  app.get(
    '/api/backoffice/balance',
    {
      schema: {
        tags: ['back office'],
        summary: 'What the operator owes the account, per currency (transfer mode)',
        description: `${AUTH_NOTE} Per currency: what is owed now, what is in payouts not yet sent, paid out and returned, and what the next daily payout does with it (docs/money-operations.md#payouts).`,
        security: SECURITY,
        response: {
          200: Type.Object({
            bank_details_set: Type.Boolean({ description: 'false: no payout is made until they are (`PUT /api/backoffice/payout_bank_details`)' }),
            currencies: Type.Array(CurrencyBalance),
          }),
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      void reply.header('cache-control', 'no-store');
      return merchantBalance(reads, accountId, services.clock.now());
    },
  );
}
