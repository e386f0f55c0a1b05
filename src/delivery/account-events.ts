import type { Sql } from '../db/database.ts';
import { newUuid } from '../domain/ids.ts';
import { insertAccountEvent, insertDeliveries } from './outbox-repository.ts';
import { enabledEndpointsOf } from './webhook-endpoint-repository.ts';
import { webhookMessage } from './webhook-payload.ts';

/**
 * Records an event of the merchant's about no purchase (`payout.paid`) and its webhook, in the
 * caller's transaction: the event row (already dispatched) and, when the account's enabled
 * endpoint subscribes to its trigger, the delivery the workers send (docs/webhooks.md#webhook-payload).
 * The dispatcher's other deliveries (notifications, purchase ends) are about purchases: such an
 * event has none.
 */
export async function recordAccountEvent(tx: Sql, e: { accountId: string; type: string; data: Record<string, unknown>; at: Date }): Promise<void> {
  const id = await insertAccountEvent(tx, e);
  const message = webhookMessage({ id, type: e.type, purchaseId: null, data: e.data, createdAt: e.at });
  if (!message) return;
  const [endpoint] = await enabledEndpointsOf(tx, [e.accountId]);
  if (!endpoint || !endpoint.events.includes(message.triggerName)) return;
  await insertDeliveries(
    tx,
    [
      {
        id: newUuid(),
        account_id: e.accountId,
        purchase_id: null,
        event_id: id,
        kind: 'webhook',
        trigger_name: message.triggerName,
        url: endpoint.url,
        payload: JSON.stringify(message),
      },
    ],
    e.at,
  );
}
