import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Offer } from '../../../accounts/offer.ts';
import { FailureThrottle } from '../../../auth/failure-throttle.ts';
import { ScheduleMemo } from '../../../accounts/schedule-memo.ts';
import { pluginAmountMessage, readPluginAmountCents } from '../../../domain/plugin-amount.ts';
import { ScheduleError, simulationAnswer, type Schedule, type SimulationAnswer } from '../../../domain/schedule.ts';
import type { Services } from '../../../services.ts';
import { describeValidation } from '../../error-format.ts';
import { ApiError, notFound, type ErrorCode } from '../../errors.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

const EXAMPLE_REQUEST = { amount_cents: 30_000, created: '2026-01-31' };
const EXAMPLE_DELAYED = { amount_cents: 30_000, created: '2026-01-31', second_installment_date: '2026-03-15' };
const EXAMPLE_PLUGIN = { created: '2026-01-31', amount_cents: 1998.9999999999998 };
const EXAMPLE_BALANCE = { amount_cents: 30_000, created: '2026-01-31', balance_payment_date: '2026-03-15' };
// The default 3x offer (150 bps): docs/schedules.md works this example through.
const EXAMPLE_RESPONSE: Schedule = {
  INSTALLMENT: [
    { amount_cents: 10_000, fees: 450, payment_date: '2026-01-31' },
    { amount_cents: 10_000, fees: 0, payment_date: '2026-02-28' },
    { amount_cents: 10_000, fees: 0, payment_date: '2026-03-31' },
  ],
  debit_rate: 0,
  taeg: 20,
};
// The default DEFERRED offer (30 days, no fee): its one payment, as DEFERRED alone.
const EXAMPLE_DEFERRED_RESPONSE: SimulationAnswer = { DEFERRED: { amount_cents: 30_000, fees: 0, payment_date: '2026-03-02' }, debit_rate: 0, taeg: 0 };

const SimulationRequest = Type.Object(
  {
    amount_cents: Type.Number({
      description:
        "Purchase amount in minor units of the offer's currency, at least 1: an integer, or a float within a thousandth of a cent of one (a shop's " +
        '`19.99 * 100` = `1998.9999999999998` is 1999); a fraction of a cent is refused, never rounded (docs/migrating.md#amounts)',
      examples: [30_000],
    }),
    created: Type.String({ format: 'date', description: 'Day the purchase would be created, `yyyy-mm-dd` (a real calendar date)', examples: ['2026-01-31'] }),
    second_installment_date: Type.Optional(
      Type.String({
        format: 'date',
        description:
          "INSTALLMENTS offers: the second installment's due date, the later ones monthly from it; ignored on or before `created` and by a DEFERRED " +
          'offer; installments that would fall more than 12 months after `created` are added to the last one within (docs/schedules.md#requested-dates)',
        examples: ['2026-03-15'],
      }),
    ),
    balance_payment_date: Type.Optional(
      Type.String({
        format: 'date',
        description:
          "DOWN_PAYMENT offers: the balance's due date, after `created` and at the latest `created` + the offer's maximum balance payment delay " +
          '(the date used without it); ignored by the other types (docs/schedules.md#down-payment)',
        examples: ['2026-03-15'],
      }),
    ),
  },
  { additionalProperties: false, title: 'ScheduleSimulationRequest', examples: [EXAMPLE_REQUEST, EXAMPLE_DELAYED, EXAMPLE_PLUGIN, EXAMPLE_BALANCE] },
);

const Line = {
  amount_cents: Type.Integer({ description: 'Share of the purchase amount paid on this date; the shares add up to the amount' }),
  fees: Type.Integer({ description: 'Fees paid on top of amount_cents on this date (all on the first line)' }),
  payment_date: Type.String({ format: 'date', description: '`yyyy-mm-dd`; the first line of an installment plan (the deposit of a down payment) is paid at checkout' }),
};

/**
 * A schedule as the eligibility call answers it per eligible offer: `INSTALLMENT` always, and a
 * DEFERRED offer's payment again as `DEFERRED`. The simulation answers {@link SimulationAnswerSchema}.
 */
export const SimulationResponse = Type.Object(
  {
    INSTALLMENT: Type.Array(Type.Object(Line), {
      description: 'Chronological; one line for a DEFERRED offer, two for a DOWN_PAYMENT offer (the deposit, paid at checkout, then the balance)',
    }),
    DEFERRED: Type.Optional(
      Type.Object(Line, {
        description: "DEFERRED offers only: the single payment again (the same figures as INSTALLMENT's one line), the object the original provider's shop plugins read",
      }),
    ),
    debit_rate: Type.Number({ description: 'Nominal annual interest rate of the offer, in percent (0 for fee-only offers)' }),
    taeg: Type.Number({ description: 'Annual percentage rate of charge (Directive 2008/48/EC), in percent, 2 decimals' }),
  },
  { title: 'Schedule', examples: [EXAMPLE_RESPONSE] },
);

/** The schedule simulation's answer (`simulationAnswer`, docs/schedules.md#rules). */
const SimulationAnswerSchema = Type.Object(
  {
    INSTALLMENT: Type.Optional(
      Type.Array(Type.Object(Line), {
        description:
          'INSTALLMENTS and DOWN_PAYMENT offers: chronological, two lines for a down payment (the deposit, paid at checkout, then the balance); absent for a DEFERRED offer',
      }),
    ),
    DEFERRED: Type.Optional(
      Type.Object(Line, {
        description:
          "DEFERRED offers only, and then alone (no INSTALLMENT): the single payment, due on payment_date. The original provider's shop plugins that read INSTALLMENT first would show it as a payment due now",
      }),
    ),
    debit_rate: Type.Number({ description: 'Nominal annual interest rate of the offer, in percent (0 for fee-only offers)' }),
    taeg: Type.Number({ description: 'Annual percentage rate of charge (Directive 2008/48/EC), in percent, 2 decimals' }),
  },
  { title: 'ScheduleSimulation', examples: [EXAMPLE_RESPONSE, EXAMPLE_DEFERRED_RESPONSE] },
);

type Body = Static<typeof SimulationRequest>;

const ERRORS = {
  400: {
    ...TokenApiError,
    description:
      'Invalid input, named in `debug`: `invalid_amount` (amount_cents missing, not a number, below 1 or with a fraction of a cent), `invalid_date` ' +
      '(created missing or not a real `yyyy-mm-dd` date), `invalid_second_installment_date` (not a real `yyyy-mm-dd` date, or more than 12 months ' +
      'after created), `invalid_balance_payment_date` (not a real `yyyy-mm-dd` date, or a DOWN_PAYMENT offer’s balance date not after created or ' +
      "after created + the offer's maximum balance payment delay), `invalid_request` (unknown field, body not JSON), `amount_below_minimum` / `amount_above_maximum` / " +
      "`amount_above_funding_cap` (outside the offer's limits), `usury_ceiling_exceeded` (the TAEG would be above the offer's usury " +
      'ceiling), `schedule_not_available` (a SHARED offer: the pot has no schedule)',
  },
  404: { ...TokenApiError, description: 'Unknown merchant_uid (or, with an access token, one of another account)' },
  415: { ...TokenApiError, description: '`unsupported_media_type`: a Content-Type other than `application/json` or `text/plain` (both read as JSON; none at all too)' },
};

const Params = Type.Object({ merchant_uid: Type.String({ description: 'Offer (`mer_...`)', examples: ['mer_0b7e6a52-3c1d-4f7e-9a40-6f1e2d3c4b5a'] }) });

/** Each ScheduleError code is a public error code of the same name. */
const FIELD_OF: Record<ScheduleError['code'], string | undefined> = {
  invalid_amount: 'amount_cents',
  invalid_date: 'created',
  invalid_second_installment_date: 'second_installment_date',
  // The simulation takes no deferred date: only a purchase's deferredPaymentDate asks for one.
  invalid_deferred_date: undefined,
  invalid_balance_payment_date: 'balance_payment_date',
  amount_below_minimum: 'amount_cents',
  amount_above_maximum: 'amount_cents',
  amount_above_funding_cap: 'amount_cents',
  usury_ceiling_exceeded: undefined,
};

/** Schema violations as the engine would name them, so that a client sees one code per field. */
function validationError(request: FastifyRequest): ApiError {
  const err = request.validationError as (Error & { validation?: unknown[]; validationContext?: string }) | undefined;
  const issues = (err?.validation ?? []) as Parameters<typeof describeValidation>[0];
  const message = describeValidation(issues, err?.validationContext);
  const first = issues[0];
  const field = first?.keyword === 'required' ? first.params.missingProperty : first?.instancePath.split('/')[1];
  const known: Partial<Record<string, [ErrorCode, string]>> = {
    amount_cents: ['invalid_amount', 'field amount_cents must be a whole number of cents'],
    created: ['invalid_date', 'field created must be a real calendar date in yyyy-mm-dd form'],
    second_installment_date: ['invalid_second_installment_date', 'field second_installment_date must be a real calendar date in yyyy-mm-dd form'],
    balance_payment_date: ['invalid_balance_payment_date', 'field balance_payment_date must be a real calendar date in yyyy-mm-dd form'],
  };
  const named = typeof field === 'string' ? known[field] : undefined;
  if (first?.keyword === 'additionalProperties' || named === undefined) return new ApiError(400, 'invalid_request', message);
  return new ApiError(400, named[0], first?.keyword === 'required' ? message : named[1]);
}

/** The schedule of `body` under `offer` as the simulation answers it, or the Token API error that explains why there is none. */
function simulate(memo: ScheduleMemo, request: FastifyRequest, offer: Offer | undefined, body: Body): SimulationAnswer {
  if (!offer) throw notFound('merchant_uid');
  if (request.validationError) throw validationError(request);
  if (offer.type === 'SHARED') {
    throw new ApiError(400, 'schedule_not_available', 'this offer is a SHARED pot: it has no payment schedule; simulate an INSTALLMENTS, DEFERRED or DOWN_PAYMENT offer');
  }
  const amount = readPluginAmountCents(body.amount_cents);
  if (!amount.ok) throw new ApiError(400, 'invalid_amount', `field ${pluginAmountMessage('amount_cents', amount.reason)}`);
  try {
    return simulationAnswer(memo.schedule(offer, amount.cents, body.created, { secondInstallmentDate: body.second_installment_date, balanceDate: body.balance_payment_date }));
  } catch (err) {
    if (err instanceof ScheduleError) {
      const field = FIELD_OF[err.code];
      throw new ApiError(400, err.code, field ? `field ${field}: ${err.message}` : err.message);
    }
    if (err instanceof RangeError) {
      // The offer's stored terms are inconsistent (an operator's mistake): no schedule can be
      // offered on it, which is the client's answer; the operator learns it from the log.
      request.log.error({ err, offer_id: offer.id }, 'offer terms cannot produce a schedule');
      throw new ApiError(400, 'schedule_not_available', 'this offer cannot produce a payment schedule at the moment');
    }
    throw err;
  }
}

const PUBLIC_PATH = '/api/users/me/merchants/:merchant_uid/simulate_payment_schedule';

/** Open CORS for the front-end simulation only (contract): any origin, no credentials. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, X-Request-Id',
};
const PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  // Chromium caps the cache at 2 hours; asking for more gains nothing.
  'access-control-max-age': '7200',
};

/**
 * Token API: the payment schedule of an amount under an offer (contract: schedule simulation).
 *
 * - `POST /api/merchants/<merchant_uid>/simulate_payment_schedule`: back end, access token, the
 *   offer must belong to the token's account.
 * - `POST /api/users/me/merchants/<merchant_uid>/simulate_payment_schedule`: front end, no
 *   credentials, open CORS, throttled per client address.
 */
export function registerSimulateSchedule(app: App, services: Services): void {
  const { offers, config } = services;
  const memo = new ScheduleMemo();

  app.post(
    '/api/merchants/:merchant_uid/simulate_payment_schedule',
    {
      config: { auth: 'bearer', plainTextJson: true },
      attachValidation: true,
      schema: {
        tags: ['Token API'],
        summary: 'Simulate the payment schedule of an amount (back end)',
        description:
          'The installments (the single deferred payment, the deposit and the balance), their fees and dates, and the TAEG a purchase of `amount_cents` created on ' +
          '`created` would have under this offer of your account. Needs an access token: call it from your server, never from a browser ' +
          'or an app (that would expose your credentials); front ends use `/api/users/me/merchants/{merchant_uid}/simulate_payment_schedule`.',
        security: [{ bearerToken: [] }],
        params: Params,
        body: SimulationRequest,
        response: { 200: { ...SimulationAnswerSchema, description: 'The payment schedule, its fees and its TAEG' }, ...ERRORS, ...BearerErrors },
      },
    },
    async (request) => simulate(memo, request, await offers.find(request.auth!.accountId, request.params.merchant_uid), request.body),
  );

  // Requests per client address per minute, counted whatever their outcome. In memory, per
  // process: N processes allow N times the limit, which still bounds scraping and load.
  const throttle = new FailureThrottle(config.simulationRateLimit ?? 60, 60_000);

  app.options(PUBLIC_PATH, { schema: { hide: true } }, async (_request, reply: FastifyReply) => {
    void reply.code(204).headers(PREFLIGHT).send();
  });

  app.post(
    PUBLIC_PATH,
    {
      // Shop plugins post from the checkout page without setting a type (text/plain, no preflight).
      config: { plainTextJson: true },
      attachValidation: true,
      onRequest: async (request, reply) => {
        // First, so that every answer (429 and errors included) is readable by the page.
        void reply.headers(CORS);
        const wait = throttle.retryAfter(request.ip);
        if (wait > 0) throw new ApiError(429, 'too_many_requests', `too many simulations from this address, retry in ${wait} s`, { 'retry-after': String(wait) });
        throttle.fail(request.ip);
      },
      schema: {
        tags: ['Token API'],
        summary: 'Simulate the payment schedule of an amount (front end, no credentials)',
        description:
          'Same body and answer as `POST /api/merchants/{merchant_uid}/simulate_payment_schedule`, without credentials and with an open ' +
          'CORS policy (`Access-Control-Allow-Origin: *`), so that a product page can show the schedule from the browser. Limited per ' +
          'client address (60 requests a minute by default; 429 with `Retry-After` beyond).',
        security: [],
        params: Params,
        body: SimulationRequest,
        response: {
          200: { ...SimulationAnswerSchema, description: 'The payment schedule, its fees and its TAEG' },
          ...ERRORS,
          404: { ...TokenApiError, description: 'Unknown merchant_uid' },
          429: { ...TokenApiError, description: '`too_many_requests`: see Retry-After' },
        },
      },
    },
    async (request) => simulate(memo, request, await offers.findPublic(request.params.merchant_uid), request.body),
  );
}
