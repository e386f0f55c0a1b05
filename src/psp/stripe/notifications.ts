import type Stripe from 'stripe';
import type { DisputeStatus, NotificationAck, NotificationResult, NotifiedDispute } from '../connector.ts';
import { readCharge, readIntent, toStatus, toTransactionResult } from './mapping.ts';

/**
 * Stripe webhook events (docs.stripe.com/webhooks, "Verify webhook signatures"): header
 * `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…][,v0=…]`, the MAC keyed with the
 * endpoint's signing secret (`whsec_…`, used whole as the key) over `<t>.<raw body>`. The SDK's
 * `webhooks.constructEvent` checks it (constant-time, any of several `v1`); we give it the
 * service clock as `receivedAt` so freshness follows our clock, and the 300 s tolerance Stripe
 * recommends. Stripe treats any 2xx as delivered and retries otherwise for up to three days.
 */
const SIGNATURE_HEADER = 'stripe-signature';
const TOLERANCE_SECONDS = 300;

/** Stripe only needs a 2xx; its own examples answer `{"received": true}`. */
export const STRIPE_ACK: NotificationAck = { status: 200, contentType: 'application/json', body: '{"received":true}' };

function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The header's timestamp when it has the documented shape (a `t` and at least one `v1`), else undefined. */
function signatureTimestamp(header: string | undefined): number | undefined {
  if (!header) return undefined;
  let t: number | undefined;
  let v1 = false;
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^[0-9]{1,12}$/.test(value) || t !== undefined) return undefined;
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return undefined;
      v1 = true;
    }
  }
  return v1 ? t : undefined;
}

/**
 * A Dispute's status (docs.stripe.com/api/disputes/object#dispute_object-status): `warning_*` are
 * inquiries (a retrieval request: no money moved yet), the others chargebacks.
 */
const DISPUTE_STATUS: Readonly<Record<string, DisputeStatus>> = {
  warning_needs_response: 'evidence_needed',
  warning_under_review: 'opened',
  warning_closed: 'closed',
  needs_response: 'evidence_needed',
  under_review: 'opened',
  won: 'won',
  lost: 'lost',
};

/**
 * A `charge.dispute.*` event's Dispute object (docs.stripe.com/api/disputes/object): `created`,
 * `updated`, `closed` (won, lost, warning_closed), `funds_withdrawn`, `funds_reinstated` all carry
 * the dispute's current state, which is all Chipin records.
 */
function readDispute(object: Record<string, unknown> | undefined): NotifiedDispute | undefined {
  const status = typeof object?.status === 'string' ? DISPUTE_STATUS[object.status] : undefined;
  if (!object || !status || typeof object.id !== 'string' || typeof object.payment_intent !== 'string') return undefined;
  if (!Number.isSafeInteger(object.amount) || (object.amount as number) < 0 || typeof object.currency !== 'string') return undefined;
  const dispute: NotifiedDispute = {
    pspDisputeId: object.id,
    transactionId: object.payment_intent,
    kind: (object.status as string).startsWith('warning_') ? 'retrieval' : 'chargeback',
    status,
    reason: typeof object.reason === 'string' ? object.reason : null,
    amountCents: object.amount as number,
    currency: object.currency.toUpperCase(),
  };
  const due = (object.evidence_details as { due_by?: unknown } | undefined)?.due_by;
  if (typeof due === 'number' && Number.isSafeInteger(due)) dispute.evidenceDueAt = new Date(due * 1000);
  return dispute;
}

/**
 * `radar.early_fraud_warning.created|updated` (docs.stripe.com/api/radar/early_fraud_warnings/object):
 * the issuer's fraud report (TC40/SAFE), a fraud warning on the payment; `actionable: false` once
 * the charge is refunded or disputed, which closes it. It tells no amount: the payment's is taken.
 */
function readEarlyFraudWarning(object: Record<string, unknown> | undefined): NotifiedDispute | undefined {
  if (!object || typeof object.id !== 'string' || typeof object.payment_intent !== 'string') return undefined;
  return {
    pspDisputeId: object.id,
    transactionId: object.payment_intent,
    kind: 'fraud_warning',
    status: object.actionable === false ? 'closed' : 'opened',
    reason: typeof object.fraud_type === 'string' ? object.fraud_type : null,
  };
}

/** Reads a verified event: PaymentIntent events carry the intent, charge events the charge, dispute events the dispute. */
function readEvent(event: unknown): NotificationResult {
  const e = event as { type?: unknown; data?: { object?: unknown } } | null;
  if (typeof e?.type !== 'string' || typeof e.data !== 'object' || e.data === null) return { ok: false, reason: 'malformed' };
  const object = e.data.object as Record<string, unknown> | undefined;
  if (e.type.startsWith('charge.dispute.') || e.type.startsWith('radar.early_fraud_warning.')) {
    const dispute = e.type.startsWith('charge.dispute.') ? readDispute(object) : readEarlyFraudWarning(object);
    if (!dispute) return { ok: false, reason: 'malformed' };
    return { ok: true, transactionId: dispute.transactionId, status: 'captured', dispute, ack: STRIPE_ACK };
  }
  if (e.type.startsWith('payment_intent.')) {
    const pi = readIntent(object);
    if (!pi) return { ok: false, reason: 'malformed' };
    const r = toTransactionResult(pi);
    return { ok: true, transactionId: r.transactionId, status: r.status, ack: STRIPE_ACK };
  }
  if (e.type.startsWith('charge.')) {
    const charge = readCharge(object);
    const intent = typeof object?.payment_intent === 'string' ? object.payment_intent : undefined;
    if (!charge || !intent) return { ok: false, reason: 'malformed' };
    const captured = object?.captured === true;
    const status = object?.status === 'failed' ? 'declined' : captured ? toStatus({ status: 'succeeded', cancellationReason: null }, charge.amountRefunded) : 'authorized';
    return { ok: true, transactionId: intent, status, ack: STRIPE_ACK };
  }
  // Another event type (the endpoint should subscribe to payment_intent.*, charge.* and radar.early_fraud_warning.* only).
  return { ok: false, reason: 'malformed' };
}

export function verifyStripeNotification(
  webhooks: Stripe['webhooks'],
  secret: string,
  input: { headers: Record<string, string | undefined>; rawBody: string },
  now: Date,
): NotificationResult {
  const header = headerValue(input.headers, SIGNATURE_HEADER);
  const t = signatureTimestamp(header);
  if (t === undefined || header === undefined || input.rawBody.length === 0) return { ok: false, reason: 'malformed' };
  let event: unknown;
  try {
    // tolerance 0: the SDK checks the signature only; freshness below, in both directions
    // (the SDK only refuses old timestamps, not ones from the future).
    event = webhooks.constructEvent(input.rawBody, header, secret, 0, undefined, now.getTime());
  } catch {
    return { ok: false, reason: 'bad_signature' };
  }
  if (Math.abs(Math.floor(now.getTime() / 1000) - t) > TOLERANCE_SECONDS) return { ok: false, reason: 'stale' };
  return readEvent(event);
}
