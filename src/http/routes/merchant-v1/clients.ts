import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { merchantClient } from '../../../use-cases/back-office/merchant-purchases.ts';
import { notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import { ClientSchema, clientV1, purchaseV1 } from '../../views/purchase-v1.ts';
import { V1Errors } from './schemas.ts';
import { V1Error } from '../schemas.ts';

/** The most recent purchases listed with a client; the purchases listing pages through all of them. */
const CLIENT_PURCHASES = 100;

/** Merchant API v1: clients. */
export function registerV1Clients(app: App, services: Services): void {
  const { config } = services;
  app.get(
    '/api/merchants/v1/clients/:id',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'Get a client with their purchases',
        description: `Purchases newest first, at most ${CLIENT_PURCHASES}.`,
        security: [{ bearerToken: [] }],
        params: Type.Object({ id: Type.String({ description: 'Service identifier of the client (uuid)' }) }),
        response: { 200: ClientSchema, ...V1Errors, 404: { ...V1Error, description: 'Unknown client' } },
      },
    },
    async (request) => {
      const found = await merchantClient(services, request.auth!.accountId, request.params.id, CLIENT_PURCHASES);
      if (!found) throw notFound('client');
      const { client, purchases } = found;
      return { ...clientV1(client), purchases: purchases.map((p) => purchaseV1(p, config.publicUrl)) };
    },
  );
}
