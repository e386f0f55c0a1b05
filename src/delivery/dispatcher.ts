import { offerSigningSecrets } from '../accounts/offer-repository.ts';
import type { Database, Sql } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { newUuid } from '../domain/ids.ts';
import { sandboxOfTransactionEvents } from '../payments/payment-repository.ts';
import { buildNotification } from './notification.ts';
import { claimUndispatchedEvents, insertDeliveries, markDispatched, type EventRow, type NewDelivery } from './outbox-repository.ts';
import { transactionOf } from './transaction.ts';
import { NOTIFIED_EVENT } from './triggers.ts';
import { enabledEndpointsOf } from './webhook-endpoint-repository.ts';
import { webhookMessage } from './webhook-payload.ts';

export interface DispatcherDeps {
  db: Database;
  box: SecretBox;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
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
    const events = await claimUndispatchedEvents(tx, limit);
    if (events.length === 0) return 0;
    const deliveries = await planDeliveries(tx, deps, events);
    if (deliveries.length > 0) await insertDeliveries(tx, deliveries, now);
    await markDispatched(
      tx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}

async function planDeliveries(tx: Sql, deps: DispatcherDeps, events: EventRow[]): Promise<NewDelivery[]> {
  const accountIds = [...new Set(events.map((e) => e.account_id))];
  const endpoints = await enabledEndpointsOf(tx, accountIds);
  const endpointOf = new Map(endpoints.map((e) => [e.account_id, e]));

  const notified = events.filter((e) => e.type === NOTIFIED_EVENT && e.notification_url);
  const offerIds = [...new Set(notified.map((e) => e.offer_id))];
  const offers = offerIds.length === 0 ? [] : await offerSigningSecrets(tx, offerIds);
  const offerOf = new Map(offers.map((o) => [o.id, o]));
  const sandboxOf = await sandboxOfTransactionEvents(
    tx,
    notified.map((e) => e.id),
  );

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
  const body = buildNotification({ transaction, reference: e.ref, metadata: e.metadata ?? {}, sandbox }, secret);
  return JSON.stringify(body);
}
