import { isStorableDate } from '../domain/dates.ts';
import { isUuid } from '../domain/ids.ts';

/**
 * What a delivery is: a webhook, a back-mode notification, an error notification (kind `refusal`, to the
 * purchase's `errorNotificationUrl`), or a pot's end (kind `purchase_end`, to the offer's purchase
 * end notification URL), and where it stands (docs/webhooks.md).
 */
export type DeliveryKind = 'webhook' | 'notification' | 'refusal' | 'purchase_end';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

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
