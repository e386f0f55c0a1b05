import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { purchaseRefunds } from '../../../use-cases/refunds/refund-purchase.ts';
import { notFound } from '../../errors.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import type { App } from '../../types.ts';
import { RefundSchema, refundV1 } from '../../views/refund-v1.ts';
import { V1Error } from '../schemas.ts';
import { V1Errors } from './schemas.ts';

/** Merchant API v1: `GET /purchases/{id}/refunds`, a purchase's refunds. */
export function registerV1RefundList(app: App, services: Services): void {
  app.get(
    '/api/merchants/v1/purchases/:id/refunds',
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
}
