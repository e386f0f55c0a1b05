import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as HmacValidatorModule from '@adyen/api-library/lib/src/utils/hmacValidator.js';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/models.js';
import type { Clock } from '../../domain/clock.ts';
import type { NotificationAck, NotificationEvent, NotificationResult, NotifiedTransaction, TransactionStatus } from '../connector.ts';
import { readDisputeItem } from './disputes.ts';
import { ADYEN_EVENTS_KEPT, ADYEN_HOLD_DAYS, refusalDecline, type AdyenPaymentState, type NotificationItem } from './mapping.ts';

/**
 * The SDK's check of a payment webhook item (`hmacValidator`): the same signing string as
 * {@link signingString}, compared in constant time (`timingSafeEqual` on the decoded signatures
 * once their lengths match, lib/src/utils/hmacValidator.js `secureCompare`). Required, not
 * imported: its class is the `default` of a CommonJS module (see ./sdk.ts).
 */
const { default: HmacValidator } = createRequire(import.meta.url)('@adyen/api-library/lib/src/utils/hmacValidator.js') as typeof HmacValidatorModule.default;
const validator = new HmacValidator();

/**
 * Adyen's standard webhooks (github.com/Adyen/adyen-openapi json/Webhooks-v1.json; signature scheme
 * from docs.adyen.com/development-resources/webhooks/verify-hmac-signatures): a JSON body
 * `{"live":"false","notificationItems":[{"NotificationRequestItem":{…}}]}`, each item signed in
 * `additionalData.hmacSignature` = base64(HMAC-SHA256(hex-decoded key, signing string)), the
 * signing string being the item's
 * `pspReference:originalReference:merchantAccountCode:merchantReference:amount.value:amount.currency:eventCode:success`
 * (an absent field is the empty string). Adyen signs no timestamp (its `eventDate` is outside the
 * signing string): there is no freshness to check (`stale` never occurs). A replayed or late item
 * is the connector's to ignore when it would move a payment backwards ({@link applyItem} below,
 * docs/psp/adyen.md#notifications).
 */

/** The answer Adyen expects, else it retries the delivery. */
const ADYEN_ACK: NotificationAck = { status: 200, contentType: 'text/plain', body: '[accepted]' };

/** The item's type is in ./mapping.ts, which ./disputes.ts reads it from too. */
export type { NotificationItem };

export function signingString(item: NotificationItem): string {
  return [
    item.pspReference ?? '',
    item.originalReference ?? '',
    item.merchantAccountCode ?? '',
    item.merchantReference ?? '',
    String(item.amount?.value ?? ''),
    item.amount?.currency ?? '',
    item.eventCode ?? '',
    item.success ?? '',
  ].join(':');
}

/** The `hmacSignature` of an item under a hex key: how Adyen signs (the fake and the tests sign with it; the connector checks with the SDK). */
function signItem(hexKey: string, item: NotificationItem): string {
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(signingString(item), 'utf8').digest('base64');
}

/**
 * Constant-time check of an item's `additionalData.hmacSignature`, by the SDK's validator. A
 * signature that is not base64 is refused first: the SDK decodes leniently (it skips characters
 * base64 does not have) and throws on a missing one.
 */
export function checkItemSignature(hexKey: string, item: NotificationItem): boolean {
  const given = item.additionalData?.hmacSignature;
  if (typeof given !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(given)) return false;
  return validator.validateHMAC(item as unknown as NotificationRequestItem, hexKey);
}

/** The items of a webhook body, or undefined when it is not one. */
export function parseNotification(rawBody: string): { live: boolean; items: NotificationItem[] } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return undefined;
  }
  const b = body as { live?: unknown; notificationItems?: unknown } | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.notificationItems) || b.notificationItems.length === 0) return undefined;
  const items: NotificationItem[] = [];
  for (const wrapper of b.notificationItems as unknown[]) {
    const item = (wrapper as { NotificationRequestItem?: unknown } | null)?.NotificationRequestItem as Partial<NotificationItem> | undefined;
    if (!item || typeof item !== 'object') return undefined;
    if (typeof item.pspReference !== 'string' || typeof item.eventCode !== 'string') return undefined;
    if (item.success !== 'true' && item.success !== 'false') return undefined;
    if (typeof item.amount !== 'object' || item.amount === null || typeof item.amount.value !== 'number' || typeof item.amount.currency !== 'string') return undefined;
    if (item.originalReference !== undefined && typeof item.originalReference !== 'string') return undefined;
    if (typeof item.merchantAccountCode !== 'string' || typeof item.merchantReference !== 'string') return undefined;
    items.push(item as NotificationItem);
  }
  return { live: b.live === 'true', items };
}

/** A signed webhook body, as Adyen sends it (used by the fake and the tests). */
export function notificationBody(hexKey: string, items: NotificationItem[], live = false): string {
  return JSON.stringify({
    live: String(live),
    notificationItems: items.map((i) => {
      const { additionalData, ...rest } = i;
      const signed = { ...rest, additionalData: { ...(additionalData ?? {}) } };
      signed.additionalData.hmacSignature = signItem(hexKey, i);
      return { NotificationRequestItem: signed };
    }),
  });
}

/**
 * The connector's `verifyNotification` of a webhook body, under the account's HMAC key (empty: none
 * saved yet, so nothing is accepted) and merchant account. Checks every item's signature and
 * merchant account (one bad item refuses the whole batch); answers each payment the items are
 * about, the status reported, and (`event`) that payment's items, for `retrieve` to fold into the
 * payment's stored state ({@link applyNotification}): the first payment, then the others of a batch
 * in `also` (Adyen sends one item per webhook unless batching is enabled on the endpoint).
 */
export function verifyNotificationBody(rawBody: string, hmacKey: string, merchantAccount: string): NotificationResult {
  const parsed = parseNotification(rawBody);
  if (!parsed) return { ok: false, reason: 'malformed' };
  if (!hmacKey) return { ok: false, reason: 'bad_signature' };
  for (const item of parsed.items) {
    if (!checkItemSignature(hmacKey, item) || item.merchantAccountCode !== merchantAccount) return { ok: false, reason: 'bad_signature' };
  }
  // One transaction per payment the batch reports on, in the batch's order; each carries all of
  // that payment's items (a capture and its refund may come together).
  const notified: NotifiedTransaction[] = [];
  for (const item of parsed.items) {
    // A dispute item (docs/money-operations.md#disputes) is about the dispute alone: one entry each.
    const dispute = readDisputeItem(item);
    if (dispute) {
      notified.push({ transactionId: dispute.transactionId, status: 'captured', dispute });
      continue;
    }
    const status = reportedStatus(item);
    const transactionId = paymentOf(item);
    if (status === undefined || notified.some((n) => !n.dispute && n.transactionId === transactionId)) continue;
    const items: EventItem[] = parsed.items
      .filter((i) => paymentOf(i) === transactionId)
      .map((i) => ({
        eventCode: i.eventCode,
        pspReference: i.pspReference,
        ...(i.originalReference ? { originalReference: i.originalReference } : {}),
        success: i.success,
        value: i.amount.value,
        ...(i.reason ? { reason: i.reason } : {}),
        ...(typeof i.eventDate === 'string' && !Number.isNaN(Date.parse(i.eventDate)) ? { eventDate: i.eventDate } : {}),
      }));
    notified.push({ transactionId, status, event: { items } });
  }
  const [first, ...also] = notified;
  if (!first) return { ok: false, reason: 'malformed' };
  return { ok: true, ...first, ack: { ...ADYEN_ACK }, ...(also.length > 0 ? { also } : {}) };
}

/** A verified webhook item as it travels in a notification's `event` (JSON). */
type EventItem = {
  eventCode: string;
  pspReference: string;
  originalReference?: string;
  success: 'true' | 'false';
  value: number;
  reason?: string;
  /** Adyen's `eventDate` (ISO 8601), unsigned: it orders items, it never makes one count twice. */
  eventDate?: string;
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The payment an item is about: its own reference for an authorisation, the original one for a modification. */
function paymentOf(item: { eventCode: string; pspReference: string; originalReference?: string }): string {
  return item.eventCode === 'AUTHORISATION' ? item.pspReference : (item.originalReference ?? item.pspReference);
}

/** What an item reports on its own (the payment's stored state may say more); undefined: nothing we track. */
function reportedStatus(item: NotificationItem): TransactionStatus | undefined {
  const ok = item.success === 'true';
  switch (item.eventCode) {
    case 'AUTHORISATION':
      return ok ? 'authorized' : 'declined';
    case 'CAPTURE':
    case 'CAPTURE_FAILED':
      return item.eventCode === 'CAPTURE_FAILED' || !ok ? 'authorized' : 'captured';
    case 'CANCELLATION':
    case 'TECHNICAL_CANCEL':
    case 'CANCEL_OR_REFUND':
      return 'voided';
    case 'REFUND':
    case 'REFUND_FAILED':
      return 'refunded';
    case 'EXPIRE':
      return 'expired';
    default:
      return undefined;
  }
}

/** The items of a notification's `event`, as {@link verifyNotificationBody} wrote them. */
function readEventItems(event: NotificationEvent | undefined): EventItem[] {
  const items = event?.items;
  if (!Array.isArray(items)) return [];
  return items.filter(
    (i): i is EventItem =>
      isObject(i) &&
      typeof i.eventCode === 'string' &&
      typeof i.pspReference === 'string' &&
      (i.success === 'true' || i.success === 'false') &&
      Number.isSafeInteger(i.value) &&
      (i.eventDate === undefined || typeof i.eventDate === 'string'),
  ) as EventItem[];
}

/**
 * Folds what a verified notification (its `event`, as {@link verifyNotificationBody} wrote it) says
 * of payment `p` into its state, item by item in the batch's order; items about other payments are
 * left out. `clock` dates a hold an AUTHORISATION item grants.
 */
export function applyNotification(p: AdyenPaymentState, event: NotificationEvent | undefined, clock: Clock): void {
  const items = readEventItems(event);
  for (const item of items) if (paymentOf(item) === p.pspReference) applyItem(p, item, clock);
}

/**
 * Applies one verified webhook item to the payment it concerns, unless it would move the payment
 * backwards (docs/psp/adyen.md#notifications). Adyen signs no freshness and may deliver
 * an item again, or late, after a newer one; the payment's state is rebuilt from items, so:
 * - an item already folded in (the same eventCode, pspReference and success: what Adyen signs, and
 *   the duplicate key of Adyen's own plugins) changes nothing again, whatever its eventDate, which
 *   the HMAC does not cover: a replay of an old signed item is one;
 * - an item older (eventDate) than one already folded in for the same pspReference changes
 *   nothing: a REFUND delivered after the REFUND_FAILED that followed it.
 */
function applyItem(p: AdyenPaymentState, item: EventItem, clock: Clock): void {
  const seen = p.events ?? [];
  if (seen.some((e) => e.eventCode === item.eventCode && e.pspReference === item.pspReference && e.success === item.success)) return;
  const at = item.eventDate === undefined ? NaN : Date.parse(item.eventDate);
  if (!Number.isNaN(at) && seen.some((e) => e.pspReference === item.pspReference && e.eventDate !== undefined && Date.parse(e.eventDate) > at)) return;
  p.events = [
    ...seen,
    { eventCode: item.eventCode, pspReference: item.pspReference, success: item.success, ...(item.eventDate === undefined ? {} : { eventDate: item.eventDate }) },
  ].slice(-ADYEN_EVENTS_KEPT);
  foldItem(p, item, clock);
}

const DAY_MS = 86_400_000;

/** What one item, in order, does to the payment. */
function foldItem(p: AdyenPaymentState, item: EventItem, clock: Clock): void {
  const ok = item.success === 'true';
  const value = item.value;
  switch (item.eventCode) {
    case 'AUTHORISATION':
      if (p.status === 'pending_action') {
        delete p.challengeUrl;
        delete p.challengeForm;
        if (ok) {
          if (p.capture === 'automatic') {
            p.status = 'captured';
            p.capturedCents = p.amountCents;
          } else {
            p.status = 'authorised';
            p.expiresAt = new Date(clock.now().getTime() + ADYEN_HOLD_DAYS * DAY_MS);
          }
        } else {
          p.status = 'refused';
          const d = refusalDecline(undefined, item.reason);
          p.decline = { reason: /3D|authenticat/i.test(item.reason ?? '') ? 'authentication_failed' : d.reason, message: d.message };
        }
      }
      return;
    case 'CAPTURE':
    case 'CAPTURE_FAILED': {
      const failed = item.eventCode === 'CAPTURE_FAILED' || !ok;
      if (!failed && p.status === 'authorised' && !p.modifications[item.pspReference]) {
        p.modifications[item.pspReference] = { kind: 'capture', amount: value };
        p.status = 'captured';
        p.capturedCents = value;
        delete p.expiresAt;
      }
      if (failed && p.modifications[item.pspReference]?.kind === 'capture' && p.status === 'captured' && p.refundedCents === 0) {
        p.status = 'authorised';
        p.capturedCents = 0;
      }
      return;
    }
    case 'CANCELLATION':
    case 'TECHNICAL_CANCEL':
      if (ok && (p.status === 'authorised' || p.status === 'pending_action')) p.status = 'cancelled';
      return;
    case 'REFUND':
    case 'REFUND_FAILED': {
      const failed = item.eventCode === 'REFUND_FAILED' || !ok;
      const known = p.modifications[item.pspReference];
      if (!failed && !known && p.status === 'captured' && p.refundedCents + value <= p.capturedCents) {
        p.modifications[item.pspReference] = { kind: 'refund', amount: value };
        p.refundedCents += value;
      }
      if (failed && known?.kind === 'refund') {
        delete p.modifications[item.pspReference];
        p.refundedCents = Math.max(0, p.refundedCents - known.amount);
      }
      return;
    }
    case 'CANCEL_OR_REFUND':
      if (ok && (p.status === 'authorised' || p.status === 'pending_action')) p.status = 'cancelled';
      else if (ok && p.status === 'captured') p.refundedCents = p.capturedCents;
      return;
    case 'EXPIRE':
      if (ok && p.status === 'authorised') p.status = 'lapsed';
      return;
    default:
      // Chargebacks, reports, …: nothing this connector tracks.
      return;
  }
}
