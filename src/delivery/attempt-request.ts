import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import { findWebhookEndpoints, type WebhookEndpoint } from './webhook-endpoint-repository.ts';
import type { ClaimedDelivery } from './delivery-queue-repository.ts';
import { stillSigningUntil } from './endpoints.ts';
import { toDeliveryUid } from './delivery.ts';
import { standardWebhookSignature, webhookBody, type WebhookMessage } from './webhook-payload.ts';

const USER_AGENT = 'Chipin-Webhooks/1.0 (+https://www.standardwebhooks.com)';

/** One delivery as it goes out: where, what, and its headers. */
export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * The request of a claimed delivery, or why it is no longer to be sent: a notification (back-mode
 * or refusal) goes as stored; a webhook is built for its endpoint as it is now (`endpoints`: those read for its
 * claim, else read here).
 */
export async function prepareRequest(
  read: { db: Database; box: SecretBox },
  d: ClaimedDelivery,
  endpoints: Map<string, WebhookEndpoint> | undefined,
  wallNow: () => Date,
): Promise<AttemptRequest | { cancel: string }> {
  const msgId = toDeliveryUid(d.id);
  const base = { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'webhook-id': msgId };
  if (d.kind !== 'webhook') return { url: d.url, body: d.payload, headers: base };
  const endpoint = (endpoints ?? (await findWebhookEndpoints(read.db, read.box, [d.accountId]))).get(d.accountId);
  if (!endpoint) return { cancel: 'the webhook endpoint was removed' };
  if (endpoint.disabledAt) return { cancel: `the webhook endpoint is disabled: ${endpoint.disabledReason ?? ''}`.trim() };
  return webhookRequest(endpoint, msgId, JSON.parse(d.payload) as WebhookMessage, wallNow);
}

/**
 * A webhook as it is sent: the endpoint's current token in the body, signed with its secret
 * (Standard Webhooks headers), and also with the secret a rotation replaced while that one still
 * signs: Standard Webhooks puts several signatures in the header, separated by spaces, and a
 * receiver accepts the webhook when one of them verifies (docs/webhooks.md#rotating-the-secret).
 */
export function webhookRequest(endpoint: WebhookEndpoint, msgId: string, message: WebhookMessage, wallNow: () => Date): AttemptRequest {
  const body = webhookBody(message, endpoint.token.reveal());
  // Real time, not the service clock: receivers compare it with their own clock.
  const now = wallNow();
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = [endpoint.secret, ...(endpoint.previousSecret && stillSigningUntil(endpoint.previousSecretUntil, now) ? [endpoint.previousSecret] : [])];
  return {
    url: endpoint.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': msgId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((secret) => standardWebhookSignature(secret.reveal(), msgId, timestamp, body)).join(' '),
    },
  };
}
