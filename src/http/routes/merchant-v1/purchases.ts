import { Type } from 'typebox';
import { internalStatesOf } from '../../../domain/purchase-states.ts';
import type { Services } from '../../../services.ts';
import { createPurchase } from '../../../use-cases/create-purchase.ts';
import { merchantPurchase, merchantPurchases } from '../../../use-cases/merchant-purchases.ts';
import { ApiError, notFound } from '../../errors.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import { langFromAcceptLanguage } from '../../../i18n/lang.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { MAX_METADATA_BYTES, NewPurchasePayload, PurchaseSchema, purchaseV1, V1StateSchema } from '../../views/purchase-v1.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { V1Error } from '../schemas.ts';

const BASE = '/api/merchants/v1';

export const V1Errors = {
  401: { ...V1Error, description: 'Missing, malformed, expired or revoked access token' },
};

const invalid = (message: string) => new ApiError(406, 'invalid_input', message);

/** Merchant API v1: purchases. */
export function registerV1Purchases(app: App, services: Services): void {
  const { db, config } = services;

  app.post(
    `${BASE}/purchases`,
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Merchant API v1'],
        summary: 'Create a purchase',
        description:
          "Required: `title`, `amount`, `client.email`. `currency` defaults to the offer's (EUR); `merchant_uid` to the account's SHARED offer. " +
          'Unknown fields are refused. Send an `Idempotency-Key` header to make retries safe.',
        security: [{ bearerToken: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: 'Makes the creation safe to retry (24 h)' })) }),
        body: NewPurchasePayload,
        response: {
          201: PurchaseSchema,
          ...V1Errors,
          406: { ...V1Error, description: 'Incorrect input data; the message names the field' },
          409: { ...V1Error, description: 'A request with the same Idempotency-Key is still in progress' },
          422: { ...V1Error, description: 'The Idempotency-Key was used with another body' },
          default: { ...V1Error, description: 'Unanticipated error, with a request id' },
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const body = request.body;
      if (body.metadata && Buffer.byteLength(JSON.stringify(body.metadata)) > MAX_METADATA_BYTES) {
        throw invalid(`field metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`);
      }
      return idempotent(
        db,
        request,
        reply,
        { accountId },
        async (requestKey) => {
          const outcome = await createPurchase(services, {
            accountId,
            requestKey,
            merchantUid: body.merchant_uid,
            ref: body.ref,
            title: body.title,
            subtitle: body.subtitle,
            description: body.description,
            pictureUrl: body.picture_url,
            amountCents: body.amount,
            currency: body.currency,
            // Without one, a default for the messages; the hosted pages follow the shopper's browser (docs/hosted-payment.md#language).
            language: body.language ?? (langFromAcceptLanguage(request.headers['accept-language']) === 'fr' ? 'fr_FR' : 'en_GB'),
            languageSet: body.language !== undefined,
            metadata: body.metadata,
            callbackUrl: body.callback_url,
            notificationUrl: body.paymentNotificationUrl,
            errorNotificationUrl: body.errorNotificationUrl,
            products: body.products,
            balancePaymentDate: body.balance_payment_date,
            client: { ref: body.client.ref, email: body.client.email, firstName: body.client.first_name, lastName: body.client.last_name },
          });
          if (outcome.kind === 'no_offer') {
            throw invalid(outcome.merchantUid === undefined ? 'the account has no SHARED offer; give merchant_uid' : `field merchant_uid names no offer of this account`);
          }
          if (outcome.kind === 'invalid') throw invalid(`field ${outcome.field} ${outcome.message}`);
          return { status: 201, body: purchaseV1(outcome.purchase, config.publicUrl) };
        },
        invalid,
      );
    },
  );

  app.get(
    `${BASE}/purchases/:id`,
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

  app.get(
    `${BASE}/purchases`,
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
      if (q.cursor !== undefined && !before) throw invalid('query field cursor is not a cursor from this API');
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
