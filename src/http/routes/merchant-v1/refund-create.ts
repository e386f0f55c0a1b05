import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { refundPurchase } from '../../../use-cases/refunds/refund-purchase.ts';
import { inProgressMessage } from '../../../money/claim.ts';
import { ApiError, notFound, operationInProgress } from '../../errors.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { NewRefundPayload, noBodyIsEmpty, RefundSchema, refundV1 } from '../../views/refund-v1.ts';
import { V1Error } from '../schemas.ts';
import { invalidInput, V1Errors } from './schemas.ts';

/** Merchant API v1: `POST /purchases/{id}/refunds`, refunding a purchase (docs/purchase-lifecycle.md#refunds). */
export function registerV1RefundCreate(app: App, services: Services): void {
  const { db } = services;

  app.post(
    '/api/merchants/v1/purchases/:id/refunds',
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
          if (outcome.kind === 'invalid') throw invalidInput(outcome.message);
          if (outcome.kind === 'charge_disputed') throw new ApiError(409, 'charge_disputed', outcome.message);
          if (outcome.kind === 'operation_in_progress') throw operationInProgress(inProgressMessage(outcome));
          return { status: 201, body: refundV1(outcome.refund) };
        },
        invalidInput,
      );
    },
  );
}
