import { Type } from 'typebox';
import { parsePublicId } from '../../../domain/ids.ts';
import type { Services } from '../../../services.ts';
import { abortPurchase } from '../../../use-cases/checkout/abort-purchase.ts';
import { ApiError, notFound } from '../../errors.ts';
import { langOf } from '../../../i18n/lang.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

/**
 * Token API: abort a purchase still in its early stage (docs/purchase-lifecycle.md#abort: only
 * CREATED is abortable).
 */
export function registerAbort(app: App, services: Services): void {
  app.post(
    '/api/purchases/:purchase_uid/abort',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Token API'],
        summary: 'Abort a purchase',
        description: 'Only a purchase on which nothing was authorised yet (v1 state INITIALIZED) can be aborted. No body.',
        security: [{ bearerToken: [] }],
        params: Type.Object({ purchase_uid: Type.String({ examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }) }),
        response: {
          200: Type.Object({ purchase_uid: Type.String(), state: Type.Literal('ABORTED') }),
          ...BearerErrors,
          404: { ...TokenApiError, description: 'Invalid purchase UID' },
          409: { ...TokenApiError, description: '`purchase_non_abortable` or `purchase_already_aborted`' },
        },
      },
    },
    async (request) => {
      const accountId = request.auth!.accountId;
      const uid = request.params.purchase_uid;
      const id = parsePublicId('pur', uid);
      if (!id) throw notFound('purchase');
      const outcome = await abortPurchase(services, { accountId, purchaseId: id });
      switch (outcome.kind) {
        case 'aborted':
          break;
        case 'not_found':
          throw notFound('purchase');
        case 'already_aborted':
          if (outcome.language) request.lang = langOf(outcome.language);
          throw new ApiError(409, 'purchase_already_aborted', 'the purchase is already aborted');
        case 'non_abortable':
          if (outcome.language) request.lang = langOf(outcome.language);
          throw new ApiError(409, 'purchase_non_abortable', `a purchase in state ${outcome.state} cannot be aborted`);
      }
      return { purchase_uid: `pur_${id}`, state: 'ABORTED' as const };
    },
  );
}
