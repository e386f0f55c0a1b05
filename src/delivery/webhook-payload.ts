import { createHmac } from 'node:crypto';
import { triggerOf, type TriggerName } from './triggers.ts';

/** A webhook body without its `token`, which is the endpoint's current one, added at send time. */
export interface WebhookMessage {
  /** The `purchase_events` id: strictly increasing, and the same on every retry and replay. */
  triggerID: number;
  triggerName: TriggerName;
  /** When the event happened (service clock), ISO 8601 UTC. */
  triggerDate: string;
  objects: WebhookObjects;
}

/**
 * What a webhook is about: a purchase (its Merchant API v1 id), or, for `payoutPaid`, a payout
 * and its figures (the merchant's, about no purchase: docs/webhooks.md#webhook-payload).
 */
type WebhookObjects =
  | { purchaseId: string; clientId?: string; reconciliationMismatchId?: string }
  | { payoutId: string; amountCents: number; currency: string; businessDay: string; lineCount: number };

export interface EventForWebhook {
  id: number;
  type: string;
  /** Bare uuid (the Merchant API v1 `id`); null for an event about no purchase (a payout's). */
  purchaseId: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The webhook an event is sent as, or undefined when no trigger exists for its type. Pure. */
export function webhookMessage(event: EventForWebhook): WebhookMessage | undefined {
  const triggerName = triggerOf(event.type);
  if (!triggerName) return undefined;
  const triggerDate = event.createdAt.toISOString();
  if (triggerName === 'payoutPaid') {
    const d = event.data;
    const payout = {
      payoutId: String(d.payout_id),
      amountCents: Number(d.amount_cents),
      currency: String(d.currency),
      businessDay: String(d.business_day),
      lineCount: Number(d.line_count),
    };
    return { triggerID: event.id, triggerName, triggerDate, objects: payout };
  }
  if (event.purchaseId === null) return undefined;
  const objects: { purchaseId: string; clientId?: string; reconciliationMismatchId?: string } = { purchaseId: event.purchaseId };
  // The contract: pledgerContributes concerns "Client and Purchase".
  if (triggerName === 'pledgerContributes' && typeof event.data.client_id === 'string') objects.clientId = event.data.client_id;
  // The mismatch to fetch (`GET /api/backoffice/reconciliation_mismatches`, docs/webhooks.md).
  if (triggerName === 'reconciliationMismatch' && typeof event.data.reconciliation_mismatch_id === 'string') {
    objects.reconciliationMismatchId = event.data.reconciliation_mismatch_id;
  }
  return { triggerID: event.id, triggerName, triggerDate, objects };
}

/** The exact JSON body: `{triggerID, triggerName, triggerDate, token, objects}`, in that order. */
export function webhookBody(message: WebhookMessage, token: string): string {
  const { triggerID, triggerName, triggerDate, objects } = message;
  return JSON.stringify({ triggerID, triggerName, triggerDate, token, objects });
}

/**
 * `webhook-signature` of Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`,
 * keyed with the base64-decoded part of the `whsec_` secret. Pure.
 */
export function standardWebhookSignature(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}
