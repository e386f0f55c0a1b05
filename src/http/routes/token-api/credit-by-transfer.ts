import { Type } from 'typebox';
import { toPublicId } from '../../../domain/ids.ts';
import type { Services } from '../../../services.ts';
import { creditByTransfer } from '../../../use-cases/refunds/credit-by-transfer.ts';
import { inProgressMessage } from '../../../money/claim.ts';
import { ApiError, notFound, operationInProgress } from '../../errors.ts';
import { idempotent } from '../../idempotency.ts';
import { purchaseIdOf } from '../../purchase-id-param.ts';
import type { App } from '../../types.ts';
import { RefundSchema, refundV1 } from '../../views/refund-v1.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

/** A refund as Merchant API v1 shows it, with the original interface's names beside (`purchase_uid`, `amount_cents`) and how it is given back. */
const CreditByTransferSchema = Type.Object(
  {
    ...RefundSchema.properties,
    purchase_uid: Type.String({ examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    amount_cents: Type.Integer({ description: 'The amount refunded, minor units (the same as `amount`)' }),
    by_transfer: Type.Boolean({
      description:
        "true: the shopper paid by bank transfer and the operator sends this back by transfer; false: refunded on the card(s) the purchase was paid with, at the operator's PSP",
    }),
  },
  { title: 'CreditByTransfer' },
);

/**
 * Token API: `POST /api/purchases/{purchase_uid}/credit_by_transfer` (docs/money-operations.md#refunds-by-transfer),
 * the original interface's refund of a transfer-mode purchase: the operator gives the shopper the
 * amount back and deducts it from what it owes the merchant.
 */
export function registerCreditByTransfer(app: App, services: Services): void {
  const { db } = services;
  app.post(
    '/api/purchases/:purchase_uid/credit_by_transfer',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Token API'],
        summary: 'Refund a transfer-mode purchase',
        description:
          'Only for a purchase created in transfer mode. The operator gives `amount_cents` back to the shopper — on the card(s) the purchase was paid with, or by bank transfer when the shopper paid by transfer — ' +
          'and deducts it from what it owes the merchant. At most what is left to refund. Keys other than `amount_cents` are ignored. ' +
          'Send an `Idempotency-Key` header to make retries safe (docs/api-conventions.md#idempotency-key).',
        security: [{ bearerToken: [] }],
        params: Type.Object({ purchase_uid: Type.String({ description: '`pur_<uuid>` or the bare uuid', examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }) }),
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: 'Makes the refund safe to retry (24 h)' })) }),
        body: Type.Object(
          { amount_cents: Type.Integer({ minimum: 1, maximum: 1e12, description: 'What to give back, minor units of the purchase currency' }) },
          { additionalProperties: true, title: 'CreditByTransferPayload' },
        ),
        response: {
          201: CreditByTransferSchema,
          400: {
            ...TokenApiError,
            description:
              '`invalid_request`: `amount_cents` missing, not an integer, below 1, or above what is left to refund (the message names the field and says how much is left); a malformed Idempotency-Key',
          },
          ...BearerErrors,
          404: { ...TokenApiError, description: "Unknown purchase (or another merchant's)" },
          409: {
            ...TokenApiError,
            description:
              '`not_transfer_mode`: the purchase was not created in transfer mode (refund it with `POST /api/merchants/v1/purchases/{id}/refunds`); ' +
              '`operation_in_progress`: another money operation on this purchase is under way, retry after `Retry-After` seconds; `idempotency_key_in_use`; ' +
              '`charge_disputed`: the amount needs a payment a chargeback is open on',
          },
          422: { ...TokenApiError, description: '`idempotency_key_reused`: the Idempotency-Key was used with another body' },
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const purchaseId = purchaseIdOf(request.params.purchase_uid);
      const amountCents = request.body.amount_cents;
      return idempotent(
        db,
        request,
        reply,
        { accountId, resource: { purchase_uid: purchaseId } },
        async (requestKey) => {
          const outcome = await creditByTransfer(services.payments, { accountId, purchaseId, amountCents, actor: { label: `api_key:${request.auth!.apiKey}` }, requestKey });
          switch (outcome.kind) {
            case 'created':
              return {
                status: 201,
                body: { ...refundV1(outcome.refund), purchase_uid: toPublicId('pur', purchaseId), amount_cents: outcome.refund.amountCents, by_transfer: outcome.byTransfer },
              };
            case 'not_found':
              throw notFound('purchase');
            case 'not_transfer_mode':
              throw new ApiError(409, 'not_transfer_mode', 'the purchase was not created in transfer mode: refund it with POST /api/merchants/v1/purchases/{id}/refunds');
            case 'invalid':
              throw invalid(outcome.message);
            case 'charge_disputed':
              throw new ApiError(409, 'charge_disputed', outcome.message);
            case 'operation_in_progress':
              throw operationInProgress(inProgressMessage(outcome));
          }
        },
        invalid,
      );
    },
  );
}
