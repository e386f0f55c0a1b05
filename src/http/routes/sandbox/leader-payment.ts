import { Type } from 'typebox';
import { isEmailAddress } from '../../../domain/email.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { leaderReturnUrl } from '../../../domain/links.ts';
import type { LeaderOutcome } from '../../../use-cases/checkout/leader-outcome.ts';
import { payAsLeader } from '../../../use-cases/checkout/pay-as-leader.ts';
import { merchantPurchase } from '../../../use-cases/back-office/merchant-purchases.ts';
import type { Services } from '../../../services.ts';
import { ApiError, notFound } from '../../errors.ts';
import { idempotent } from '../../idempotency.ts';
import { langOf } from '../../../i18n/lang.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';
import { answeredAttempt, declined, invalidKey, payView, sandboxCard } from './payment-answers.ts';
import { Card, CardExpiry, IdempotencyHeader, KEY_409, KEY_422, PayResponse } from './payment-schemas.ts';

async function leaderAnswer(services: Services, accountId: string, purchaseId: string, result: LeaderOutcome) {
  switch (result.kind) {
    case 'processed':
      return { status: 200, body: await payView(services, accountId, purchaseId) };
    case 'challenge':
      return { status: 202, body: { ...(await payView(services, accountId, purchaseId)), challenge_url: result.url } };
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

/** Sandbox helper: pay as the leader with a test card, optionally inviting pledgers (docs/architecture.md#one-flow-from-route-to-repository). */
export function registerSandboxLeaderPayment(app: App, services: Services): void {
  const { db, clock, config, payments } = services;

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
          const answered = requestKey && (await answeredAttempt(services, accountId, purchase.id, requestKey));
          if (answered) return answered;
          const result: LeaderOutcome = await payAsLeader(payments, purchase, card, pledgers, (paymentId) => leaderReturnUrl(config.publicUrl, purchase.id, paymentId), {
            ip: request.ip,
            ...(requestKey !== undefined ? { requestKey } : {}),
          });
          // Resolved meanwhile by someone else (the reconciliation): moved on, the purchase is not
          // payable; this request's own attempt answers.
          const resolved = result.kind === 'not_payable' && requestKey && (await answeredAttempt(services, accountId, purchase.id, requestKey));
          return resolved || leaderAnswer(services, accountId, purchase.id, result);
        },
        invalidKey,
      );
    },
  );
}
