import type { Services } from '../../../services.ts';
import { merchantPurchase } from '../../../use-cases/back-office/merchant-purchases.ts';
import { notFound } from '../../errors.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import type { App } from '../../types.ts';
import { PurchaseSchema, purchaseV1 } from '../../views/purchase-v1.ts';
import { V1Error } from '../schemas.ts';
import { V1Errors } from './schemas.ts';

/** Merchant API v1: `GET /purchases/{id}`, one purchase. */
export function registerV1PurchaseRead(app: App, services: Services): void {
  const { config } = services;

  app.get(
    '/api/merchants/v1/purchases/:id',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'Get a purchase',
        security: [{ bearerToken: [] }],
        params: PurchaseIdParams,
        response: { 200: PurchaseSchema, ...V1Errors, 404: { ...V1Error, description: 'Unknown purchase' } },
      },
    },
    async (request) => {
      const purchase = await merchantPurchase(services, request.auth!.accountId, purchaseIdOf(request.params.id));
      if (!purchase) throw notFound('purchase');
      return purchaseV1(purchase, config.publicUrl);
    },
  );
}
