import type { Database, Sql } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { newUuid } from '../domain/ids.ts';
import { sandboxOfTransactionEvents } from '../payments/payment-repository.ts';
import { buildNotification } from './notification.ts';
import { transactionOf } from './transaction.ts';
import { NOTIFIED_EVENT } from './triggers.ts';
import { OUTBOX_CHANNEL } from '../domain/events.ts';
import { webhookMessage } from './webhook-payload.ts';

export interface DispatcherDeps {
  db: Database;
  box: SecretBox;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

interface EventRow {
  id: number;
  account_id: string;
  purchase_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
  /** The purchase's own account: an event filed under another is never sent (see planDeliveries). */
  purchase_account_id: string | null;
  notification_url: string | null;
  ref: string | null;
  metadata: Record<string, unknown>;
  offer_id: string;
}

export interface NewDelivery {
  id: string;
  account_id: string;
  purchase_id: string;
  event_id: number;
  kind: 'webhook' | 'notification';
  trigger_name: string | null;
  url: string;
  payload: string;
}

/**
 * Turns undispatched `purchase_events` into deliveries and marks them dispatched, in one
 * transaction: a crash before the commit leaves the events to dispatch again, after it leaves
 * the deliveries, never both or neither. Events are claimed with FOR UPDATE SKIP LOCKED, so any
 * number of processes dispatch at once without taking the same event. Answers how many events
 * were dispatched.
 *
 * - A webhook when the account has an enabled endpoint subscribed to the event's trigger.
 * - A back-mode notification for `payment.transaction` events of purchases with a
 *   `notification_url`, signed with the purchase offer's secret; `sandbox` as the PSP account
 *   the payment ran on says.
 */
export async function dispatchBatch(deps: DispatcherDeps, now: Date, limit = 200): Promise<number> {
  return deps.db.transaction(async (tx) => {
    // The events first, then their purchases by primary key: a plain join let stale statistics
    // (the tables grow by thousands of rows a second in a burst) pick a plan that joined every
    // undispatched event through the account index before the LIMIT, 30-100 ms a call
    // (docs/performance.md). OFFSET 0 keeps the purchase lookup to the primary key.
    const { rows: events } = await tx.query<EventRow>(
      `WITH e AS MATERIALIZED (
         SELECT id, account_id, purchase_id, type, data, created_at FROM purchase_events
         WHERE dispatched_at IS NULL
         ORDER BY id
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       )
       SELECT e.id, e.account_id, e.purchase_id, e.type, e.data, e.created_at,
         p.account_id AS purchase_account_id, p.notification_url, p.ref, p.metadata, p.offer_id
       FROM e LEFT JOIN LATERAL (
         SELECT account_id, notification_url, ref, metadata, offer_id FROM purchases WHERE id = e.purchase_id OFFSET 0
       ) p ON true
       ORDER BY e.id`,
      [limit],
    );
    if (events.length === 0) return 0;
    const deliveries = await planDeliveries(tx, deps, events);
    if (deliveries.length > 0) {
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
    // Not prepared: a plan cached while the table was small scans all of it for every batch.
    await tx.query('UPDATE purchase_events SET dispatched_at = $2 WHERE id = ANY($1::bigint[])', [events.map((e) => e.id), now], { prepare: false });
    return events.length;
  });
}

async function planDeliveries(tx: Sql, deps: DispatcherDeps, events: EventRow[]): Promise<NewDelivery[]> {
  const accountIds = [...new Set(events.map((e) => e.account_id))];
  const { rows: endpoints } = await tx.query<{ account_id: string; url: string; events: string[] }>(
    'SELECT account_id, url, events FROM webhook_endpoints WHERE account_id = ANY($1::uuid[]) AND disabled_at IS NULL',
    [accountIds],
  );
  const endpointOf = new Map(endpoints.map((e) => [e.account_id, e]));

  const notified = events.filter((e) => e.type === NOTIFIED_EVENT && e.notification_url);
  const offerIds = [...new Set(notified.map((e) => e.offer_id))];
  const { rows: offers } =
    offerIds.length === 0
      ? { rows: [] }
      : await tx.query<{ id: string; account_id: string; signing_secret_enc: string }>(
          'SELECT id, account_id, signing_secret_enc FROM offers WHERE id = ANY($1::uuid[])',
          [offerIds],
        );
  const offerOf = new Map(offers.map((o) => [o.id, o]));
  const sandboxOf = await sandboxOfTransactionEvents(tx, notified.map((e) => e.id));

  const out: NewDelivery[] = [];
  for (const e of events) {
    if (e.purchase_account_id !== e.account_id) {
      // No writer does this (each files the event under its purchase's account): were one to,
      // its event is marked dispatched unsent rather than sent to another merchant.
      deps.log.error({ event_id: e.id, account_id: e.account_id, purchase_id: e.purchase_id }, "event filed under another account than its purchase's: not sent");
      continue;
    }
    const base = { account_id: e.account_id, purchase_id: e.purchase_id, event_id: e.id };
    const endpoint = endpointOf.get(e.account_id);
    const message = webhookMessage({ id: e.id, type: e.type, purchaseId: e.purchase_id, data: e.data ?? {}, createdAt: new Date(e.created_at) });
    if (endpoint && message && endpoint.events.includes(message.triggerName)) {
      out.push({ ...base, id: newUuid(), kind: 'webhook', trigger_name: message.triggerName, url: endpoint.url, payload: JSON.stringify(message) });
    }
    if (e.type === NOTIFIED_EVENT && e.notification_url) {
      const planned = notificationFor(deps, e, offerOf.get(e.offer_id), sandboxOf.get(Number(e.id)) ?? true);
      if (planned) out.push({ ...base, id: newUuid(), kind: 'notification', trigger_name: null, url: e.notification_url, payload: planned });
    }
  }
  return out;
}

function notificationFor(deps: DispatcherDeps, e: EventRow, offer: { account_id: string; signing_secret_enc: string } | undefined, sandbox: boolean): string | undefined {
  const context = { event_id: e.id, account_id: e.account_id, purchase_id: e.purchase_id };
  const transaction = transactionOf(e.data);
  if (!transaction) {
    deps.log.error(context, 'payment.transaction event without a valid data.transaction: no notification sent');
    return undefined;
  }
  if (!offer || offer.account_id !== e.account_id) {
    deps.log.error(context, "the purchase's offer is missing: no notification sent");
    return undefined;
  }
  let secret: string;
  try {
    secret = deps.box.open(offer.signing_secret_enc).reveal();
  } catch (err) {
    // Sealed under another master key: every process of a deployment needs the same MASTER_KEY.
    deps.log.error({ ...context, err }, "could not open the offer's signing secret: no notification sent");
    return undefined;
  }
  const body = buildNotification(
    { transaction, reference: e.ref, metadata: e.metadata ?? {}, sandbox },
    secret,
  );
  return JSON.stringify(body);
}
