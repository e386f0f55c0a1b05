import { Type } from 'typebox';
import { parsePublicId } from '../../../domain/ids.ts';
import { streamCsvExport } from '../../csv-export.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { ApiError, notFound } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../routes/cursor.ts';
import { TokenApiError } from '../../routes/schemas.ts';
import type { App } from '../../types.ts';
import { PAYOUT_LINE_CSV_COLUMNS, payoutLineCsv, payoutLineView, payoutView } from '../../../payouts/payout-views.ts';
import type { Services } from '../../../services.ts';
import { readBankDetails, setBankDetails } from '../../../use-cases/payout-bank-details.ts';
import { payoutLinesOf, payoutList, payoutOf, type PayoutLineRow } from '../../../use-cases/payout-list.ts';
import { merchantBalance } from '../../../use-cases/payouts.ts';
import { BackofficeErrors } from './webhook.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'Admins only (docs/back-office.md#roles). HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);
/** Rows read per query of the lines' CSV. */
const EXPORT_BATCH = 500;

const Payout = Type.Object(
  {
    id: Type.String({ description: 'The payout (`po_…`)', examples: ['po_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    currency: Type.String({ description: 'ISO 4217; amounts in its minor units' }),
    business_day: Type.String({ description: 'The day (in the account’s time zone) whose end the payout pays up to, `YYYY-MM-DD`' }),
    amount_cents: Type.Integer({ minimum: 1, description: 'The sum of its lines: what is transferred' }),
    line_count: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Literal('created'), Type.Literal('exported'), Type.Literal('sent'), Type.Literal('returned')], {
      description: '`created`, `exported` (in the operator’s SEPA file), `sent` (transferred), `returned` (came back: owed again, in the next payout)',
    }),
    created_at: Type.String({ format: 'date-time' }),
    exported_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    returned_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Payout' },
);

const PayoutLine = Type.Object(
  {
    posting_id: Type.Integer({ description: 'The ledger posting the line pays (one payout at most per posting)' }),
    purchase_uid: Type.Union([Type.String(), Type.Null()], { description: 'The purchase (`pur_…`); null for a returned payout’s line' }),
    event: Type.String({
      description: 'What was booked: `validated` (owed), `refund`, `chargeback`, `credit_by_transfer`, `payout_returned` (a payout that came back) …',
      examples: ['validated'],
    }),
    journal: Type.String({ description: 'The ledger’s key of that event' }),
    amount_cents: Type.Integer({ description: 'What the line adds to the payout: positive owed to the merchant, negative deducted' }),
    occurred_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PayoutLine' },
);

const CurrencyBalance = Type.Object(
  {
    currency: Type.String(),
    owed_cents: Type.Integer({ description: 'What the operator owes the account now; negative: a debit balance, deducted from the next payouts' }),
    in_payouts_cents: Type.Integer({ description: 'Payouts created or exported, not yet sent' }),
    paid_out_cents: Type.Integer({ description: 'Payouts sent' }),
    returned_cents: Type.Integer({ description: 'Payouts returned (their amount is owed again)' }),
    last_payout_day: Type.Union([Type.String(), Type.Null()]),
    next_payout: Type.Union([Type.Literal('on_next_run'), Type.Literal('no_bank_details'), Type.Literal('debit_balance'), Type.Literal('nothing_owed')], {
      description:
        'What the next daily run does with it: `on_next_run` pays what is owed up to the end of the day; `no_bank_details`: nothing until the bank details are set; `debit_balance` and `nothing_owed`: nothing to pay',
    }),
  },
  { title: 'CurrencyBalance' },
);

const BankDetails = Type.Object(
  {
    holder_name: Type.String(),
    iban_masked: Type.String({ description: 'The IBAN’s country, check digits and last four characters only', examples: ['FR76 •••• •••• 0189'] }),
    bic: Type.String(),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PayoutBankDetails' },
);

function payoutIdOf(raw: string): string {
  const id = parsePublicId('po', raw);
  if (!id) throw notFound('payout');
  return id;
}

/**
 * Back office: transfer mode's money owed and paid out (docs/back-office.md#payouts): the balance
 * per currency, the payouts with their lines (JSON and CSV), and the bank details they are paid
 * to. Admins only (src/http/backoffice/roles.ts): the account's takings are finance's. Another account's
 * payout is a 404.
 */
export function registerBackofficePayouts(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const reads = services.reads;
  const bankDeps = { db: services.db, box: services.box, clock: services.clock };

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
      return merchantBalance(reads, accountId);
    },
  );

  app.get(
    '/api/backoffice/payouts',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the account’s payouts',
        description: `${AUTH_NOTE} Newest first, paged with an opaque cursor (\`next_cursor\`).`,
        security: SECURITY,
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })), cursor: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(Payout), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { limit = 100, cursor } = request.query;
      const before = cursor === undefined ? null : (decodeCursor(cursor) ?? null);
      if (cursor !== undefined && !before) throw invalid('query parameter cursor is not a cursor this API gave');
      const rows = await payoutList(reads, accountId, limit + 1, before);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return { data: page.map(payoutView), has_more: rows.length > limit, ...(rows.length > limit && last ? { next_cursor: encodeCursor(last.created_at, last.id) } : {}) };
    },
  );

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
        lines: page.map(payoutLineView),
        lines_has_more: rows.length > limit,
        ...(rows.length > limit && last ? { lines_next_cursor: String(last.posting_id) } : {}),
      };
    },
  );

  app.get(
    '/api/backoffice/payouts/:payout_id/lines.csv',
    {
      schema: {
        tags: ['back office'],
        summary: 'A payout’s lines as CSV',
        description: `${AUTH_NOTE} RFC 4180, in posting order, streamed; columns: ${PAYOUT_LINE_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}.`,
        security: SECURITY,
        params: Type.Object({ payout_id: Type.String({ maxLength: 64, description: '`po_…`' }) }),
        produces: ['text/csv'],
        response: {
          200: { description: 'The CSV file (`text/csv; charset=utf-8`, an attachment)', content: { 'text/csv': { schema: Type.String() } } },
          404: { ...TokenApiError, description: 'No such payout in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const payout = await payoutOf(reads, accountId, payoutIdOf(request.params.payout_id));
      if (!payout) throw notFound('payout');
      return streamCsvExport<PayoutLineRow>(reply, {
        filename: `chipin-payout-${payout.business_day}-${payout.currency}-${payout.id}.csv`,
        header: PAYOUT_LINE_CSV_COLUMNS.join(',') + '\r\n',
        batch: EXPORT_BATCH,
        page: (last) => payoutLinesOf(reads, accountId, payout.id, last?.posting_id ?? null, EXPORT_BATCH),
        line: (l) => payoutLineCsv(payout, l),
      });
    },
  );

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
