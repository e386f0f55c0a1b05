import type { Services } from '../../../services.ts';
import { cancelPurchase, type CancelOutcome } from '../../../use-cases/checkout/cancel-purchase.ts';
import { merchantPurchase } from '../../../use-cases/back-office/merchant-purchases.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { ApiError, notFound, operationInProgress } from '../../errors.ts';
import { inProgressMessage } from '../../../money/claim.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import type { App } from '../../types.ts';
import { PurchaseSchema, purchaseV1 } from '../../views/purchase-v1.ts';
import { V1Error } from '../schemas.ts';
import { V1Errors } from './schemas.ts';

/** The 409 of a cancel that cannot be made, in words both API families use. */
export function cancelRefusal(outcome: Exclude<CancelOutcome, { kind: 'cancelled' } | { kind: 'not_found' }>): ApiError {
  if (outcome.kind === 'operation_in_progress') return operationInProgress(inProgressMessage(outcome));
  return outcome.kind === 'captured'
    ? new ApiError(409, 'invalid_purchase_state', 'money was captured on this purchase: refund it instead')
    : new ApiError(409, 'invalid_purchase_state', `a purchase in state ${V1_STATE[outcome.state]} cannot be cancelled`);
}

/** Merchant API v1: `POST /purchases/{id}/cancel`, cancelling a purchase nothing was captured on (docs/purchase-lifecycle.md#cancel). */
export function registerV1PurchaseCancel(app: App, services: Services): void {
  const { config } = services;

  app.post(
    '/api/merchants/v1/purchases/:id/cancel',
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
