import type Stripe from 'stripe';
import type { NotificationAck, NotificationResult } from '../connector.ts';
import { readCharge, readIntent, toStatus, toTransactionResult } from './mapping.ts';

/**
 * Stripe webhook events (docs.stripe.com/webhooks, "Verify webhook signatures"): header
 * `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…][,v0=…]`, the MAC keyed with the
 * endpoint's signing secret (`whsec_…`, used whole as the key) over `<t>.<raw body>`. The SDK's
 * `webhooks.constructEvent` checks it (constant-time, any of several `v1`); we give it the
 * service clock as `receivedAt` so freshness follows our clock, and the 300 s tolerance Stripe
 * recommends. Stripe treats any 2xx as delivered and retries otherwise for up to three days.
 */
export const SIGNATURE_HEADER = 'stripe-signature';
export const TOLERANCE_SECONDS = 300;

/** Stripe only needs a 2xx; its own examples answer `{"received": true}`. */
export const STRIPE_ACK: NotificationAck = { status: 200, contentType: 'application/json', body: '{"received":true}' };

export function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The header's timestamp when it has the documented shape (a `t` and at least one `v1`), else undefined. */
export function signatureTimestamp(header: string | undefined): number | undefined {
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

/** Reads a verified event: PaymentIntent events carry the intent, charge events the charge. */
export function readEvent(event: unknown): NotificationResult {
  const e = event as { type?: unknown; data?: { object?: unknown } } | null;
  if (typeof e?.type !== 'string' || typeof e.data !== 'object' || e.data === null) return { ok: false, reason: 'malformed' };
  const object = e.data.object as Record<string, unknown> | undefined;
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
  // Another event type (the endpoint should subscribe to payment_intent.* and charge.* only).
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
