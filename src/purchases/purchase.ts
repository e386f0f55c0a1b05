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
  phoneNumber: string | null;
  callbackUrl: string | null;
  cancelUrl: string | null;
  notificationUrl: string | null;
  metadata: Record<string, unknown>;
  products: Product[];
  createdAt: Date;
  updatedAt: Date;
  /** What the merchant's refunds gave back so far (succeeded allocations), minor units. */
  refundedCents: number;
  client: {
    id: string;
    ref: string | null;
    email: string;
    firstName: string | null;
    lastName: string | null;
  };
}

/** Columns selected for a Purchase, with the client joined as `c`. */
export const PURCHASE_COLUMNS = `p.id, p.account_id, p.offer_id, p.state, p.comment, p.ref, p.title, p.subtitle,
  p.description, p.picture_url, p.amount_cents, p.currency, p.language, p.phone_number, p.callback_url,
  p.cancel_url, p.notification_url, p.metadata, p.products, p.created_at, p.updated_at,
  (SELECT COALESCE(sum(ra.amount_cents), 0) FROM refund_allocations ra
     WHERE ra.account_id = p.account_id AND ra.purchase_id = p.id AND ra.state = 'succeeded')::bigint AS refunded_cents,
  c.id AS client_id, c.ref AS client_ref, c.email AS client_email, c.first_name AS client_first_name,
  c.last_name AS client_last_name`;

export interface PurchaseRow {
  id: string;
  account_id: string;
  offer_id: string;
  state: PurchaseState;
  comment: string;
  ref: string | null;
  title: string;
  subtitle: string | null;
  description: string | null;
  picture_url: string | null;
  amount_cents: number;
  currency: string;
  language: string;
  phone_number: string | null;
  callback_url: string | null;
  cancel_url: string | null;
  notification_url: string | null;
  metadata: Record<string, unknown>;
  products: Product[];
  created_at: Date;
  updated_at: Date;
  refunded_cents: number;
  client_id: string;
  client_ref: string | null;
  client_email: string;
  client_first_name: string | null;
  client_last_name: string | null;
}

export function toPurchase(r: PurchaseRow): Purchase {
  return {
    id: r.id,
    accountId: r.account_id,
    offerId: r.offer_id,
    state: r.state,
    comment: r.comment,
    ref: r.ref,
    title: r.title,
    subtitle: r.subtitle,
    description: r.description,
    pictureUrl: r.picture_url,
    amountCents: r.amount_cents,
    currency: r.currency,
    language: r.language,
    phoneNumber: r.phone_number,
    callbackUrl: r.callback_url,
    cancelUrl: r.cancel_url,
    notificationUrl: r.notification_url,
    metadata: r.metadata,
    products: r.products,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    refundedCents: Number(r.refunded_cents ?? 0),
    client: {
      id: r.client_id,
      ref: r.client_ref,
      email: r.client_email,
      firstName: r.client_first_name,
      lastName: r.client_last_name,
    },
  };
}
