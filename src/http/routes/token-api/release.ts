import { Type } from 'typebox';
import { toPublicId } from '../../../domain/ids.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import type { Services } from '../../../services.ts';
import { inProgressMessage } from '../../../money/claim.ts';
import { releasePurchase } from '../../../use-cases/checkout/release-purchase.ts';
import { ApiError, notFound, operationInProgress } from '../../errors.ts';
import { purchaseIdOf } from '../../purchase-id-param.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

/**
 * Token API: `POST /api/purchases/{purchase_uid}/release` (docs/money-operations.md#release), the
 * original interface's release of a purchase whose money the merchant has not taken: the merchant's
 * cancel, answered like `abort` and safe to repeat.
 */
export function registerRelease(app: App, services: Services): void {
  app.post(
    '/api/purchases/:purchase_uid/release',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Token API'],
        summary: 'Release a purchase: give the shopper everything back',
        description:
          "For a purchase on which nothing was captured (unpaid, or only authorised: a pot's guarantee, a deferred payment's hold): it is cancelled, its holds voided at once, open pledges closed, " +
          'installments not collected dropped. Repeating it (or releasing a purchase already cancelled, expired or aborted) answers the same 200. Money already captured is refunded instead. No body.',
        security: [{ bearerToken: [] }],
        params: Type.Object({ purchase_uid: Type.String({ description: '`pur_<uuid>` or the bare uuid', examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }) }),
        response: {
          200: Type.Object({ purchase_uid: Type.String(), state: Type.Literal('CANCELLED', { description: 'Merchant API v1 state' }) }),
          ...BearerErrors,
          404: { ...TokenApiError, description: "Unknown purchase (or another merchant's)" },
          409: {
            ...TokenApiError,
            description:
              '`purchase_not_releasable`: money was captured (refund it: `credit_by_transfer` in transfer mode, the refunds of Merchant API v1 otherwise), or the purchase failed or was refunded; ' +
              '`operation_in_progress`: another money operation on this purchase is under way, retry after `Retry-After` seconds',
          },
        },
      },
    },
    async (request) => {
      const accountId = request.auth!.accountId;
      const purchaseId = purchaseIdOf(request.params.purchase_uid);
      const outcome = await releasePurchase(services.payments, { accountId, purchaseId, actor: { label: `api_key:${request.auth!.apiKey}` } });
      switch (outcome.kind) {
        case 'released':
          return { purchase_uid: toPublicId('pur', purchaseId), state: 'CANCELLED' as const };
        case 'not_found':
          throw notFound('purchase');
        case 'captured':
          throw new ApiError(409, 'purchase_not_releasable', 'money was captured on this purchase: the merchant has it, refund it instead');
        case 'not_releasable':
          throw new ApiError(409, 'purchase_not_releasable', `a purchase in state ${V1_STATE[outcome.state]} holds nothing to release`);
        case 'operation_in_progress':
          throw operationInProgress(inProgressMessage(outcome));
      }
    },
  );
}
