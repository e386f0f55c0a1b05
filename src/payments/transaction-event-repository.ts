import type { Sql } from '../db/database.ts';
import { EVENT } from '../domain/events.ts';

/**
 * The purchase events that name a payment (`payment.transaction`, `payment.failed`), read back with
 * their payment: whether it ran on a test or live PSP account, its PSP transaction, the checkout's
 * latest result with the offer's signing secret (the notifications and the front-end result).
 */

/**
 * Whether each `payment.transaction` event is a test transaction, by the PSP account its payment
 * (`data.payment_id`) ran on: `test` environment or the built-in sandbox PSP (no account) → true,
 * `live` → false. An event without a payment row falls back to its purchase's offer's account.
 * What the notification's and the front-end result's `sandbox` say.
 */
export async function sandboxOfTransactionEvents(sql: Sql, eventIds: readonly number[]): Promise<Map<number, boolean>> {
  const payments = await paymentsOfEvents(sql, eventIds);
  return new Map([...payments].map(([id, p]) => [id, p.sandbox]));
}

/**
 * For each event naming a payment (`data.payment_id`: `payment.transaction`, `payment.failed`):
 * whether it is a test payment (as {@link sandboxOfTransactionEvents} says) and the payment's PSP
 * transaction id, if it has one.
 */
export async function paymentsOfEvents(sql: Sql, eventIds: readonly number[]): Promise<Map<number, { sandbox: boolean; pspTransactionId: string | null }>> {
  if (eventIds.length === 0) return new Map();
  const { rows } = await sql.query<{ id: number | string; sandbox: boolean; psp_transaction_id: string | null }>(
    `SELECT e.id, a.environment IS DISTINCT FROM 'live' AS sandbox, pay.psp_transaction_id
     FROM purchase_events e
     JOIN purchases p ON p.account_id = e.account_id AND p.id = e.purchase_id
     JOIN offers o ON o.account_id = p.account_id AND o.id = p.offer_id
     LEFT JOIN payments pay ON pay.account_id = e.account_id
       AND pay.id = CASE WHEN e.data->>'payment_id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (e.data->>'payment_id')::uuid END
     LEFT JOIN psp_accounts a ON (a.account_id = e.account_id OR a.account_id IS NULL)
       AND a.id = CASE WHEN pay.id IS NULL THEN o.psp_account_id ELSE pay.psp_account_id END
     WHERE e.id = ANY($1::bigint[])`,
    [eventIds],
    // Not prepared: a plan cached while purchase_events was small would scan all of it.
    { prepare: false },
  );
  return new Map(rows.map((r) => [Number(r.id), { sandbox: r.sandbox, pspTransactionId: r.psp_transaction_id }]));
}

/**
 * The latest `payment.transaction` event of the purchase among `purposes`, with the offer's
 * sealed signing secret (the front-end result is signed with it). A renewal's events are not
 * the checkout's result.
 */
export async function lastTransactionEvent(
  sql: Sql,
  purchase: { accountId: string; id: string; offerId: string },
  purposes: readonly string[],
): Promise<{ id: number; data: Record<string, unknown>; secret: string } | undefined> {
  const { rows } = await sql.query<{ id: number | string; data: Record<string, unknown>; secret: string }>(
    `SELECT e.id, e.data, o.signing_secret_enc AS secret FROM purchase_events e JOIN offers o ON o.id = $3 AND o.account_id = e.account_id
     WHERE e.account_id = $1 AND e.purchase_id = $2 AND e.type = $4 AND e.data->>'purpose' = ANY($5::text[]) AND e.data->>'reauth' IS NULL
     ORDER BY e.id DESC LIMIT 1`,
    [purchase.accountId, purchase.id, purchase.offerId, EVENT.transaction, purposes],
  );
  return rows[0] && { ...rows[0], id: Number(rows[0].id) };
}
