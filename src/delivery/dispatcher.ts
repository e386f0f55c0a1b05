import { offerSigningSecrets } from '../accounts/offer-repository.ts';
import type { Database, Sql } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { newUuid } from '../domain/ids.ts';
import { paymentsOfEvents } from '../payments/payment-repository.ts';
import { buildNotification } from './notification.ts';
import { buildRefusalNotification, refusalOf, type Refusal } from './refusal-notification.ts';
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
 * - A refusal notification for each refused payment attempt (`payment.failed`, a pledge's failed
 *   `payment.transaction`) of purchases with an `error_notification_url`, signed the same way
 *   (docs/webhooks.md#refusal-notifications).
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
  const refusals = new Map<number, Refusal>();
  for (const e of events) {
    const refusal = e.error_notification_url ? refusalOf(e) : undefined;
    if (refusal) refusals.set(Number(e.id), refusal);
  }
  const signed = [...notified, ...events.filter((e) => refusals.has(Number(e.id)))];
  const offerIds = [...new Set(signed.map((e) => e.offer_id))];
  const offers = offerIds.length === 0 ? [] : await offerSigningSecrets(tx, offerIds);
  const offerOf = new Map(offers.map((o) => [o.id, o]));
  const paymentOf = await paymentsOfEvents(tx, [...new Set(signed.map((e) => Number(e.id)))]);

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
      const planned = notificationFor(deps, e, offerOf.get(e.offer_id), paymentOf.get(Number(e.id))?.sandbox ?? true);
      if (planned) out.push({ ...base, id: newUuid(), kind: 'notification', trigger_name: null, url: e.notification_url, payload: planned });
    }
    const refusal = refusals.get(Number(e.id));
    if (refusal && e.error_notification_url) {
      const payment = paymentOf.get(Number(e.id));
      const secret = signingSecret(deps, e, offerOf.get(e.offer_id));
      if (secret !== undefined) {
        const body = buildRefusalNotification(
          {
            refusal,
            createdAt: new Date(e.created_at),
            storedPspTransactionId: payment?.pspTransactionId,
            reference: e.ref,
            metadata: e.metadata ?? {},
            sandbox: payment?.sandbox ?? true,
          },
          secret,
        );
        out.push({ ...base, id: newUuid(), kind: 'refusal', trigger_name: null, url: e.error_notification_url, payload: JSON.stringify(body) });
      }
    }
  }
  return out;
}

function notificationFor(deps: DispatcherDeps, e: EventRow, offer: SigningOffer | undefined, sandbox: boolean): string | undefined {
  const transaction = transactionOf(e.data);
  if (!transaction) {
    deps.log.error({ event_id: e.id, account_id: e.account_id, purchase_id: e.purchase_id }, 'payment.transaction event without a valid data.transaction: no notification sent');
    return undefined;
  }
  const secret = signingSecret(deps, e, offer);
  if (secret === undefined) return undefined;
  const body = buildNotification({ transaction, reference: e.ref, metadata: e.metadata ?? {}, sandbox }, secret);
  return JSON.stringify(body);
}

type SigningOffer = { account_id: string; signing_secret_enc: string };

/** The secret of the purchase's offer, which signs its notifications; undefined (logged) when it cannot be had. */
function signingSecret(deps: DispatcherDeps, e: EventRow, offer: SigningOffer | undefined): string | undefined {
  const context = { event_id: e.id, account_id: e.account_id, purchase_id: e.purchase_id };
  if (!offer || offer.account_id !== e.account_id) {
    deps.log.error(context, "the purchase's offer is missing: no notification sent");
    return undefined;
  }
  try {
    return deps.box.open(offer.signing_secret_enc).reveal();
  } catch (err) {
    // Sealed under another master key: every process of a deployment needs the same MASTER_KEY.
    deps.log.error({ ...context, err }, "could not open the offer's signing secret: no notification sent");
    return undefined;
  }
}
