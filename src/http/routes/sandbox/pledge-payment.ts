import { Type } from 'typebox';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { pledgeReturnUrl } from '../../../domain/links.ts';
import { payPledge, type PledgeOutcome } from '../../../use-cases/pot/pay-pledge.ts';
import { pledgeOf } from '../../../use-cases/checkout/payment-lookup.ts';
import type { Services } from '../../../services.ts';
import { ApiError, notFound } from '../../errors.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';
import { answeredAttempt, declined, invalidKey, payView, sandboxCard } from './payment-answers.ts';
import { Card, CardExpiry, IdempotencyHeader, KEY_409, KEY_422, PayResponse } from './payment-schemas.ts';

async function pledgeAnswer(services: Services, accountId: string, purchaseId: string, result: PledgeOutcome) {
  switch (result.kind) {
    case 'paid':
      return { status: 200, body: await payView(services, accountId, purchaseId) };
    case 'challenge':
      return { status: 202, body: { ...(await payView(services, accountId, purchaseId)), challenge_url: result.url } };
    case 'declined':
      throw declined(result.reason, `card refused (${result.reason})`);
    case 'risk_refused':
      throw new ApiError(402, 'risk_refused', `refused by the risk rules (${result.reasons.map((r) => r.code).join(', ')})`);
    case 'already_paid':
      return { status: 200, body: await payView(services, accountId, purchaseId) };
    case 'closed':
      throw new ApiError(409, 'pledge_closed', `the pledge is closed (${result.reason}); nothing is kept (a payment that came too late is refunded)`);
    case 'in_progress':
      throw new ApiError(409, 'payment_in_progress', 'a payment of this pledge is in progress');
  }
}

/** Sandbox helper: pay a pledge as the pledger with a test card, the same code path as the pledge page. */
export function registerSandboxPledgePayment(app: App, services: Services): void {
  const { db, clock, config, payments } = services;

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
          const answered = requestKey && (await answeredAttempt(services, accountId, pledge.purchaseId, requestKey, false));
          if (answered) return answered;
          const result: PledgeOutcome = await payPledge(payments, pledge, card, (paymentId) => pledgeReturnUrl(config.publicUrl, pledge.id, paymentId), {
            ip: request.ip,
            ...(requestKey !== undefined ? { requestKey } : {}),
          });
          return pledgeAnswer(services, accountId, pledge.purchaseId, result);
        },
        invalidKey,
      );
    },
  );
}
