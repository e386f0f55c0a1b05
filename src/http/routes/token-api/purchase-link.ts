import { Type } from 'typebox';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import type { Violation } from '../../../purchases/validate.ts';
import type { Services } from '../../../services.ts';
import { createPurchase } from '../../../use-cases/checkout/create-purchase.ts';
import { sendPurchaseLink } from '../../../use-cases/checkout/send-purchase-link.ts';
import { ApiError, notFound } from '../../errors.ts';
import { langFromAcceptLanguage, langOf, EN_FR } from '../../../i18n/lang.ts';
import { normalizePhone } from '../../../messaging/phone-numbers.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { CurrencyCode, Email, ErrorNotificationUrl, HttpUrl, NotificationUrl } from '../../views/purchase-v1.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

const Phone = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'International format with a leading +', examples: ['+33612345678'] });
const opt = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

// Integrations of the contract send more `data` keys than it lists; unknown keys are ignored
// rather than refused, so that those integrations keep working.
const PurchaseLinkData = Type.Object(
  {
    merchantUid: Type.Optional(Type.String({ maxLength: 64, description: "Must equal the path's merchant_uid when given" })),
    title: Type.String({ minLength: 1, maxLength: 255 }),
    reference: opt(255),
    amountCents: Type.Integer({ minimum: 0, maximum: 1e12, description: 'Minor units of the currency' }),
    email: Email,
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2}_[A-Z]{2}$', examples: ['fr_FR', 'en_GB'] })),
    firstName: opt(100),
    lastName: opt(100),
    phoneNumber: Type.Optional(Phone),
    currency: Type.Optional(CurrencyCode),
    subtitle: opt(255),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Returned with notifications' })),
    paymentNotificationUrl: Type.Optional(NotificationUrl),
    errorNotificationUrl: Type.Optional(ErrorNotificationUrl),
    redirectUrl: Type.Optional(HttpUrl),
    cancelUrl: Type.Optional(HttpUrl),
    balancePaymentDate: Type.Optional(
      Type.String({
        format: 'date',
        description:
          "DOWN_PAYMENT offers: the balance's due date (`yyyy-mm-dd`), after the purchase's creation and at the latest its creation + the offer's " +
          'maximum balance payment delay (the date used without it); ignored by the other offers (docs/schedules.md#down-payment)',
      }),
    ),
  },
  { additionalProperties: true },
);

const PurchaseLinkSettings = Type.Object(
  {
    send_email: Type.Optional(Type.Boolean()),
    email: Type.Optional(Email),
    send_sms: Type.Optional(Type.Boolean()),
    phone_number: Type.Optional(Phone),
  },
  { additionalProperties: true },
);

const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

/** The use case names fields as Merchant API v1 does; this API's are inside `data`, in camelCase. */
function fieldOf(v: Violation): string {
  if (v.field === 'amount') return 'data.amountCents';
  if (v.field === 'balance_payment_date') return 'data.balancePaymentDate';
  return `data.${v.field}`;
}

/** Metadata is stored and sent back with every notification: keep it small. */
const MAX_METADATA_BYTES = 8 * 1024;

/** Token API: create a purchase and send its payment link to the leader by e-mail and/or SMS. */
export function registerPurchaseLink(app: App, services: Services): void {
  const { db, config, messenger } = services;

  app.post(
    '/api/merchants/:merchant_uid/purchase_link',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['Token API'],
        summary: 'Create a purchase and its payment link, optionally sent by e-mail and/or SMS',
        security: [{ bearerToken: [] }],
        params: Type.Object({ merchant_uid: Type.String({ description: "Offer (`mer_...`) of the token's account" }) }),
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: Type.Object({ data: PurchaseLinkData, purchase_link_settings: Type.Optional(PurchaseLinkSettings) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            purchase_uid: Type.String({ examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
            url: Type.String({ format: 'uri' }),
            email_has_been_sent: Type.Optional(Type.Boolean({ description: 'Present when an e-mail was requested: whether the mail server accepted it' })),
            sms_has_been_sent: Type.Optional(Type.Boolean({ description: 'Present when an SMS was requested: whether the gateway accepted it' })),
          }),
          400: { ...TokenApiError, description: 'Invalid input; `debug` names the field' },
          ...BearerErrors,
          404: { ...TokenApiError, description: 'Unknown merchant_uid, or one of another account' },
          409: { ...TokenApiError, description: 'Same Idempotency-Key still in progress' },
          422: { ...TokenApiError, description: 'Idempotency-Key used with another body' },
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const { data, purchase_link_settings: settings = {} } = request.body;
      const language = data.language ?? (langFromAcceptLanguage(request.headers['accept-language'], EN_FR) === 'fr' ? 'fr_FR' : 'en_GB');
      request.lang = langOf(language);

      if (data.merchantUid !== undefined && data.merchantUid !== request.params.merchant_uid) {
        throw invalid('field data.merchantUid differs from the merchant_uid of the path');
      }
      if (settings.send_email && !settings.email) throw invalid('field purchase_link_settings.email is required when send_email is true');
      if (settings.send_sms && !settings.phone_number) throw invalid('field purchase_link_settings.phone_number is required when send_sms is true');
      // The pattern lets through numbers of an impossible length for their country code (`+331234`):
      // an SMS to one would never arrive, so they are refused here, naming the field.
      for (const [field, value] of [
        ['data.phoneNumber', data.phoneNumber],
        ['purchase_link_settings.phone_number', settings.phone_number],
      ] as const) {
        if (value !== undefined && normalizePhone(value) === undefined) throw invalid(`field ${field} is not a possible phone number for its country code: ${value}`);
      }
      if (data.metadata && Buffer.byteLength(JSON.stringify(data.metadata)) > MAX_METADATA_BYTES) {
        throw invalid(`field data.metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`);
      }

      // The offer as resolved (`mer_<UUID>` is `mer_<uuid>`), so each spelling shares one scope.
      const offerId = parsePublicId('mer', request.params.merchant_uid);
      const resource = { merchant_uid: offerId ? toPublicId('mer', offerId) : request.params.merchant_uid };
      return idempotent(
        db,
        request,
        reply,
        { accountId, resource },
        async (requestKey) => {
          const outcome = await createPurchase(services, {
            accountId,
            requestKey,
            merchantUid: request.params.merchant_uid,
            ref: data.reference,
            title: data.title,
            subtitle: data.subtitle,
            amountCents: data.amountCents,
            currency: data.currency,
            language,
            // Without one, a default no rule reads: the pages and messages follow the shopper (docs/hosted-payment.md#language).
            languageSet: data.language !== undefined,
            phoneNumber: data.phoneNumber,
            callbackUrl: data.redirectUrl,
            cancelUrl: data.cancelUrl,
            notificationUrl: data.paymentNotificationUrl,
            errorNotificationUrl: data.errorNotificationUrl,
            balancePaymentDate: data.balancePaymentDate,
            metadata: data.metadata,
            client: { email: data.email, firstName: data.firstName, lastName: data.lastName },
          });
          if (outcome.kind === 'no_offer') throw notFound('merchant_uid');
          if (outcome.kind === 'invalid') throw invalid(`field ${fieldOf(outcome)} ${outcome.message}`);
          // The purchase is committed before anything is sent: a failed send never loses it.
          const sent = await sendPurchaseLink(
            { messenger, publicUrl: config.publicUrl },
            {
              purchase: outcome.purchase,
              merchantName: outcome.offer.accountName,
              timeZone: outcome.offer.accountTimeZone,
              email: settings.send_email ? settings.email : undefined,
              phoneNumber: settings.send_sms ? settings.phone_number : undefined,
              firstName: data.firstName,
              offer: outcome.offer,
              accountLanguage: outcome.offer.accountLanguage,
            },
          );
          return {
            status: 200,
            body: {
              purchase_uid: toPublicId('pur', outcome.purchase.id),
              url: sent.url,
              ...(sent.emailSent === undefined ? {} : { email_has_been_sent: sent.emailSent }),
              ...(sent.smsSent === undefined ? {} : { sms_has_been_sent: sent.smsSent }),
            },
          };
        },
        invalid,
      );
    },
  );
}
