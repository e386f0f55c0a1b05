import type { PurchaseState } from '../domain/purchase-states.ts';

/** A line of the basket, as the merchant sent it (Merchant API v1 Product). */
export interface Product {
  ref?: string;
  label?: string;
  amount: number;
  currency: string;
}

/** A purchase with its client, as stored: the one model behind both API families. */
export interface Purchase {
  id: string;
  accountId: string;
  offerId: string;
  state: PurchaseState;
  comment: string;
  ref: string | null;
  title: string;
  subtitle: string | null;
  description: string | null;
  pictureUrl: string | null;
  amountCents: number;
  currency: string;
  language: string;
  /**
   * Whether the merchant chose `language`. When not (Merchant API v1, the Token API's purchase
   * link or a plugin without one), `language` is a default no rule reads: the pages and messages
   * follow the shopper (docs/hosted-payment.md#language).
   */
  languageSet: boolean;
  phoneNumber: string | null;
  callbackUrl: string | null;
  cancelUrl: string | null;
  notificationUrl: string | null;
  /** Where a purchase failing before it was secured is notified (docs/webhooks.md#error-notification). */
  errorNotificationUrl: string | null;
  metadata: Record<string, unknown>;
  products: Product[];
  createdAt: Date;
  updatedAt: Date;
  /** What the merchant's refunds gave back so far (succeeded allocations), minor units. */
  refundedCents: number;
  /**
   * The origin that may frame the hosted checkout and receives its messages, when the purchase
   * was created by the direct call of the front (docs/plugin-integration.md#the-merchant-origin);
   * null: the callback URL's origin.
   */
  merchantOrigin: string | null;
  /** The name the leader of a pot gave on the checkout page, when the merchant sent no client name (null otherwise). */
  leaderName: string | null;
  /** The language of the hosted page the leader last used (src/i18n/shopper-lang.ts); null before any. */
  pageLanguage: string | null;
  /**
   * `YYYY-MM-DD` asked by the direct call's secondInstallmentPaymentDate / deferredPaymentDate /
   * balancePaymentDate, or the APIs' balance date (docs/schedules.md#requested-dates).
   */
  secondInstallmentDate: string | null;
  deferredPaymentDate: string | null;
  balancePaymentDate: string | null;
  client: {
    id: string;
    ref: string | null;
    email: string;
    firstName: string | null;
    lastName: string | null;
  };
}

/**
 * Who invites the friends of a pot, as they read it: the client's name the merchant sent (first and
 * last), else the name the leader gave on the checkout page, else (a pot made through the API
 * without either) the leader's e-mail address.
 */
export function leaderDisplayName(p: Pick<Purchase, 'client' | 'leaderName'>): string {
  return [p.client.firstName, p.client.lastName].filter(Boolean).join(' ') || p.leaderName || p.client.email;
}

/** Whether the checkout asks the leader of a pot for a name: the merchant sent none. */
export function leaderNameNeeded(p: Pick<Purchase, 'client'>): boolean {
  return !p.client.firstName && !p.client.lastName;
}
