import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as HmacValidatorModule from '@adyen/api-library/lib/src/utils/hmacValidator.js';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/models.js';
import type { NotificationAck } from '../connector.ts';

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
 * is the connector's to ignore when it would move a payment backwards (`#apply` in ./connector.ts,
 * docs/psp/adyen.md#notifications).
 */

/** The answer Adyen expects, else it retries the delivery. */
export const ADYEN_ACK: NotificationAck = { status: 200, contentType: 'text/plain', body: '[accepted]' };

export interface NotificationItem {
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  eventCode: string;
  eventDate?: string;
  success: 'true' | 'false';
  reason?: string;
  paymentMethod?: string;
  additionalData?: Record<string, string>;
}

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
