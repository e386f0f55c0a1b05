import type { Sql } from '../db/database.ts';
import { EVENT, OUTBOX_CHANNEL } from '../domain/events.ts';
import type { DeliveryKind } from './delivery.ts';

/**
 * The outbox: the events not yet dispatched, and the deliveries the dispatcher turns them into
 * (src/delivery/dispatcher.ts runs these in one transaction). An event is written with a row in
 * `event_outbox`, which its dispatch deletes; a process of the previous build, during a rolling
 * upgrade, writes its events with `dispatched_at` NULL instead, and its dispatch sets it
 * (docs/webhooks.md#how-it-works-operators).
 */

/** An undispatched event with what its deliveries need of its purchase. */
export interface EventRow {
  id: number;
  account_id: string;
  purchase_id: string;
  type: string;
  data: Record<string, unknown>;
  /** The purchase's state before the event. */
  from_state: string | null;
  created_at: Date;
  /** The purchase's own account: an event filed under another is never sent (see planDeliveries). */
  purchase_account_id: string | null;
  notification_url: string | null;
  /** Where a purchase that fails is notified (docs/webhooks.md#error-notification). */
  error_notification_url: string | null;
  ref: string | null;
  metadata: Record<string, unknown>;
  offer_id: string;
  /** The mode the purchase was created in: a transfer-mode purchase's payment notification has its own body (src/delivery/transfer-notification.ts). */
  payment_mode: 'back' | 'transfer' | null;
  amount_cents: number | null;
  /** Claimed through its `event_outbox` row; false: an event of the previous build, `dispatched_at` NULL. */
  outboxed: boolean;
}

export interface NewDelivery {
  id: string;
  account_id: string;
  /** Null for an event about no purchase (a payout's). */
  purchase_id: string | null;
  event_id: number;
  kind: DeliveryKind;
  trigger_name: string | null;
  url: string;
  payload: string;
}

/**
 * Claims up to `limit` undispatched events of each kind (outbox rows, then events of the previous
 * build), oldest first, with FOR UPDATE SKIP LOCKED (any number of processes dispatch at once
 * without taking the same event). Only the outbox row is locked: the event row is never written again.
 */
export async function claimUndispatchedEvents(tx: Sql, limit: number): Promise<EventRow[]> {
  // The ids first, then their events and purchases by primary key: a plain join let stale
  // statistics (the tables grow by thousands of rows a second in a burst) pick a plan that joined
  // every undispatched event through the account index before the LIMIT, 30-100 ms a call
  // (docs/performance.md). OFFSET 0 keeps each lookup to the primary key. The previous build's
  // events are found on the partial index of undispatched events, empty once it is gone.
  const { rows } = await tx.query<EventRow>(
    `WITH o AS MATERIALIZED (
       SELECT event_id AS id FROM event_outbox ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED
     ), l AS MATERIALIZED (
       SELECT id FROM purchase_events WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
     ), c AS (
       SELECT id, true AS outboxed FROM o UNION ALL SELECT id, false FROM l
     )
     SELECT e.id, e.account_id, e.purchase_id, e.type, e.data, e.from_state, e.created_at, c.outboxed,
       p.account_id AS purchase_account_id, p.notification_url, p.error_notification_url, p.ref, p.metadata, p.offer_id, p.payment_mode, p.amount_cents
     FROM c CROSS JOIN LATERAL (
       SELECT id, account_id, purchase_id, type, data, from_state, created_at FROM purchase_events WHERE id = c.id OFFSET 0
     ) e LEFT JOIN LATERAL (
       SELECT account_id, notification_url, error_notification_url, ref, metadata, offer_id, payment_mode, amount_cents FROM purchases WHERE id = e.purchase_id OFFSET 0
     ) p ON true
     ORDER BY e.id`,
    [limit],
  );
  return rows;
}

/**
 * For each event, the latest accepted `payment.transaction` event of its purchase before it among
 * the leader's checkout purposes (a hold's renewal excluded): the transaction a checkout's
 * back-mode notification reports (src/delivery/outcomes.ts). Keyed by the event's id.
 */
export async function checkoutTransactionEvents(
  tx: Sql,
  events: readonly Pick<EventRow, 'id' | 'account_id' | 'purchase_id'>[],
  purposes: readonly string[],
): Promise<Map<number, { id: number; data: Record<string, unknown> }>> {
  if (events.length === 0) return new Map();
  const { rows } = await tx.query<{ event_id: number | string; id: number | string; data: Record<string, unknown> }>(
    `SELECT x.event_id, t.id, t.data
       FROM unnest($1::bigint[], $2::uuid[], $3::uuid[]) AS x(event_id, account_id, purchase_id)
       CROSS JOIN LATERAL (
         SELECT e.id, e.data FROM purchase_events e
          WHERE e.account_id = x.account_id AND e.purchase_id = x.purchase_id AND e.id < x.event_id AND e.type = $4
            AND e.data->>'purpose' = ANY($5::text[]) AND e.data->>'reauth' IS NULL
            AND e.data->'transaction'->>'status' IN ('authorized', 'completed')
          ORDER BY e.id DESC LIMIT 1
       ) t`,
    [events.map((e) => e.id), events.map((e) => e.account_id), events.map((e) => e.purchase_id), EVENT.transaction, purposes],
    { prepare: false },
  );
  return new Map(rows.map((r) => [Number(r.event_id), { id: Number(r.id), data: r.data }]));
}

/** Stores the deliveries, pending and due at `now` (one per event and kind), and wakes the workers at commit. */
export async function insertDeliveries(tx: Sql, deliveries: readonly NewDelivery[], now: Date): Promise<void> {
  // One array per column: reading 200 payloads as a JSON document (jsonb_to_recordset) took
  // 4.5 ms of the insert's 22 (auto_explain, docs/performance.md); arrays are read as text.
  const column = <K extends keyof NewDelivery>(k: K) => deliveries.map((d) => d[k]);
  await tx.query(
    `INSERT INTO deliveries (id, account_id, purchase_id, event_id, kind, trigger_name, url, payload, status,
       next_attempt_at, created_at, updated_at)
     SELECT x.id, x.account_id, x.purchase_id, x.event_id, x.kind, x.trigger_name, x.url, x.payload, 'pending', $9, $9, $9
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[])
       AS x(id, account_id, purchase_id, event_id, kind, trigger_name, url, payload)
     ON CONFLICT (event_id, kind) DO NOTHING`,
    [column('id'), column('account_id'), column('purchase_id'), column('event_id'), column('kind'), column('trigger_name'), column('url'), column('payload'), now],
  );
  tx.notify(OUTBOX_CHANNEL);
}

/**
 * Writes an event of the merchant's about no purchase (a payout's: `purchase_id`, `from_state`,
 * `to_state` NULL), already dispatched: its caller plans its deliveries in the same transaction
 * (src/delivery/account-events.ts), so no dispatcher, of this build or of the previous one during a
 * rolling upgrade, ever reads it. Answers its id.
 */
export async function insertAccountEvent(tx: Sql, e: { accountId: string; type: string; data: Record<string, unknown>; at: Date }): Promise<number> {
  const { rows } = await tx.query<{ id: number | string }>(
    `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
     VALUES ($1, NULL, $2, NULL, NULL, $3, $4, $4) RETURNING id`,
    [e.accountId, e.type, JSON.stringify(e.data), e.at],
  );
  return Number(rows[0]!.id);
}

/** Ends the claimed events' wait: their outbox rows deleted, the previous build's events marked dispatched. */
export async function markDispatched(tx: Sql, events: readonly Pick<EventRow, 'id' | 'outboxed'>[], now: Date): Promise<void> {
  const outboxed = events.filter((e) => e.outboxed).map((e) => e.id);
  const earlier = events.filter((e) => !e.outboxed).map((e) => e.id);
  // Not prepared: a plan cached while a table was small scans all of it for every batch.
  if (outboxed.length > 0) await tx.query('DELETE FROM event_outbox WHERE event_id = ANY($1::bigint[])', [outboxed], { prepare: false });
  if (earlier.length > 0) await tx.query('UPDATE purchase_events SET dispatched_at = $2 WHERE id = ANY($1::bigint[])', [earlier, now], { prepare: false });
}
