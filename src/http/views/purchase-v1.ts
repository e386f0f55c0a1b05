import { Type, type Static } from 'typebox';
import { toPublicId } from '../../domain/ids.ts';
import { paymentPageUrl } from '../../domain/links.ts';
import { V1_STATE } from '../../domain/purchase-states.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import type { Client } from '../../purchases/purchase-repository.ts';

const str = (maxLength: number, extra: object = {}) => Type.String({ maxLength, ...extra });
/** http(s) only: `javascript:` and friends are valid URIs, and hostile. */
export const HttpUrl = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' });
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code', examples: ['EUR'] });
/**
 * A merchant URL for back-mode notifications; `mailto:` sends the same content by e-mail
 * (docs/webhooks.md#back-mode-notification).
 */
export const NotificationUrl = Type.String({ format: 'uri', maxLength: 2048, pattern: '^(https?://|mailto:)' });
/**
 * Where the purchase is notified once when it fails before it was secured, with the original
 * interface's error notification (docs/webhooks.md#error-notification). Same rules as `NotificationUrl`.
 */
export const ErrorNotificationUrl = Type.String({
  ...NotificationUrl,
  description:
    'Receives the error notification, once, when the purchase fails before it was secured: `{"signature": <JWT HS256 of {reference, purchase_state (PRIMARY_KO, SCORING_KO), purchase_uid, state}>}` signed with the offer\'s secret. http(s) or mailto:, as paymentNotificationUrl',
});

const ProductSchema = Type.Object(
  {
    ref: Type.Optional(str(255)),
    label: Type.Optional(str(255)),
    amount: Type.Integer({ minimum: 0, maximum: 1e12, description: 'Price in minor units of the currency' }),
    currency: CurrencyCode,
  },
  { additionalProperties: false, title: 'Product' },
);

/** Bounds of a purchase's `metadata` (Merchant API v1; the purchase link has the same byte bound). */
const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_BYTES = 8 * 1024;

export const NewPurchasePayload = Type.Object(
  {
    ref: Type.Optional(str(255, { description: "The merchant's own purchase reference" })),
    title: Type.String({ minLength: 1, maxLength: 255 }),
    subtitle: Type.Optional(str(255)),
    description: Type.Optional(str(5000)),
    client: Type.Object(
      {
        ref: Type.Optional(str(255)),
        last_name: Type.Optional(str(100)),
        first_name: Type.Optional(str(100)),
        email: Email,
      },
      { additionalProperties: false },
    ),
    picture_url: Type.Optional(HttpUrl),
    amount: Type.Integer({ minimum: 0, maximum: 1e12, description: 'Minor units (cents) of the currency' }),
    currency: Type.Optional({ ...CurrencyCode, description: "ISO 4217 code; default: the offer's currency (EUR)" }),
    callback_url: Type.Optional(HttpUrl),
    products: Type.Optional(Type.Array(ProductSchema, { maxItems: 100 })),
    merchant_uid: Type.Optional(Type.String({ maxLength: 64, description: "Offer (`mer_...`); default: the account's SHARED offer" })),
    paymentNotificationUrl: Type.Optional(NotificationUrl),
    errorNotificationUrl: Type.Optional(ErrorNotificationUrl),
    // Integrations written for the Token API's purchase_link send these to v1 too.
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        maxProperties: MAX_METADATA_KEYS,
        description: `Returned in back-mode notifications (\`metadata\`) and front-end results (\`meta_data\`); at most ${MAX_METADATA_KEYS} keys and 8 KB of JSON`,
      }),
    ),
    language: Type.Optional(
      Type.String({ pattern: '^[a-z]{2}_[A-Z]{2}$', description: "The shopper's locale (`xx_XX`); default from Accept-Language", examples: ['fr_FR', 'en_GB'] }),
    ),
    balance_payment_date: Type.Optional(
      Type.String({
        format: 'date',
        description:
          "DOWN_PAYMENT offers: the balance's due date (`yyyy-mm-dd`), after the purchase's creation and at the latest its creation + the offer's " +
          'maximum balance payment delay (the date used without it); ignored by the other offers (docs/schedules.md#down-payment)',
        examples: ['2026-03-15'],
      }),
    ),
  },
  { additionalProperties: false, title: 'NewPurchasePayload' },
);
export type NewPurchasePayload = Static<typeof NewPurchasePayload>;

export const V1StateSchema = Type.Union([
  Type.Literal('INITIALIZED'),
  Type.Literal('CANCELLED'),
  Type.Literal('FAILED'),
  Type.Literal('REFUNDED'),
  Type.Literal('LEADER_PROCESSED'),
  Type.Literal('SUCCESSFUL'),
]);

const ClientFields = {
  id: Type.String({ format: 'uuid' }),
  ref: Type.Optional(Type.String()),
  last_name: Type.Optional(Type.String()),
  first_name: Type.Optional(Type.String()),
  email: Type.String({ format: 'email' }),
};

export const PurchaseSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    payment_url: Type.String({ format: 'uri' }),
    state: V1StateSchema,
    comment: Type.String(),
    ref: Type.Optional(Type.String()),
    title: Type.String(),
    subtitle: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    client: Type.Object(ClientFields),
    picture_url: Type.Optional(Type.String()),
    amount: Type.Integer(),
    currency: Type.String(),
    callback_url: Type.Optional(Type.String()),
    products: Type.Array(ProductSchema),
    merchant_uid: Type.String(),
    paymentNotificationUrl: Type.Optional(Type.String()),
    errorNotificationUrl: Type.Optional(Type.String({ description: 'Where the purchase failing before it was secured is notified (docs/webhooks.md#error-notification)' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    refunded_amount: Type.Integer({ description: 'What refunds gave back so far, minor units (`GET .../refunds` details them)' }),
  },
  { title: 'Purchase' },
);
export type PurchaseV1 = Static<typeof PurchaseSchema>;

export const ClientSchema = Type.Object({ ...ClientFields, purchases: Type.Array(PurchaseSchema) }, { title: 'Client' });

/** Absent values are left out rather than sent as null: the contract types them as strings. */
function opt<T>(v: T | null): T | undefined {
  return v ?? undefined;
}

export function purchaseV1(p: Purchase, publicUrl: string): PurchaseV1 {
  return {
    id: p.id,
    payment_url: paymentPageUrl(publicUrl, p.id),
    state: V1_STATE[p.state],
    comment: p.comment,
    ref: opt(p.ref),
    title: p.title,
    subtitle: opt(p.subtitle),
    description: opt(p.description),
    client: clientV1(p.client),
    picture_url: opt(p.pictureUrl),
    amount: p.amountCents,
    currency: p.currency,
    callback_url: opt(p.callbackUrl),
    products: p.products,
    merchant_uid: toPublicId('mer', p.offerId),
    paymentNotificationUrl: opt(p.notificationUrl),
    errorNotificationUrl: opt(p.errorNotificationUrl),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    refunded_amount: p.refundedCents,
  };
}

export function clientV1(c: Client) {
  return { id: c.id, ref: opt(c.ref), last_name: opt(c.lastName), first_name: opt(c.firstName), email: c.email };
}
