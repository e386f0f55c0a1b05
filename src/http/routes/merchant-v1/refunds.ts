import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { cancelPurchase, type CancelOutcome } from '../../../use-cases/cancel-purchase.ts';
import { purchaseRefunds, refundPurchase } from '../../../use-cases/refund-purchase.ts';
import { merchantPurchase } from '../../../use-cases/merchant-purchases.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { ApiError, notFound, operationInProgress } from '../../errors.ts';
import { inProgressMessage } from '../../../use-cases/money-claim.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { PurchaseSchema, purchaseV1 } from '../../views/purchase-v1.ts';
import { NewRefundPayload, noBodyIsEmpty, RefundSchema, refundV1 } from '../../views/refund-v1.ts';
import { V1Errors } from './schemas.ts';
import { V1Error } from '../schemas.ts';

const BASE = '/api/merchants/v1';
const invalid = (message: string) => new ApiError(406, 'invalid_input', message);

/** The 409 of a cancel that cannot be made, in words both API families use. */
export function cancelRefusal(outcome: Exclude<CancelOutcome, { kind: 'cancelled' } | { kind: 'not_found' }>): ApiError {
  if (outcome.kind === 'operation_in_progress') return operationInProgress(inProgressMessage(outcome));
  return outcome.kind === 'captured'
    ? new ApiError(409, 'invalid_purchase_state', 'money was captured on this purchase: refund it instead')
    : new ApiError(409, 'invalid_purchase_state', `a purchase in state ${V1_STATE[outcome.state]} cannot be cancelled`);
}

/**
 * Merchant API v1: refunds and cancellation of a purchase (docs/purchase-lifecycle.md#refunds,
 * #cancel).
 */
export function registerV1Refunds(app: App, services: Services): void {
  const { db, config } = services;

  app.post(
    `${BASE}/purchases/:id/refunds`,
    {
      // No body at all means no amount: everything still refundable.
      preValidation: noBodyIsEmpty,
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'Refund a purchase, fully or partly',
        description:
          'Without `amount`, everything still refundable. Uncollected installments are lowered first (from the last), then captured money is paid ' +
          "back, on a pot to each contributor in proportion to what they paid (largest remainder, to the cent); a deferred payment's hold is " +
          'lowered (voided at 0). Each payment is refunded at its PSP; a refusal makes the refund `failed` and changes nothing else. ' +
          'Fully refunded, the purchase is REFUNDED. Send an `Idempotency-Key` header to make retries safe.',
        security: [{ bearerToken: [] }],
        params: PurchaseIdParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: 'Makes the refund safe to retry (24 h)' })) }),
        body: NewRefundPayload,
        response: {
          201: RefundSchema,
          ...V1Errors,
          404: { ...V1Error, description: 'Unknown purchase' },
          406: {
            ...V1Error,
            description:
              '`amount` not a positive integer, above what is refundable, nothing captured, or a share the PSP cannot refund as it is (Midtrans: sen in IDR); the message names the field',
          },
          409: {
            ...V1Error,
            description:
              '`idempotency_key_in_use`: a request with the same Idempotency-Key is still in progress; `operation_in_progress`: another money operation on this purchase (a collection, a capture, a cancel, another refund not finished) is under way, retry after `Retry-After` seconds; ' +
              '`charge_disputed`: the amount (everything left, without `amount`) needs a payment a chargeback is open on, which cannot be refunded until the bank decides; the message says how much can be refunded now',
          },
          422: { ...V1Error, description: 'The Idempotency-Key was used with another body' },
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const purchaseId = purchaseIdOf(request.params.id);
      const body = request.body;
      return idempotent(
        db,
        request,
        reply,
        // The purchase as resolved: `pur_<id>`, `<id>` and `<ID>` are one purchase, so one scope.
        { accountId, resource: { id: purchaseId } },
        async (requestKey) => {
          const outcome = await refundPurchase(services.payments, {
            accountId,
            purchaseId,
            amountCents: body.amount,
            reason: body.reason,
            actor: { label: `api_key:${request.auth!.apiKey}` },
            requestKey,
          });
          if (outcome.kind === 'not_found') throw notFound('purchase');
          if (outcome.kind === 'invalid') throw invalid(outcome.message);
          if (outcome.kind === 'charge_disputed') throw new ApiError(409, 'charge_disputed', outcome.message);
          if (outcome.kind === 'operation_in_progress') throw operationInProgress(inProgressMessage(outcome));
          return { status: 201, body: refundV1(outcome.refund) };
        },
        invalid,
      );
    },
  );

  app.get(
    `${BASE}/purchases/:id/refunds`,
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: "List a purchase's refunds, oldest first",
        security: [{ bearerToken: [] }],
        params: PurchaseIdParams,
        response: { 200: Type.Object({ data: Type.Array(RefundSchema) }), ...V1Errors, 404: { ...V1Error, description: 'Unknown purchase' } },
      },
    },
    async (request) => {
      const refunds = await purchaseRefunds(services.payments, request.auth!.accountId, purchaseIdOf(request.params.id));
      if (!refunds) throw notFound('purchase');
      return { data: refunds.map(refundV1) };
    },
  );

  app.post(
    `${BASE}/purchases/:id/cancel`,
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'Cancel a purchase on which nothing was captured',
        description: 'Holds are voided, open pledges closed, installments not collected dropped: CANCELLED. When money was captured: 409, refund instead. No body.',
        security: [{ bearerToken: [] }],
        params: PurchaseIdParams,
        response: {
          200: PurchaseSchema,
          ...V1Errors,
          404: { ...V1Error, description: 'Unknown purchase' },
          409: {
            ...V1Error,
            description:
              '`invalid_purchase_state`: money was captured (refund instead), or the purchase is already settled; `operation_in_progress`: another money operation on this purchase is under way, retry after `Retry-After` seconds',
          },
        },
      },
    },
    async (request) => {
      const accountId = request.auth!.accountId;
      const purchaseId = purchaseIdOf(request.params.id);
      const outcome = await cancelPurchase(services.payments, { accountId, purchaseId, actor: { label: `api_key:${request.auth!.apiKey}` } });
      if (outcome.kind === 'not_found') throw notFound('purchase');
      if (outcome.kind !== 'cancelled') throw cancelRefusal(outcome);
      return purchaseV1((await merchantPurchase(services, accountId, purchaseId))!, config.publicUrl);
    },
  );
}
