import { Type } from 'typebox';
import { internalStatesOf } from '../../../domain/purchase-states.ts';
import type { Services } from '../../../services.ts';
import { merchantPurchases } from '../../../use-cases/back-office/merchant-purchases.ts';
import type { App } from '../../types.ts';
import { PurchaseSchema, purchaseV1, V1StateSchema } from '../../views/purchase-v1.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { V1Error } from '../schemas.ts';
import { invalidInput, V1Errors } from './schemas.ts';

/** Merchant API v1: `GET /purchases`, the account's purchases by page. */
export function registerV1PurchaseList(app: App, services: Services): void {
  const { config } = services;

  app.get(
    '/api/merchants/v1/purchases',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'List purchases, newest first (beyond the contract)',
        description: 'Cursor pagination: pass `next_cursor` of a page as `cursor` to get the next one.',
        security: [{ bearerToken: [] }],
        querystring: Type.Object(
          {
            state: Type.Optional(V1StateSchema),
            ref: Type.Optional(Type.String({ maxLength: 255 })),
            created_from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive' })),
            created_to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(PurchaseSchema), has_more: Type.Boolean(), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...V1Errors,
          406: { ...V1Error, description: 'Invalid filter' },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = q.limit ?? 20;
      const before = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      if (q.cursor !== undefined && !before) throw invalidInput('query field cursor is not a cursor from this API');
      const rows = await merchantPurchases(services, request.auth!.accountId, {
        states: q.state && internalStatesOf(q.state),
        ref: q.ref,
        createdFrom: q.created_from ? new Date(q.created_from) : undefined,
        createdTo: q.created_to ? new Date(q.created_to) : undefined,
        before,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const hasMore = rows.length > limit;
      return {
        data: page.map((p) => purchaseV1(p, config.publicUrl)),
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor(last.createdAt, last.id) : null,
      };
    },
  );
}
