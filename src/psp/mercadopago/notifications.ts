import { InvalidWebhookSignatureError, SignatureFailureReason, WebhookSignatureValidator } from 'mercadopago';

/**
 * Mercado Pago webhooks ("Notifications › Webhooks", "Validate notification origin"): a JSON POST
 * `{"type":"payment","action":"payment.updated","data":{"id":"<payment id>"},…}` with the headers
 * `x-signature: ts=<unix seconds>,v1=<hex HMAC-SHA256>` and `x-request-id`. The MAC is keyed with
 * the application's webhook secret over the manifest `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`.
 * The SDK's `WebhookSignatureValidator` checks it (constant time); freshness is checked here.
 * The notification names the payment only: its status is read back (`retrieve`). The
 * *Chargebacks* webhook (`type` `topic_chargebacks_wh`) is signed the same way over its `data.id`,
 * the chargeback's id (disputes.ts).
 */
const SIGNATURE_HEADER = 'x-signature';
const REQUEST_ID_HEADER = 'x-request-id';
/** The freshness window, as for the other HMAC-signed webhooks (Stripe's 300 s). */
const TOLERANCE_SECONDS = 300;

function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The *Chargebacks* webhook's `type` ("Configure chargeback notifications"). */
const CHARGEBACK_TYPE = 'topic_chargebacks_wh';

export type SignedNotification =
  { ok: true; paymentId: string } | { ok: true; chargebackId: string; paymentId: string | undefined } | { ok: false; reason: 'bad_signature' | 'malformed' | 'stale' };

/**
 * `data.id` as it is written in the body. A chargeback's id is a number of 18 digits in the
 * documented example (`"id":233000061680860000`), beyond what a JSON number reads exactly: its
 * digits are taken from the text (the documented `data` objects are flat), and checked to be the
 * number JSON.parse read.
 */
function writtenDataId(rawBody: string, parsed: number): string | undefined {
  const data = /"data"\s*:\s*\{([^{}]*)\}/.exec(rawBody)?.[1];
  const id = data === undefined ? undefined : /(?:^|,)\s*"id"\s*:\s*(\d{1,30})\s*(?:,|$)/.exec(data)?.[1];
  return id !== undefined && Number(id) === parsed ? id : undefined;
}

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
  const b = body as { type?: unknown; data?: { id?: unknown; payment_id?: unknown } } | null;
  const rawId = b?.data?.id;
  const dataId =
    typeof rawId === 'number' && Number.isInteger(rawId) && rawId > 0 ? (writtenDataId(input.rawBody, rawId) ?? (Number.isSafeInteger(rawId) ? String(rawId) : undefined)) : rawId;
  if (typeof dataId !== 'string' || !/^\d{1,30}$/.test(dataId)) return { ok: false, reason: 'malformed' };
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
  if (b?.type === CHARGEBACK_TYPE) {
    const p = b.data?.payment_id;
    const paymentId = typeof p === 'number' && Number.isSafeInteger(p) && p > 0 ? String(p) : typeof p === 'string' && /^\d{1,20}$/.test(p) ? p : undefined;
    return { ok: true, chargebackId: dataId, paymentId };
  }
  // Signed, but only payment and chargeback events are ours (merchant orders… are not).
  if (b?.type !== 'payment' || dataId.length > 20) return { ok: false, reason: 'malformed' };
  return { ok: true, paymentId: dataId };
}
