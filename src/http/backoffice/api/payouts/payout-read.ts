import { Type } from 'typebox';
import { payoutLineView, payoutTotalsView, payoutView } from '../../../../payouts/payout-views.ts';
import type { Services } from '../../../../services.ts';
import { payoutLinesOf, payoutOf } from '../../../../use-cases/payouts/payout-list.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { notFound } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, invalid, Payout, payoutIdOf, SECURITY } from './schemas.ts';

const PayoutLine = Type.Object(
  {
    posting_id: Type.Integer({ description: 'The ledger posting the line pays (one payout at most per posting)' }),
    purchase_uid: Type.Union([Type.String(), Type.Null()], { description: 'The purchase (`pur_…`); null for a returned payout’s line' }),
    event: Type.Union(
      [
        Type.Literal('validated'),
        Type.Literal('refund'),
        Type.Literal('chargeback'),
        Type.Literal('chargeback_reversal'),
        Type.Literal('plan_cancelled'),
        Type.Literal('credit_by_transfer'),
        Type.Literal('payout_returned'),
      ], // PAYOUT_LINE_EVENTS, each (test/payouts/transfer-mode-e2e.test.ts compares them)
      {
        description:
          'What was booked: `validated` (a purchase validated: owed), `refund` (a refund paid back on a card), `chargeback` (lost), `chargeback_reversal` (a lost chargeback reversed: owed again), `plan_cancelled` (installments the shopper will no longer pay: a refund that lowered installments not collected yet, journal `lowered:…`, or the purchase cancelled or refunded with installments still owed, journal `plan_cancelled:…`), `credit_by_transfer` (a refund by transfer), `payout_returned` (a payout that came back: owed again)',
        examples: ['validated'],
      },
    ),
    journal: Type.String({ description: 'The ledger’s key of that event' }),
    amount_cents: Type.Integer({ description: 'What the line adds to the payout: positive owed to the merchant, negative deducted (the same as `payout_cents`)' }),
    gross_cents: Type.Integer({
      description:
        'What the event earns or takes from the merchant before commission: a validated purchase’s amount; for a deduction, the part of it the merchant bears (docs/money-operations.md#who-bears-what). gross − commission = payout',
    }),
    commission_cents: Type.Integer({ minimum: 0, description: 'The operator’s commission its journal booked: a validated purchase’s; 0 for any other event' }),
    payout_cents: Type.Integer({ description: 'gross − commission: what the line adds to the payout' }),
    occurred_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PayoutLine' },
);

/** GET /api/backoffice/payouts/{payout_id}: a payout and its lines in posting order, a page at a time; another account's is a 404. */
export function registerPayoutRead(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const reads = services.reads;

  app.get(
    '/api/backoffice/payouts/:payout_id',
    {
      schema: {
        tags: ['back office'],
        summary: 'A payout and its lines',
        description: `${AUTH_NOTE} The payout and its lines in posting order, \`lines_limit\` at a time (\`lines_next_cursor\` for the next ones); all of them as CSV at \`/api/backoffice/payouts/{payout_id}/lines.csv\`.`,
        security: SECURITY,
        params: Type.Object({ payout_id: Type.String({ maxLength: 64, description: '`po_…`' }) }),
        querystring: Type.Object(
          {
            lines_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
            lines_cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'The `lines_next_cursor` of the previous answer' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            ...Payout.properties,
            gross_cents: Type.Integer({ description: 'The sum of its lines’ gross' }),
            commission_cents: Type.Integer({ minimum: 0, description: 'The sum of its lines’ commission' }),
            payout_cents: Type.Integer({ minimum: 1, description: 'gross − commission: the sum of its lines, what is transferred (the same as `amount_cents`)' }),
            lines: Type.Array(PayoutLine),
            lines_has_more: Type.Boolean(),
            lines_next_cursor: Type.Optional(Type.String()),
          }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          404: { ...TokenApiError, description: 'No such payout in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const payout = await payoutOf(reads, accountId, payoutIdOf(request.params.payout_id));
      if (!payout) throw notFound('payout');
      const { lines_limit: limit = 1000, lines_cursor: cursor } = request.query;
      const after = cursor === undefined ? null : Number(cursor);
      if (after !== null && !Number.isSafeInteger(after)) throw invalid('query parameter lines_cursor is not a cursor this API gave');
      const rows = await payoutLinesOf(reads, accountId, payout.id, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return {
        ...payoutView(payout),
        ...payoutTotalsView(payout),
        lines: page.map(payoutLineView),
        lines_has_more: rows.length > limit,
        ...(rows.length > limit && last ? { lines_next_cursor: String(last.posting_id) } : {}),
      };
    },
  );
}
