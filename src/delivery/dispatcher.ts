import { offerSigningSecrets } from '../accounts/offer-repository.ts';
import type { Database, Sql } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { newUuid, toPublicId } from '../domain/ids.ts';
import { LEADER_PURPOSES } from '../domain/leader-plan.ts';
import { paymentsOfEvents } from '../payments/transaction-event-repository.ts';
import { buildNotification } from './notification.ts';
import { buildErrorNotification } from './error-notification.ts';
import { backModeNotificationOf, endsPot, errorStateOf, purchaseEndBody, type BackModeNotification } from './outcomes.ts';
import { checkoutTransactionEvents, claimUndispatchedEvents, insertDeliveries, markDispatched, type EventRow, type NewDelivery } from './outbox-repository.ts';
import { asCheckoutOutcome, transactionOf } from './transaction.ts';
import { signedTransferNotification, transferNotificationBody } from './transfer-notification.ts';
import { enabledEndpointsOf } from './webhook-endpoint-repository.ts';
import { webhookMessage } from './webhook-payload.ts';

export interface DispatcherDeps {
  db: Database;
  box: SecretBox;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/**
 * Turns undispatched events into deliveries and ends their wait in the outbox, in one
 * transaction: a crash before the commit leaves the events to dispatch again, after it leaves
 * the deliveries, never both or neither. Events are claimed with FOR UPDATE SKIP LOCKED, so any
 * number of processes dispatch at once without taking the same event. Answers how many events
 * were dispatched.
 *
 * - A webhook when the account has an enabled endpoint subscribed to the event's trigger.
 * - A back-mode notification of the purchase's outcomes (src/delivery/outcomes.ts) to its
 *   `notification_url`, signed with the purchase offer's secret; `sandbox` as the PSP account
 *   the payment ran on says. A transfer-mode purchase's `notification_url` gets its payment
 *   notification only, once, when it is validated, in the original interface's transfer-mode
 *   body signed as a JWT (src/delivery/transfer-notification.ts).
 * - An error notification (delivery kind `refusal`) when the purchase fails before it was
 *   secured, to its `error_notification_url` (docs/webhooks.md#error-notification).
 * - A purchase end notification (kind `purchase_end`) when a pot ends, to its offer's
 *   `purchase_end_notification_url` (docs/webhooks.md#purchase-end-notification).
 */
export async function dispatchBatch(deps: DispatcherDeps, now: Date, limit = 200): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const events = await claimUndispatchedEvents(tx, limit);
    if (events.length === 0) return 0;
    const deliveries = await planDeliveries(tx, deps, events);
    if (deliveries.length > 0) await insertDeliveries(tx, deliveries, now);
    await markDispatched(tx, events, now);
    return events.length;
  });
}

async function planDeliveries(tx: Sql, deps: DispatcherDeps, events: EventRow[]): Promise<NewDelivery[]> {
  const accountIds = [...new Set(events.map((e) => e.account_id))];
  const endpoints = await enabledEndpointsOf(tx, accountIds);
  const endpointOf = new Map(endpoints.map((e) => [e.account_id, e]));

  const notifiedAs = new Map<number, BackModeNotification>();
  for (const e of events) {
    const kind = e.notification_url ? backModeNotificationOf(e) : undefined;
    // Transfer mode tells the merchant of the validation only (docs/webhooks.md#transfer-mode-payment-notification).
    if (kind && (e.payment_mode !== 'transfer' || kind.kind === 'checkout')) notifiedAs.set(Number(e.id), kind);
  }
  // A transfer-mode checkout reports no PSP transaction: the shopper may have paid by bank transfer.
  const backMode = (e: EventRow) => e.payment_mode !== 'transfer';
  const checkouts = await checkoutTransactionEvents(
    tx,
    events.filter((e) => notifiedAs.get(Number(e.id))?.kind === 'checkout' && backMode(e)),
    LEADER_PURPOSES,
  );
  const errors = events.filter((e) => e.error_notification_url && errorStateOf(e));
  // Moves that may end a pot: whether they do depends on their offer's type, read below.
  const potEnds = events.filter((e) => endsPot(e, 'SHARED'));
  const signed = [...events.filter((e) => notifiedAs.has(Number(e.id))), ...errors, ...potEnds];
  const offerIds = [...new Set(signed.map((e) => e.offer_id))];
  const offers = offerIds.length === 0 ? [] : await offerSigningSecrets(tx, offerIds);
  const offerOf = new Map(offers.map((o) => [o.id, o]));
  // The payment each notified transaction ran on: a checkout's is its transaction event's.
  const transactionEventOf = (e: EventRow) => (notifiedAs.get(Number(e.id))?.kind === 'checkout' ? checkouts.get(Number(e.id)) : { id: Number(e.id), data: e.data });
  const transactionEventIds = events.filter((e) => notifiedAs.has(Number(e.id)) && backMode(e)).flatMap((e) => transactionEventOf(e)?.id ?? []);
  const paymentOf = await paymentsOfEvents(tx, [...new Set(transactionEventIds)]);

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
    const notified = notifiedAs.get(Number(e.id));
    if (notified && e.notification_url && !backMode(e)) {
      const secret = signingSecret(deps, e, offerOf.get(e.offer_id));
      if (secret !== undefined) {
        const body = transferNotificationBody({
          reference: e.ref,
          validatedAt: new Date(e.created_at),
          offerId: e.offer_id,
          purchaseId: e.purchase_id,
          amountCents: Number(e.amount_cents),
        });
        out.push({ ...base, id: newUuid(), kind: 'notification', trigger_name: null, url: e.notification_url, payload: signedTransferNotification(body, secret) });
      }
    } else if (notified && e.notification_url) {
      const source = transactionEventOf(e);
      const sandbox = (source && paymentOf.get(source.id)?.sandbox) ?? true;
      const planned = source && notificationFor(deps, e, source.data, notified, offerOf.get(e.offer_id), sandbox);
      if (planned) out.push({ ...base, id: newUuid(), kind: 'notification', trigger_name: null, url: e.notification_url, payload: planned });
      else if (!source)
        deps.log.error({ event_id: e.id, account_id: e.account_id, purchase_id: e.purchase_id }, 'checkout without a transaction of the leader: no notification sent');
    }
    const offer = offerOf.get(e.offer_id);
    if (offer?.purchase_end_notification_url && offer.account_id === e.account_id && endsPot(e, offer.type)) {
      const payload = purchaseEndBody(e.ref, toPublicId('pur', e.purchase_id));
      out.push({ ...base, id: newUuid(), kind: 'purchase_end', trigger_name: null, url: offer.purchase_end_notification_url, payload });
    }
    const state = e.error_notification_url ? errorStateOf(e) : undefined;
    if (state && e.error_notification_url) {
      const secret = signingSecret(deps, e, offerOf.get(e.offer_id));
      if (secret !== undefined) {
        const payload = buildErrorNotification({ reference: e.ref, purchaseUid: toPublicId('pur', e.purchase_id), state }, secret);
        out.push({ ...base, id: newUuid(), kind: 'refusal', trigger_name: null, url: e.error_notification_url, payload });
      }
    }
  }
  return out;
}

function notificationFor(
  deps: DispatcherDeps,
  e: EventRow,
  data: Record<string, unknown>,
  notified: BackModeNotification,
  offer: SigningOffer | undefined,
  sandbox: boolean,
): string | undefined {
  const transaction = transactionOf(data);
  if (!transaction) {
    deps.log.error({ event_id: e.id, account_id: e.account_id, purchase_id: e.purchase_id }, 'payment.transaction event without a valid data.transaction: no notification sent');
    return undefined;
  }
  const secret = signingSecret(deps, e, offer);
  if (secret === undefined) return undefined;
  const reported = notified.kind === 'checkout' ? asCheckoutOutcome(transaction) : transaction;
  const body = buildNotification({ transaction: reported, reference: e.ref, metadata: e.metadata ?? {}, sandbox }, secret);
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
