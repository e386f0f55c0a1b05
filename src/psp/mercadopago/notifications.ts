import { InvalidWebhookSignatureError, SignatureFailureReason, WebhookSignatureValidator } from 'mercadopago';

/**
 * Mercado Pago webhooks ("Notifications › Webhooks", "Validate notification origin"): a JSON POST
 * `{"type":"payment","action":"payment.updated","data":{"id":"<payment id>"},…}` with the headers
 * `x-signature: ts=<unix seconds>,v1=<hex HMAC-SHA256>` and `x-request-id`. The MAC is keyed with
 * the application's webhook secret over the manifest `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`.
 * The SDK's `WebhookSignatureValidator` checks it (constant time); freshness is checked here.
 * The notification names the payment only: its status is read back (`retrieve`).
 */
export const SIGNATURE_HEADER = 'x-signature';
export const REQUEST_ID_HEADER = 'x-request-id';
/** The freshness window, as for the other HMAC-signed webhooks (Stripe's 300 s). */
export const TOLERANCE_SECONDS = 300;

export function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

export type SignedNotification = { ok: true; paymentId: string } | { ok: false; reason: 'bad_signature' | 'malformed' | 'stale' };

/**
 * Checks a notification's signature and reads the payment id it is about. `data.id` is signed as
 * Mercado Pago sends it in the notification URL's query string, which for payment events is the
 * body's `data.id`: the body is what reaches us, so it is what we sign-check.
 */
export function verifySignedNotification(input: { headers: Record<string, string | undefined>; rawBody: string }, secret: string, now: Date): SignedNotification {
  let body: unknown;
  try {
    body = JSON.parse(input.rawBody);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const b = body as { type?: unknown; data?: { id?: unknown } } | null;
  const rawId = b?.data?.id;
  const dataId = typeof rawId === 'number' && Number.isSafeInteger(rawId) ? String(rawId) : rawId;
  if (typeof dataId !== 'string' || !/^\d{1,20}$/.test(dataId)) return { ok: false, reason: 'malformed' };
  const xSignature = headerValue(input.headers, SIGNATURE_HEADER);
  try {
    WebhookSignatureValidator.validate({ xSignature, xRequestId: headerValue(input.headers, REQUEST_ID_HEADER), dataId, secret });
  } catch (e) {
    if (e instanceof InvalidWebhookSignatureError) return { ok: false, reason: e.reason === SignatureFailureReason.TimestampOutOfTolerance ? 'stale' : 'bad_signature' };
    throw e;
  }
  // Freshness on our clock. The SDK reads `ts` as seconds; examples of real headers show both
  // seconds (10 digits) and milliseconds (13): both are read, by their size.
  const ts = Number(/(?:^|,)\s*ts=(\d{1,16})\s*(?:,|$)/.exec(xSignature ?? '')?.[1]);
  const tsMs = ts >= 1e11 ? ts : ts * 1000;
  if (!Number.isFinite(tsMs) || Math.abs(now.getTime() - tsMs) > TOLERANCE_SECONDS * 1000) return { ok: false, reason: 'stale' };
  // Signed, but only payment events name a payment (merchant orders, chargebacks… are not ours).
  if (b?.type !== 'payment') return { ok: false, reason: 'malformed' };
  return { ok: true, paymentId: dataId };
}
