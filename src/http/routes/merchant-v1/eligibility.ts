import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import { ScheduleMemo } from '../../../accounts/schedule-memo.ts';
import { FailureThrottle } from '../../../auth/failure-throttle.ts';
import { RISK_REASON_CODES } from '../../../domain/eligibility.ts';
import type { ScoreReasonCode } from '../../../domain/risk-score.ts';
import type { Services } from '../../../services.ts';
import { checkEligibility, publicView, type EligibilityDeps, type EligibilityOutcome } from '../../../use-cases/checkout/check-eligibility.ts';
import { inputError, type Family } from '../../error-format.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import { TokenApiError, V1Error } from '../schemas.ts';
import { SimulationResponse } from '../token-api/simulate-schedule.ts';
import { OFFER_TYPES } from '../../../domain/offer-terms.ts';
import { V1Errors } from './schemas.ts';

const SCORE_REASONS: ScoreReasonCode[] = [
  'FIRST_PURCHASE',
  'RETURNING_SHOPPER',
  'PAST_DECLINES',
  'PAST_FAILED_PURCHASES',
  'PAST_CHARGEBACKS',
  'OUTSTANDING_CREDIT',
  'KNOWN_SINCE',
  'AMOUNT_ABOVE_HISTORY',
];

const EXAMPLE_REQUEST = { amount: 30_000, created: '2026-01-31', shopper: { email: 'leader@example.com', phone: '+33612345678', country: 'FR' } };

const Shopper = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Identifies the shopper (trimmed, lower-case) and is checked against the e-mail lists' })),
    phone: Type.Optional(Type.String({ maxLength: 32, description: 'International (`+33612345678`); identifies the shopper' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2; read by no built-in rule yet (docs/risk.md)' })),
    billing_address: Type.Optional(
      Type.Object(
        {
          line1: Type.Optional(Type.String({ maxLength: 200 })),
          line2: Type.Optional(Type.String({ maxLength: 200 })),
          postal_code: Type.Optional(Type.String({ maxLength: 20 })),
          city: Type.Optional(Type.String({ maxLength: 100 })),
          country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
        },
        { additionalProperties: false, description: 'Read by no built-in rule yet (docs/risk.md)' },
      ),
    ),
    customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Your id of the customer (a client's `ref`); identifies the shopper" })),
    ip: Type.Optional(Type.String({ maxLength: 45, description: "The shopper's IP address, for the IP block and allow lists (the public call uses the caller's own)" })),
  },
  { additionalProperties: false, description: 'Optional: without it, only the rules that need no shopper apply and the score is that of a stranger' },
);

const EligibilityRequest = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 100_000_000, description: "Purchase amount in minor units of each offer's currency", examples: [30_000] }),
    offers: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 50, description: 'The offers (`mer_…`) to consider; absent: every offer of the account' }),
    ),
    created: Type.Optional(Type.String({ format: 'date', description: "Day the purchase would be created, `yyyy-mm-dd`; absent: today in the account's time zone" })),
    shopper: Type.Optional(Shopper),
  },
  { additionalProperties: false, title: 'EligibilityRequest', examples: [EXAMPLE_REQUEST] },
);

const Reason = Type.Object(
  {
    code: Type.String({ enum: [...RISK_REASON_CODES], description: 'Machine-readable and stable (docs/risk.md#reason-codes)' }),
    message: Type.String({ description: 'One sentence for the developer' }),
  },
  { title: 'EligibilityReason' },
);

const OfferEligibility = Type.Object(
  {
    merchant_uid: Type.String({ examples: ['mer_0b7e6a52-3c1d-4f7e-9a40-6f1e2d3c4b5a'] }),
    type: Type.String({ enum: [...OFFER_TYPES] }),
    installments: Type.Integer(),
    deferred_days: Type.Integer(),
    deposit_percent: Type.Optional(
      Type.Integer({ description: 'DOWN_PAYMENT offers only: the deposit paid at checkout, in percent of the amount (docs/schedules.md#down-payment)' }),
    ),
    max_balance_delay_days: Type.Optional(
      Type.Integer({ description: "DOWN_PAYMENT offers only: the most days from the purchase's creation to the balance, the schedule's date when none is asked" }),
    ),
    currency: Type.String(),
    eligible: Type.Boolean(),
    reasons: Type.Array(Reason, { description: 'Every reason of a refusal; empty when eligible' }),
    schedule: Type.Union([SimulationResponse, Type.Null()], {
      description: 'When eligible: the schedule, fees and TAEG, the same figures as the schedule simulation; null when refused, and for a SHARED offer (a pot has no schedule)',
    }),
  },
  { title: 'OfferEligibility' },
);

const Score = Type.Object(
  {
    value: Type.Integer({ minimum: 0, maximum: 100, description: 'The base plus every reason’s points, clamped to 0..100' }),
    base: Type.Integer(),
    reasons: Type.Array(Type.Object({ code: Type.String({ enum: SCORE_REASONS }), points: Type.Integer() }), {
      description: 'Every factor that moved the score (docs/risk.md#the-score)',
    }),
  },
  { title: 'ShopperScore', description: "Chipin's score of the shopper from this account's history" },
);

const EligibilityResponse = Type.Object({ offers: Type.Array(OfferEligibility), score: Score }, { title: 'Eligibility' });
const PublicEligibilityResponse = Type.Object({ offers: Type.Array(OfferEligibility) }, { title: 'PublicEligibility' });

type Body = Static<typeof EligibilityRequest>;

/** The outcome as the family answers it: 404 naming the offer, the family's bad-input error naming the field. */
function answer(family: Family, outcome: EligibilityOutcome): Extract<EligibilityOutcome, { kind: 'ok' }> {
  switch (outcome.kind) {
    case 'ok':
      return outcome;
    case 'not_found':
      throw notFound(`${outcome.field}: offer`);
    case 'invalid':
      throw inputError(family, `field ${outcome.field} ${outcome.message}`);
  }
}

const PUBLIC_PATH = '/api/users/me/merchants/:merchant_uid/eligibility';
const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After, X-Request-Id' };
const PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '7200',
};

/**
 * The eligibility call (docs/risk.md#the-eligibility-call): per offer, whether it may be sold for
 * this amount to this shopper, with machine-readable reasons, and the schedule when so.
 *
 * - `POST /api/merchants/v1/eligibility`: Merchant API v1, access token, the account's offers,
 *   every reason and the shopper's score.
 * - `POST /api/users/me/merchants/<merchant_uid>/eligibility`: beside the public schedule
 *   simulation, no credentials, open CORS, throttled per address like it; the account is that of
 *   the offer in the path; history reasons collapse into `SHOPPER_NOT_ELIGIBLE` and no score.
 */
export function registerEligibility(app: App, services: Services): void {
  const deps: EligibilityDeps = { db: services.db, clock: services.clock, offers: services.offers, riskRules: services.riskRules, schedules: new ScheduleMemo() };

  app.post(
    '/api/merchants/v1/eligibility',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'Which offers a shopper may be sold, and why not',
        description:
          'For each offer (default: every offer of your account): `eligible`, the reasons of a refusal (every one, machine-readable: docs/risk.md#reason-codes) ' +
          "and, when eligible, the schedule (the schedule simulation's figures). The risk rules are your account's defaults and each offer's overrides " +
          '(`/api/backoffice/risk_rules`); the score is computed from your account’s history with the shopper, found by e-mail, phone or customer id. ' +
          'Reads only: nothing is stored, no card is needed (the card rules apply at payment).',
        security: [{ bearerToken: [] }],
        body: EligibilityRequest,
        response: {
          200: { ...EligibilityResponse, description: 'One answer per offer, in the order asked (or the offers’ order)' },
          ...V1Errors,
          404: { ...V1Error, description: 'An offer of `offers` is unknown or of another account (the message names it)' },
          406: { ...V1Error, description: 'Incorrect input data; the message names the field' },
        },
      },
    },
    async (request) => {
      const outcome = answer('v1', await checkEligibility(deps, request.auth!.accountId, request.body));
      return { offers: outcome.offers, score: outcome.score };
    },
  );

  // Requests per client address per minute, as the public simulation counts them (its own budget).
  const throttle = new FailureThrottle(services.config.simulationRateLimit ?? 60, 60_000);

  app.options(PUBLIC_PATH, { schema: { hide: true } }, async (_request, reply: FastifyReply) => {
    void reply.code(204).headers(PREFLIGHT).send();
  });

  app.post(
    PUBLIC_PATH,
    {
      onRequest: async (request, reply) => {
        void reply.headers(CORS);
        const wait = throttle.retryAfter(request.ip);
        if (wait > 0) throw new ApiError(429, 'too_many_requests', `too many eligibility checks from this address, retry in ${wait} s`, { 'retry-after': String(wait) });
        throttle.fail(request.ip);
      },
      schema: {
        tags: ['Token API'],
        summary: 'Which offers a shopper may be sold (front end, no credentials)',
        description:
          'The eligibility call without credentials and with an open CORS policy, for product and checkout pages: the account is that of the offer ' +
          'in the path, `offers` defaults to every offer of that account. The same decision as `POST /api/merchants/v1/eligibility`, but a refusal ' +
          "drawn from the shopper's history or your lists says only `SHOPPER_NOT_ELIGIBLE`, no score is answered, and `shopper.ip` is the caller's " +
          'address (docs/risk.md#the-public-call). Limited per client address (60 requests a minute by default; 429 with `Retry-After` beyond).',
        security: [],
        params: Type.Object({ merchant_uid: Type.String({ description: 'Any offer of the account (`mer_...`)' }) }),
        body: EligibilityRequest,
        response: {
          200: { ...PublicEligibilityResponse, description: 'One answer per offer' },
          400: { ...TokenApiError, description: 'Invalid input, named in `debug`' },
          404: { ...TokenApiError, description: 'Unknown merchant_uid, or an offer of `offers` not of its account' },
          429: { ...TokenApiError, description: '`too_many_requests`: see Retry-After' },
        },
      },
    },
    async (request) => {
      const offer = await services.offers.findPublic(request.params.merchant_uid);
      if (!offer) throw notFound('merchant_uid');
      const body: Body = { ...request.body, shopper: { ...request.body.shopper, ip: request.ip } };
      const outcome = answer('token', await checkEligibility(deps, offer.accountId, body));
      return { offers: publicView(outcome.offers) };
    },
  );
}
