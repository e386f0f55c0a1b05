import type { Offer } from '../accounts/offer.ts';
import type { Sql } from '../db/database.ts';
import { EVENT, OUTBOX_CHANNEL } from '../domain/events.ts';
import { isUuid, newUuid } from '../domain/ids.ts';
import { defaultComment, type PurchaseState } from '../domain/purchase-states.ts';
import type { Product, Purchase } from './purchase.ts';

/**
 * Columns selected for a Purchase, with the client joined as `c`. `refunded_cents` is the sum of
 * the purchase's succeeded refund allocations, kept on its row by a trigger (migration 049).
 */
const PURCHASE_COLUMNS = `p.id, p.account_id, p.offer_id, p.state, p.comment, p.ref, p.title, p.subtitle,
  p.description, p.picture_url, p.amount_cents, p.currency, p.language, p.language_set, p.phone_number, p.callback_url,
  p.cancel_url, p.notification_url, p.error_notification_url, p.metadata, p.products, p.created_at, p.updated_at,
  p.refunded_cents, p.merchant_origin, p.leader_name, p.page_language, to_char(p.second_installment_date, 'YYYY-MM-DD') AS second_installment_date,
  to_char(p.deferred_payment_date, 'YYYY-MM-DD') AS deferred_payment_date, to_char(p.balance_payment_date, 'YYYY-MM-DD') AS balance_payment_date,
  c.id AS client_id, c.ref AS client_ref, c.email AS client_email, c.first_name AS client_first_name, c.last_name AS client_last_name`;

interface PurchaseRow {
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
  language_set: boolean;
  phone_number: string | null;
  callback_url: string | null;
  cancel_url: string | null;
  notification_url: string | null;
  error_notification_url: string | null;
  metadata: Record<string, unknown>;
  products: Product[];
  created_at: Date;
  updated_at: Date;
  refunded_cents: number;
  merchant_origin: string | null;
  leader_name: string | null;
  page_language: string | null;
  second_installment_date: string | null;
  deferred_payment_date: string | null;
  balance_payment_date: string | null;
  client_id: string;
  client_ref: string | null;
  client_email: string;
  client_first_name: string | null;
  client_last_name: string | null;
}

function toPurchase(r: PurchaseRow): Purchase {
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
    languageSet: r.language_set,
    phoneNumber: r.phone_number,
    callbackUrl: r.callback_url,
    cancelUrl: r.cancel_url,
    notificationUrl: r.notification_url,
    errorNotificationUrl: r.error_notification_url,
    metadata: r.metadata,
    products: r.products,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    refundedCents: Number(r.refunded_cents ?? 0),
    merchantOrigin: r.merchant_origin ?? null,
    leaderName: r.leader_name ?? null,
    pageLanguage: r.page_language ?? null,
    secondInstallmentDate: r.second_installment_date ?? null,
    deferredPaymentDate: r.deferred_payment_date ?? null,
    balancePaymentDate: r.balance_payment_date ?? null,
    client: {
      id: r.client_id,
      ref: r.client_ref,
      email: r.client_email,
      firstName: r.client_first_name,
      lastName: r.client_last_name,
    },
  };
}

const FROM = `FROM purchases p JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id`;

/** The account's purchase with this uuid; undefined for malformed, unknown and other accounts' ids alike. */
export async function findPurchase(sql: Sql, accountId: string, id: string): Promise<Purchase | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<PurchaseRow>(`SELECT ${PURCHASE_COLUMNS} ${FROM} WHERE p.account_id = $1 AND p.id = $2`, [accountId, id]);
  return rows[0] && toPurchase(rows[0]);
}

/**
 * The account's purchase that a request with this request key created, if one was committed
 * (the key of an Idempotency-Key request: `requestKey` in src/http/idempotency.ts).
 */
export async function findPurchaseByRequestKey(sql: Sql, accountId: string, requestKey: string): Promise<Purchase | undefined> {
  const { rows } = await sql.query<PurchaseRow>(`SELECT ${PURCHASE_COLUMNS} ${FROM} WHERE p.account_id = $1 AND p.request_key = $2`, [accountId, requestKey]);
  return rows[0] && toPurchase(rows[0]);
}

/**
 * The offer's purchases of a merchant reference, newest first (at most 20: a reference has a
 * handful): what the direct call of the front reuses or refuses (docs/plugin-integration.md#reloads-and-references).
 */
export async function findReferencePurchases(sql: Sql, accountId: string, offerId: string, ref: string): Promise<Purchase[]> {
  const { rows } = await sql.query<PurchaseRow>(
    `SELECT ${PURCHASE_COLUMNS} ${FROM} WHERE p.account_id = $1 AND p.ref = $2 AND p.offer_id = $3 ORDER BY p.created_at DESC, p.id DESC LIMIT 20`,
    [accountId, ref, offerId],
  );
  return rows.map(toPurchase);
}

/**
 * Takes, until the caller's transaction ends, the lock of one offer's reference: calls of the
 * direct call of the front for one order run one at a time, so that two at once find one
 * purchase (docs/plugin-integration.md#reloads-and-references).
 */
export async function lockReference(tx: Sql, offerId: string, ref: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`purchase-ref:${offerId}:${ref}`]);
}

/** A purchase by uuid alone: only for pages reached through the purchase's own unguessable link. */
export async function findPurchaseForPage(sql: Sql, id: string): Promise<(Purchase & { merchantName: string; merchantTimeZone: string }) | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<PurchaseRow & { merchant_name: string; merchant_time_zone: string }>(
    `SELECT ${PURCHASE_COLUMNS}, a.name AS merchant_name, a.time_zone AS merchant_time_zone ${FROM} JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`,
    [id],
  );
  const row = rows[0];
  return row && { ...toPurchase(row), merchantName: row.merchant_name, merchantTimeZone: row.merchant_time_zone };
}

export interface PurchaseFilter {
  states?: PurchaseState[];
  ref?: string;
  createdFrom?: Date;
  createdTo?: Date;
  clientId?: string;
  /** Back-office search and filters: one purchase by uuid, the client's e-mail (any case), an offer. */
  id?: string;
  clientEmail?: string;
  offerId?: string;
  /** Keyset cursor: strictly older than this (created_at, id). */
  before?: { createdAt: Date; id: string };
  limit: number;
}

/** The WHERE clause of a filter, and its parameters, the account's id first: the list's and the export's. */
function purchaseWhere(accountId: string, f: PurchaseFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const where = ['p.account_id = $1'];
  const add = (clause: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  // One state is an equality, which the list's index checks in its entries, in their order; a list
  // of states is not (docs/performance.md#the-state-filter).
  if (f.states?.length === 1) add((n) => `p.state = ${n}`, f.states[0]);
  else if (f.states) add((n) => `p.state = ANY(${n}::text[])`, f.states);
  if (f.ref !== undefined) add((n) => `p.ref = ${n}`, f.ref);
  if (f.createdFrom) add((n) => `p.created_at >= ${n}`, f.createdFrom);
  if (f.createdTo) add((n) => `p.created_at < ${n}`, f.createdTo);
  if (f.clientId) add((n) => `p.client_id = ${n}`, f.clientId);
  if (f.id) add((n) => `p.id = ${n}`, f.id);
  if (f.clientEmail !== undefined) add((n) => `lower(c.email) = lower(${n})`, f.clientEmail);
  if (f.offerId) add((n) => `p.offer_id = ${n}`, f.offerId);
  if (f.before) {
    params.push(f.before.createdAt, f.before.id);
    where.push(`(p.created_at, p.id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(f.limit);
  return { where: where.join(' AND '), params };
}

/** The account's purchases, newest first, by keyset pagination (stable under concurrent inserts). */
export async function listPurchases(sql: Sql, accountId: string, f: PurchaseFilter): Promise<Purchase[]> {
  const { where, params } = purchaseWhere(accountId, f);
  // Unprepared: a cached generic plan reads every row older than the cursor (docs/performance.md#keyset-lists-run-unprepared).
  const { rows } = await sql.query<PurchaseRow>(`SELECT ${PURCHASE_COLUMNS} ${FROM} WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT $${params.length}`, params, {
    prepare: false,
  });
  return rows.map(toPurchase);
}

/** A purchase as the back office's CSV export shows it (src/http/backoffice/purchases-csv.ts), with its keyset cursor. */
export interface PurchaseExportRow {
  id: string;
  ref: string | null;
  /**
   * ISO 8601 in UTC to the millisecond, as `Date.toISOString` writes it, formatted by the
   * database: parsing a date per row and writing it back cost this process 3–4 µs of its 11–15 a
   * row (docs/performance.md#the-csv-export). The keyset cursor is the same instant.
   */
  createdAt: string;
  state: PurchaseState;
  offerId: string;
  title: string;
  amountCents: number;
  currency: string;
  clientEmail: string;
  refundedCents: number;
}

/**
 * Makes the statement it is in run without parallel workers: a statement calling a function
 * marked PARALLEL UNSAFE (`set_config` is one) is never given a parallel plan, and this call is
 * a one-time filter that changes nothing (it sets the value the setting has). For some pages of
 * the export, PostgreSQL started two workers for 1,000 rows: their start-up cost more than the
 * page itself (docs/performance.md#the-csv-export).
 */
export const NO_PARALLEL_WORKERS = `set_config('max_parallel_workers_per_gather', current_setting('max_parallel_workers_per_gather'), true) IS NOT NULL`;

/** The statement of a page of the export (exported for the test of its plan). */
export function purchaseExportQuery(accountId: string, f: PurchaseFilter): { text: string; params: unknown[] } {
  const { where, params } = purchaseWhere(accountId, f);
  const text = `SELECT p.id, p.ref, to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt", p.state, p.offer_id AS "offerId", p.title, p.amount_cents AS "amountCents",
       p.currency, c.email AS "clientEmail", p.refunded_cents AS "refundedCents"
     ${FROM} WHERE ${where} AND ${NO_PARALLEL_WORKERS} ORDER BY p.created_at DESC, p.id DESC LIMIT $${params.length}`;
  return { text, params };
}

/**
 * `listPurchases`, the same filter and order, with only the export's ten columns: a whole
 * purchase carries its metadata and products as JSON, parsed for every row, and fifteen columns
 * more that the file does not show (docs/performance.md#the-csv-export).
 */
export async function listPurchasesForExport(sql: Sql, accountId: string, f: PurchaseFilter): Promise<PurchaseExportRow[]> {
  const { text, params } = purchaseExportQuery(accountId, f);
  // Unprepared, as the list (docs/performance.md#keyset-lists-run-unprepared).
  const { rows } = await sql.query<PurchaseExportRow>(text, params, { prepare: false });
  return rows;
}

export interface Client {
  id: string;
  ref: string | null;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

export async function findClient(sql: Sql, accountId: string, id: string): Promise<Client | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<{ id: string; ref: string | null; email: string; first_name: string | null; last_name: string | null }>(
    'SELECT id, ref, email, first_name, last_name FROM clients WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  const r = rows[0];
  return r && { id: r.id, ref: r.ref, email: r.email, firstName: r.first_name, lastName: r.last_name };
}

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
  /** False when the merchant gave no language and `language` is a default: the pages then follow the shopper's browser. Default true. */
  languageSet?: boolean;
  phoneNumber?: string;
  callbackUrl?: string;
  cancelUrl?: string;
  notificationUrl?: string;
  /** Where a purchase failing before it was secured is notified (docs/webhooks.md#error-notification). */
  errorNotificationUrl?: string;
  metadata: Record<string, unknown>;
  products: Product[];
  client: { ref?: string; email: string; firstName?: string; lastName?: string };
  /** The creating request's key, when it carried an Idempotency-Key (`requestKey` in src/http/idempotency.ts). */
  requestKey?: string | undefined;
  /** The direct call of the front's own (docs/plugin-integration.md): see {@link Purchase}. */
  merchantOrigin?: string;
  secondInstallmentDate?: string;
  deferredPaymentDate?: string;
  /** The balance's due date asked for a DOWN_PAYMENT offer (docs/schedules.md#down-payment). */
  balancePaymentDate?: string;
  /** The settings kept without a column of their own (migration comment: `plugin_settings`). */
  pluginSettings?: Record<string, unknown>;
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

/**
 * Stores the purchase (with `expires_at`: creation + the offer's `expiry_hours`, when the expiry
 * sweep cancels it if still unpaid: docs/purchase-lifecycle.md#expiry), its client and its
 * `purchase.created` event in ONE statement: atomic without an explicit transaction, and one
 * database round trip on the API's busiest write. The event has no outbox row and wakes no
 * dispatcher: no webhook, notification or purchase end is ever sent for a creation (test/delivery/outbox.test.ts
 * keeps it so), so it is written dispatched (docs/webhooks.md#how-it-works-operators).
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
         metadata, products, created_at, updated_at, error_notification_url, expires_at, request_key, merchant_origin,
         second_installment_date, deferred_payment_date, plugin_settings, balance_payment_date, payment_mode, language_set)
       SELECT $8, $2, $9, c.id, 'CREATED', $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $7, $7, $27, $26, $28, $29,
         $30::date, $31::date, $32::jsonb, $33::date, $34, $35
       FROM c
       RETURNING *
     ), e AS (
       INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, created_at, dispatched_at)
       SELECT account_id, id, $25, NULL, 'CREATED', created_at, created_at FROM p
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
      new Date(now.getTime() + p.offer.expiryHours * 3_600_000),
      p.errorNotificationUrl ?? null,
      p.requestKey ?? null,
      p.merchantOrigin ?? null,
      p.secondInstallmentDate ?? null,
      p.deferredPaymentDate ?? null,
      p.pluginSettings === undefined ? null : JSON.stringify(p.pluginSettings),
      p.balancePaymentDate ?? null,
      // The offer's mode, kept by the purchase (docs/money-operations.md#transfer-mode).
      p.offer.paymentMode,
      p.languageSet ?? true,
    ],
  );
  return toPurchase(rows[0]!);
}

/**
 * The expiry sweep's statements (docs/purchase-lifecycle.md#expiry), all on the partial index
 * `purchases_expiry_idx` (CREATED purchases with an `expires_at`, migration 039): what they read
 * is the purchases due or about to be, never every purchase. Across accounts: the sweep is
 * service-wide work, and each purchase found is then acted on with its own account_id.
 */
const EXPIRY_DUE = `state = 'CREATED' AND expires_at IS NOT NULL AND expires_at <= $1`;

/** Up to `limit` unpaid purchases due to expire at `now` (service clock), the longest due first. */
export async function dueExpiries(sql: Sql, now: Date, limit: number): Promise<{ accountId: string; purchaseId: string }[]> {
  const { rows } = await sql.query<{ account_id: string; id: string }>(`SELECT account_id, id FROM purchases WHERE ${EXPIRY_DUE} ORDER BY expires_at LIMIT $2`, [now, limit]);
  return rows.map((r) => ({ accountId: r.account_id, purchaseId: r.id }));
}

/**
 * Takes one due purchase for its expiry, in the caller's transaction: locks its row unless
 * another transaction holds it (`SKIP LOCKED`: another sweep, or a payment, is at it), and only
 * if it is still CREATED and due. Answers whether it was taken; the lock lasts until commit.
 */
export async function claimDueExpiry(tx: Sql, accountId: string, purchaseId: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM purchases WHERE account_id = $2 AND id = $3 AND ${EXPIRY_DUE} FOR UPDATE SKIP LOCKED`, [now, accountId, purchaseId]);
  return rows.length > 0;
}

/** Moves a still unpaid purchase's expiry to `until` (its expiry waits for a payment under way, or is retried after a failure). */
export async function postponeExpiry(sql: Sql, accountId: string, purchaseId: string, until: Date): Promise<void> {
  await sql.query(`UPDATE purchases SET expires_at = $3 WHERE account_id = $1 AND id = $2 AND state = 'CREATED'`, [accountId, purchaseId, until]);
}

/** How many unpaid purchases are due to expire at `now`. */
export async function countDueExpiries(sql: Sql, now: Date): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM purchases WHERE ${EXPIRY_DUE}`, [now]);
  return rows[0]?.n ?? 0;
}

/** Locks the purchase's row for a move and reads its state; undefined when the account has no such purchase. */
export async function lockPurchaseState(tx: Sql, accountId: string, purchaseId: string): Promise<PurchaseState | undefined> {
  const { rows } = await tx.query<{ state: PurchaseState }>('SELECT state FROM purchases WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, purchaseId]);
  return rows[0]?.state;
}

/** Sets the comment of a purchase whose state does not change (a risk refusal: docs/risk.md#what-the-merchant-sees). */
export async function setPurchaseComment(tx: Sql, accountId: string, purchaseId: string, comment: string, now: Date): Promise<void> {
  await tx.query('UPDATE purchases SET comment = $3, updated_at = $4 WHERE account_id = $1 AND id = $2', [accountId, purchaseId, comment, now]);
}

/**
 * The name the leader gave on the checkout page, friends' invitations and pages read it
 * ({@link leaderDisplayName}); only while the purchase is CREATED, before anyone was invited.
 */
export async function setLeaderName(sql: Sql, accountId: string, purchaseId: string, name: string, now: Date): Promise<void> {
  await sql.query("UPDATE purchases SET leader_name = $3, updated_at = $4 WHERE account_id = $1 AND id = $2 AND state = 'CREATED'", [accountId, purchaseId, name, now]);
}

/**
 * Keeps the language of the hosted page the leader is using, when it changed: their messages
 * follow it (docs/hosted-payment.md#language). `updated_at` is not touched: Merchant API v1 shows
 * it, and a page read is no change of the purchase.
 */
export async function setPurchasePageLanguage(sql: Sql, accountId: string, purchaseId: string, lang: string): Promise<void> {
  await sql.query('UPDATE purchases SET page_language = $3 WHERE account_id = $1 AND id = $2 AND page_language IS DISTINCT FROM $3', [accountId, purchaseId, lang]);
}

/** Sets the purchase's state and comment (the state gate's write: purchases/transitions.ts). */
export async function setPurchaseState(tx: Sql, accountId: string, purchaseId: string, state: PurchaseState, comment: string, now: Date): Promise<void> {
  await tx.query('UPDATE purchases SET state = $3, comment = $4, updated_at = $5 WHERE account_id = $1 AND id = $2', [accountId, purchaseId, state, comment, now]);
}

/** Writes a move's event (and so its outbox row) and wakes the dispatcher at commit. */
export async function insertPurchaseEvent(
  tx: Sql,
  e: { accountId: string; purchaseId: string; type: string; from: PurchaseState; to: PurchaseState; data: Record<string, unknown>; at: Date },
): Promise<void> {
  await tx.query(
    `WITH e AS (
       INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id, account_id, purchase_id
     )
     INSERT INTO event_outbox (event_id, account_id, purchase_id) SELECT id, account_id, purchase_id FROM e`,
    [e.accountId, e.purchaseId, e.type, e.from, e.to, JSON.stringify(e.data), e.at],
  );
  tx.notify(OUTBOX_CHANNEL);
}

/** The purchase's events, in order (its timeline). */
export async function purchaseEventRows(
  sql: Sql,
  accountId: string,
  purchaseId: string,
): Promise<{ type: string; from_state: string | null; to_state: string; created_at: Date }[]> {
  const { rows } = await sql.query<{ type: string; from_state: string | null; to_state: string; created_at: Date }>(
    'SELECT type, from_state, to_state, created_at FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 ORDER BY id',
    [accountId, purchaseId],
  );
  return rows;
}
