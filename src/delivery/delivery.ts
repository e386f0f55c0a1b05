import { isStorableDate } from '../domain/dates.ts';
import { isUuid } from '../domain/ids.ts';

/**
 * What a delivery is: a webhook, a back-mode notification, an error notification (kind `refusal`, to the
 * purchase's `errorNotificationUrl`), or a pot's end (kind `purchase_end`, to the offer's purchase
 * end notification URL), and where it stands (docs/webhooks.md).
 */
export type DeliveryKind = 'webhook' | 'notification' | 'refusal' | 'purchase_end';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/**
 * Where a delivery stands for the merchant's staff: the one word the back office shows for it
 * everywhere (a purchase's page, the Developers page, a delivery's page, the home page's counts).
 * Failing is given up or retrying after a failure; pending is not tried yet (or not failed yet).
 * Migration 044's trigger counts the home page's figures by the same rule in SQL
 * (`chipin_delivery_stats_row`): `test/browser/dashboard-developers.test.ts` holds them together.
 */
export type DeliveryStanding = 'delivered' | 'failing' | 'pending' | 'cancelled';

export function deliveryStanding(d: { status: DeliveryStatus; failures: number }): DeliveryStanding {
  if (d.status === 'succeeded') return 'delivered';
  if (d.status === 'cancelled') return 'cancelled';
  return d.status === 'failed' || d.failures > 0 ? 'failing' : 'pending';
}

/** What one attempt came to (the `outcome` of its row). */
export type AttemptOutcome = 'succeeded' | 'retry_scheduled' | 'gave_up' | 'endpoint_gone' | 'interrupted';

/** Public id of a delivery (also the `webhook-id` header): `dlv_<uuid>`. */
export function toDeliveryUid(id: string): string {
  return `dlv_${id}`;
}

export function parseDeliveryUid(uid: string): string | undefined {
  if (!uid.startsWith('dlv_')) return undefined;
  const id = uid.slice(4).toLowerCase();
  return isUuid(id) ? id : undefined;
}

/** Position in the newest-first list of deliveries. */
export interface DeliveryCursor {
  createdAt: Date;
  eventId: number;
  id: string;
}

/** Opaque to clients: base64url of `created_at|event_id|id`. */
export function encodeDeliveryCursor(d: DeliveryCursor): string {
  return Buffer.from(`${d.createdAt.toISOString()}|${d.eventId}|${d.id}`).toString('base64url');
}

export function decodeDeliveryCursor(cursor: string): DeliveryCursor | undefined {
  const [iso, event, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  const eventId = Number(event);
  return id && isUuid(id) && Number.isSafeInteger(eventId) && eventId > 0 && isStorableDate(createdAt) ? { createdAt, eventId, id } : undefined;
}
