import { Type } from 'typebox';
import { isEmailAddress } from '../../../domain/email.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import type { CardInput } from '../../../psp/connector.ts';
import { leaderReturnUrl, pledgePageUrl, pledgeReturnUrl } from '../../../domain/links.ts';
import { payAsLeader, type LeaderOutcome } from '../../../use-cases/pay-as-leader.ts';
import { payPledge, type PledgeOutcome } from '../../../use-cases/pay-pledge.ts';
import { merchantPurchase } from '../../../use-cases/merchant-purchases.ts';
import { paymentOfRequest, payStateOf, pledgeOf, pledgesOf } from '../../../use-cases/payment-lookup.ts';
import type { Services } from '../../../services.ts';
import { ApiError, notFound } from '../../errors.ts';
import { idempotent } from '../../idempotency.ts';
import { langOf } from '../../../i18n/lang.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

const Pledge = Type.Object({
  id: Type.String({ examples: ['plg_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
  email: Type.Optional(Type.String()),
  phone_number: Type.Optional(Type.String()),
  amount_cents: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  state: Type.String({ description: '`invited`, `paying`, `paid` or `closed`' }),
});
const PayResponse = Type.Object({
  purchase_uid: Type.String(),
  state: Type.String({ description: 'The purchase state as Merchant API v1 shows it' }),
  pledges: Type.Array(Pledge),
  challenge_url: Type.Optional(Type.String({ format: 'uri', description: 'Present (202) when the card asks for 3-D Secure: open it to complete or fail' })),
});
const Card = Type.String({ pattern: '^[0-9 ]{12,23}$', description: 'A sandbox test card number (see docs/psp-connectors.md)', examples: ['4242 4242 4242 4242'] });

/** The helpers act with a test CVC and name, and a test expiry unless the body gives one. */
const CardExpiry = Type.String({
  pattern: '^(0[1-9]|1[0-2])/20[0-9]{2}$',
  description: "The card's expiry, `MM/YYYY` (default: December, three years from now)",
  examples: ['12/2029'],
});

/** A test card; expiring in December three years from now unless `expiry` (`MM/YYYY`) says when. */
function sandboxCard(number: string, now: Date, holderName: string, expiry?: string): CardInput {
  const [month, year] = expiry ? expiry.split('/').map(Number) : [12, now.getUTCFullYear() + 3];
  return { number: number.replace(/\s/g, ''), expMonth: month!, expYear: year!, cvc: '123', holderName };
}

const declined = (reason: string, message: string) => new ApiError(402, reason as 'card_declined', message);

const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        "Makes the call safe to retry (24 h, docs/api-conventions.md#idempotency-key): the same key and body answer the first call's outcome; " +
        'a retry after a 503 or no answer resolves the payment the first call left in doubt and answers its outcome, never charging twice',
    }),
  ),
});
const invalidKey = (message: string) => new ApiError(400, 'invalid_request', message);
const KEY_409 = '`idempotency_key_in_use`: a call with this Idempotency-Key is still running';
const KEY_422 = { ...TokenApiError, description: 'Idempotency-Key used with another body' };

/**
 * Sandbox test helpers (not in production): act as the leader or a pledger with a test card, so
 * a whole flow can be tested with curl. Same code path as the hosted pages.
 */
export function registerSandboxPayments(app: App, services: Services): void {
  const { db, clock, config, payments } = services;

  async function view(accountId: string, purchaseId: string) {
    const state = (await payStateOf(services, accountId, purchaseId))!;
    const pledges = (await pledgesOf(services, accountId, purchaseId)).filter((p) => p.state !== 'draft');
    return {
      purchase_uid: toPublicId('pur', purchaseId),
      state: V1_STATE[state.state],
      pledges: pledges.map((p) => ({
        id: toPublicId('plg', p.id),
        email: p.email ?? undefined,
        phone_number: p.phoneNumber ?? undefined,
        amount_cents: p.amountCents,
        url: pledgePageUrl(config.publicUrl, p.id),
        state: p.state,
      })),
    };
  }

  app.post(
    '/api/sandbox/purchases/:purchase_uid/pay',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['sandbox'],
        summary: 'Sandbox: pay as the leader with a test card, optionally inviting pledgers',
        security: [{ bearerToken: [] }],
        params: Type.Object({ purchase_uid: Type.String({ maxLength: 64 }) }),
        headers: IdempotencyHeader,
        body: Type.Object(
          {
            card_number: Card,
            card_expiry: Type.Optional(CardExpiry),
            pledgers: Type.Optional(
              Type.Array(
                Type.Object(
                  {
                    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
                    phone_number: Type.Optional(Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$' })),
                    name: Type.Optional(Type.String({ maxLength: 100 })),
                    amount_cents: Type.Integer({ minimum: 1 }),
                  },
                  { additionalProperties: false },
                ),
                { maxItems: 20 },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: PayResponse,
          202: PayResponse,
          400: { ...TokenApiError, description: 'Invalid input, e.g. shares that leave the leader nothing' },
          ...BearerErrors,
          402: {
            ...TokenApiError,
            description: "The card was refused; `app_error` is the reason (`card_declined`, `insufficient_funds`, ..., `risk_refused` with the rules' codes in the message)",
          },
          404: { ...TokenApiError, description: "Unknown purchase, or another account's" },
          409: {
            ...TokenApiError,
            description:
              "`purchase_not_payable`, `payment_in_progress`, or `operation_in_progress`: the purchase's offer changed (a fallback taken) as it was paid; nothing was charged, pay again; or " +
              KEY_409,
          },
          422: KEY_422,
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const id = parsePublicId('pur', request.params.purchase_uid);
      const purchase = id ? await merchantPurchase(services, accountId, id) : undefined;
      if (!purchase) throw notFound('purchase');
      request.lang = langOf(purchase.language);
      const pledgers = (request.body.pledgers ?? []).map((p, i) => {
        if (!p.email && !p.phone_number) throw new ApiError(400, 'invalid_request', `field pledgers[${i}] needs an email or a phone_number`);
        if (p.email && !isEmailAddress(p.email)) throw new ApiError(400, 'invalid_request', `field pledgers[${i}].email is not an e-mail address`);
        return { email: p.email, phoneNumber: p.phone_number, name: p.name, amountCents: p.amount_cents };
      });
      const card = sandboxCard(request.body.card_number, clock.now(), 'Sandbox Leader', request.body.card_expiry);
      // The purchase as resolved (`pur_<UUID>` is `pur_<uuid>`): each spelling shares one scope.
      return idempotent(
        db,
        request,
        reply,
        { accountId, resource: { purchase_uid: toPublicId('pur', purchase.id) } },
        async (requestKey) => {
          const answered = requestKey && (await answeredAttempt(accountId, purchase.id, requestKey));
          if (answered) return answered;
          const result: LeaderOutcome = await payAsLeader(payments, purchase, card, pledgers, (paymentId) => leaderReturnUrl(config.publicUrl, purchase.id, paymentId), {
            ip: request.ip,
            ...(requestKey !== undefined ? { requestKey } : {}),
          });
          // Resolved meanwhile by someone else (the reconciliation): moved on, the purchase is not
          // payable; this request's own attempt answers.
          const resolved = result.kind === 'not_payable' && requestKey && (await answeredAttempt(accountId, purchase.id, requestKey));
          return resolved || leaderAnswer(accountId, purchase.id, result);
        },
        invalidKey,
      );
    },
  );

  /**
   * The outcome of an attempt this Idempotency-Key request already made and recorded (its answer
   * lost: the takeover of docs/api-conventions.md#idempotency-key): charged, or awaiting its
   * 3-D Secure challenge. A pending one is resolved by the use case; a refused one is a refusal,
   * never stored, so the call is made afresh. A pledger's charged payment is answered by the use
   * case (the pledge paid, or closed when the payment came too late), so `charged` is the leader's only.
   */
  async function answeredAttempt(accountId: string, purchaseId: string, requestKey: string, charged = true) {
    const own = await paymentOfRequest(services, accountId, purchaseId, requestKey);
    if (charged && (own?.status === 'authorized' || own?.status === 'captured')) return { status: 200, body: await view(accountId, purchaseId) };
    if (own?.status === 'requires_action' && own.challenge_url) return { status: 202, body: { ...(await view(accountId, purchaseId)), challenge_url: own.challenge_url } };
    return undefined;
  }

  async function leaderAnswer(accountId: string, purchaseId: string, result: LeaderOutcome) {
    switch (result.kind) {
      case 'processed':
        return { status: 200, body: await view(accountId, purchaseId) };
      case 'challenge':
        return { status: 202, body: { ...(await view(accountId, purchaseId)), challenge_url: result.url } };
      case 'declined':
        throw declined(result.reason, `card refused (${result.reason}); ${result.attemptsLeft} attempt(s) left, purchase ${V1_STATE[result.state]}`);
      case 'risk_refused':
        throw new ApiError(
          402,
          'risk_refused',
          `refused by the risk rules (${result.reasons.map((r) => r.code).join(', ')}); ${result.attemptsLeft} attempt(s) left, purchase ${V1_STATE[result.state]}`,
        );
      case 'not_payable':
        throw new ApiError(409, 'purchase_not_payable', `a purchase in state ${result.state} cannot be paid`);
      case 'in_progress':
        throw new ApiError(409, 'payment_in_progress', 'a payment of this purchase is in progress');
      case 'offer_changed':
        throw new ApiError(409, 'operation_in_progress', "the purchase's offer changed (a fallback was taken) as it was paid; nothing was charged: pay again on its offer now");
      case 'invalid':
        throw new ApiError(400, 'invalid_request', `field pledgers: ${result.problem.code}${'message' in result.problem ? `: ${result.problem.message}` : ''}`);
    }
  }

  app.post(
    '/api/sandbox/pledges/:pledge_id/pay',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['sandbox'],
        summary: 'Sandbox: pay a pledge as the pledger with a test card',
        security: [{ bearerToken: [] }],
        params: Type.Object({ pledge_id: Type.String({ maxLength: 64 }) }),
        headers: IdempotencyHeader,
        body: Type.Object({ card_number: Card, card_expiry: Type.Optional(CardExpiry) }, { additionalProperties: false }),
        response: {
          200: PayResponse,
          202: PayResponse,
          400: TokenApiError,
          ...BearerErrors,
          402: { ...TokenApiError, description: 'The card was refused; `app_error` is the reason (`risk_refused`: the risk rules, their codes in the message)' },
          404: { ...TokenApiError, description: "Unknown pledge, or another account's" },
          409: { ...TokenApiError, description: `\`pledge_closed\` (pot full, deadline passed, purchase settled), \`payment_in_progress\`, or ${KEY_409}` },
          422: KEY_422,
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const id = parsePublicId('plg', request.params.pledge_id);
      const pledge = id ? await pledgeOf(services, accountId, id) : undefined;
      if (!pledge || pledge.state === 'draft') throw notFound('pledge');
      const card = sandboxCard(request.body.card_number, clock.now(), pledge.name ?? 'Sandbox Pledger', request.body.card_expiry);
      return idempotent(
        db,
        request,
        reply,
        { accountId, resource: { pledge_id: toPublicId('plg', pledge.id) } },
        async (requestKey) => {
          const answered = requestKey && (await answeredAttempt(accountId, pledge.purchaseId, requestKey, false));
          if (answered) return answered;
          const result: PledgeOutcome = await payPledge(payments, pledge, card, (paymentId) => pledgeReturnUrl(config.publicUrl, pledge.id, paymentId), {
            ip: request.ip,
            ...(requestKey !== undefined ? { requestKey } : {}),
          });
          return pledgeAnswer(accountId, pledge.purchaseId, result);
        },
        invalidKey,
      );
    },
  );

  async function pledgeAnswer(accountId: string, purchaseId: string, result: PledgeOutcome) {
    switch (result.kind) {
      case 'paid':
        return { status: 200, body: await view(accountId, purchaseId) };
      case 'challenge':
        return { status: 202, body: { ...(await view(accountId, purchaseId)), challenge_url: result.url } };
      case 'declined':
        throw declined(result.reason, `card refused (${result.reason})`);
      case 'risk_refused':
        throw new ApiError(402, 'risk_refused', `refused by the risk rules (${result.reasons.map((r) => r.code).join(', ')})`);
      case 'already_paid':
        return { status: 200, body: await view(accountId, purchaseId) };
      case 'closed':
        throw new ApiError(409, 'pledge_closed', `the pledge is closed (${result.reason}); nothing is kept (a payment that came too late is refunded)`);
      case 'in_progress':
        throw new ApiError(409, 'payment_in_progress', 'a payment of this pledge is in progress');
    }
  }
}
