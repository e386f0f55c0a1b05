import type { Offer } from '../accounts/offers.ts';
import type { Sql } from '../db/database.ts';
import { EVENT, OUTBOX_CHANNEL } from '../domain/events.ts';
import { newUuid } from '../domain/ids.ts';
import { defaultComment } from '../domain/purchase-states.ts';
import { PURCHASE_COLUMNS, toPurchase, type Product, type Purchase, type PurchaseRow } from './purchase.ts';

/** A validated purchase to store, whichever API family it came from. */
export interface NewPurchase {
  offer: Offer;
  ref?: string;
  title: string;
  subtitle?: string;
  description?: string;
  pictureUrl?: string;
  amountCents: number;
  currency: string;
  language: string;
  phoneNumber?: string;
  callbackUrl?: string;
  cancelUrl?: string;
  notificationUrl?: string;
  metadata: Record<string, unknown>;
  products: Product[];
  client: { ref?: string; email: string; firstName?: string; lastName?: string };
}

// A client is unique per account by the merchant's ref, else by e-mail
// (docs/api-conventions.md#clients); a later purchase refreshes the names it gives and keeps
// those it leaves out.
const UPSERT_BY_REF = `ON CONFLICT (account_id, ref) WHERE ref IS NOT NULL DO UPDATE SET email = EXCLUDED.email,`;
const UPSERT_BY_EMAIL = `ON CONFLICT (account_id, lower(email)) WHERE ref IS NULL DO UPDATE SET`;
// The same client with nothing to refresh: found by a plain read, so no row lock. An upsert
// locks the client's row until commit even when it changes nothing, and a shopper's purchases
// created at once (or a load test) then wait for each other's commits one by one.
const SAME_BY_REF = `cl.ref = $3 AND cl.email = $4`;
const SAME_BY_EMAIL = `cl.ref IS NULL AND lower(cl.email) = lower($4)`;

/** The job that expires a purchase left unpaid (src/use-cases/expire-purchase.ts). */
const EXPIRE_JOB = 'purchase.expire';

/**
 * Stores the purchase, its client, its `purchase.created` event and the job that expires it
 * unpaid after the offer's `expiry_hours` in ONE statement: atomic without an explicit
 * transaction, and one database round trip on the API's busiest write.
 */
export async function insertPurchase(sql: Sql, p: NewPurchase, now: Date): Promise<Purchase> {
  const byRef = p.client.ref !== undefined;
  const { rows } = await sql.query<PurchaseRow>(
    `WITH same AS (
       SELECT cl.* FROM clients cl
       WHERE cl.account_id = $2::uuid AND ${byRef ? SAME_BY_REF : SAME_BY_EMAIL}
         AND cl.first_name IS NOT DISTINCT FROM COALESCE($5::text, cl.first_name)
         AND cl.last_name IS NOT DISTINCT FROM COALESCE($6::text, cl.last_name)
     ), upserted AS (
       INSERT INTO clients AS cl (id, account_id, ref, email, first_name, last_name, created_at, updated_at)
       SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::timestamptz, $7::timestamptz
       WHERE NOT EXISTS (SELECT 1 FROM same)
       ${byRef ? UPSERT_BY_REF : UPSERT_BY_EMAIL} first_name = COALESCE(EXCLUDED.first_name, cl.first_name),
         last_name = COALESCE(EXCLUDED.last_name, cl.last_name), updated_at = EXCLUDED.updated_at
       RETURNING cl.*
     ), c AS (
       SELECT * FROM same UNION ALL SELECT * FROM upserted
     ), p AS (
       INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, ref, title, subtitle, description,
         picture_url, amount_cents, currency, language, phone_number, callback_url, cancel_url, notification_url,
         metadata, products, created_at, updated_at)
       SELECT $8, $2, $9, c.id, 'CREATED', $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $7, $7
       FROM c
       RETURNING *
     ), e AS (
       INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, created_at)
       SELECT account_id, id, $25, NULL, 'CREATED', created_at FROM p
     ), j AS (
       INSERT INTO jobs (account_id, kind, dedupe_key, run_at, payload)
       SELECT account_id, $26, $26 || ':' || id::text, $27, jsonb_build_object('purchaseId', id) FROM p
     )
     SELECT ${PURCHASE_COLUMNS} FROM p JOIN c ON c.id = p.client_id`,
    [
      newUuid(),
      p.offer.accountId,
      p.client.ref ?? null,
      p.client.email,
      p.client.firstName ?? null,
      p.client.lastName ?? null,
      now,
      newUuid(),
      p.offer.id,
      defaultComment('CREATED'),
      p.ref ?? null,
      p.title,
      p.subtitle ?? null,
      p.description ?? null,
      p.pictureUrl ?? null,
      p.amountCents,
      p.currency,
      p.language,
      p.phoneNumber ?? null,
      p.callbackUrl ?? null,
      p.cancelUrl ?? null,
      p.notificationUrl ?? null,
      JSON.stringify(p.metadata),
      JSON.stringify(p.products),
      EVENT.purchaseCreated,
      EXPIRE_JOB,
      new Date(now.getTime() + p.offer.expiryHours * 3_600_000),
    ],
  );
  sql.notify(OUTBOX_CHANNEL);
  return toPurchase(rows[0]!);
}
