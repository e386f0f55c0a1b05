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
