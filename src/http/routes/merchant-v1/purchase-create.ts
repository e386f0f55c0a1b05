import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { createPurchase } from '../../../use-cases/checkout/create-purchase.ts';
import { langFromAcceptLanguage, EN_FR } from '../../../i18n/lang.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { MAX_METADATA_BYTES, NewPurchasePayload, PurchaseSchema, purchaseV1 } from '../../views/purchase-v1.ts';
import { V1Error } from '../schemas.ts';
import { invalidInput, V1Errors } from './schemas.ts';

/** Merchant API v1: `POST /purchases`, creating a purchase. */
export function registerV1PurchaseCreate(app: App, services: Services): void {
  const { db, config } = services;

  app.post(
    '/api/merchants/v1/purchases',
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
        throw invalidInput(`field metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`);
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
            // Without one, a default no rule reads: the pages and messages follow the shopper (docs/hosted-payment.md#language).
            language: body.language ?? (langFromAcceptLanguage(request.headers['accept-language'], EN_FR) === 'fr' ? 'fr_FR' : 'en_GB'),
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
            throw invalidInput(outcome.merchantUid === undefined ? 'the account has no SHARED offer; give merchant_uid' : `field merchant_uid names no offer of this account`);
          }
          if (outcome.kind === 'invalid') throw invalidInput(`field ${outcome.field} ${outcome.message}`);
          return { status: 201, body: purchaseV1(outcome.purchase, config.publicUrl) };
        },
        invalidInput,
      );
    },
  );
}
