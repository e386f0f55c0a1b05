import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotificationAck, NotificationResult } from '../connector.ts';
import { MalformedAnswer, readPayment, splitOrder, toStatus, type LyraDetailedStatus } from './mapping.ts';

/**
 * Lyra's Instant Payment Notification (IPN) of the REST API V4: a form POST
 * (`application/x-www-form-urlencoded`) with
 *   kr-hash-algorithm = sha256_hmac
 *   kr-hash-key       = password | sha256_hmac   (which key signed it)
 *   kr-answer-type    = V4/Payment
 *   kr-answer         = the Payment object as JSON text
 *   kr-hash           = hex HMAC-SHA-256 of kr-answer
 * IPNs are signed with the REST API password (`kr-hash-key=password`); the shopper's browser
 * return is signed with the HMAC-SHA-256 key (`sha256_hmac`). Both are accepted, each with its
 * own key. Sources: docs.lyra.com/en/rest/V4.0/kb/payment_done.html (IPN use),
 * github.com/lyra/rest-php-examples (www/ipn.php, the SDK's checkHash(), the IPN sample).
 *
 * The IPN has no signed timestamp header; `kr-answer.serverDate` is inside the signed answer, so
 * it serves for freshness. Lyra re-sends an IPN its receiver failed; the tolerance covers that.
 */
export const NOTIFICATION_TOLERANCE_MS = 2 * 60 * 60 * 1000;

/** Lyra expects HTTP 200; the body is free text shown in its back office's notification log. */
const LYRA_NOTIFICATION_ACK: NotificationAck = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' };

export interface LyraNotificationKeys {
  password: string;
  hmacKey: string;
}

/** What the back-mode machinery may need beyond the contract's fields. */
interface LyraNotificationDetails {
  /** `orderDetails.orderId`: Chipin's transaction id for Lyra (the order Chipin created). */
  orderId: string;
  /** `transactions[].uuid` of the payment (DEBIT) transaction. */
  uuid: string;
  detailedStatus: LyraDetailedStatus;
  orderStatus: string;
  shopId: string | null;
  /** `orderDetails.mode`: TEST or PRODUCTION. */
  mode: string | null;
  serverDate: Date;
}

export type LyraNotificationRead = { ok: true; result: Extract<NotificationResult, { ok: true }>; details: LyraNotificationDetails } | Extract<NotificationResult, { ok: false }>;

function hashAnswer(key: string, krAnswer: string): string {
  return createHmac('sha256', key).update(krAnswer, 'utf8').digest('hex');
}

function sameHex(given: string, expected: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  return timingSafeEqual(Buffer.from(given.toLowerCase(), 'hex'), Buffer.from(expected, 'hex'));
}

function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** Checks and reads an IPN; `now` is the service clock. */
export function readNotification(keys: LyraNotificationKeys, input: { headers: Record<string, string | undefined>; rawBody: string }, now: Date): LyraNotificationRead {
  const type = headerValue(input.headers, 'content-type');
  if (type !== undefined && !/^application\/x-www-form-urlencoded\b/i.test(type)) return { ok: false, reason: 'malformed' };
  const form = new URLSearchParams(input.rawBody);
  const hash = form.get('kr-hash');
  const algorithm = form.get('kr-hash-algorithm');
  const keyName = form.get('kr-hash-key');
  const answer = form.get('kr-answer');
  if (!hash || !answer || algorithm !== 'sha256_hmac') return { ok: false, reason: 'malformed' };
  const key = keyName === 'password' ? keys.password : keyName === 'sha256_hmac' ? keys.hmacKey : undefined;
  if (key === undefined) return { ok: false, reason: 'malformed' };
  // Lyra's own SDK also accepts the answer with JSON-escaped slashes undone (some stacks escape them).
  const candidates = answer.includes('\\/') ? [answer, answer.replaceAll('\\/', '/')] : [answer];
  let match = false;
  for (const c of candidates) match = sameHex(hash, hashAnswer(key, c)) || match;
  if (!match) return { ok: false, reason: 'bad_signature' };

  let details: LyraNotificationDetails;
  let status;
  try {
    const raw = JSON.parse(answer) as Record<string, unknown>;
    const payment = readPayment(raw);
    const { debit, credits } = splitOrder(payment);
    // A refund's IPN may carry only the refund (CREDIT) transaction.
    const main = debit ?? credits[0];
    if (!payment.orderId || !main) return { ok: false, reason: 'malformed' };
    const serverDate = payment.serverDate ? new Date(payment.serverDate) : undefined;
    if (!serverDate || Number.isNaN(serverDate.getTime())) return { ok: false, reason: 'malformed' };
    const refunded = credits.filter((c) => c.detailedStatus !== 'REFUSED' && c.detailedStatus !== 'CANCELLED').reduce((s, c) => s + c.amount, 0);
    status = debit ? toStatus(debit.detailedStatus, refunded) : ('refunded' as const);
    const od = raw.orderDetails as Record<string, unknown> | undefined;
    details = {
      orderId: payment.orderId,
      uuid: main.uuid,
      detailedStatus: main.detailedStatus,
      orderStatus: payment.orderStatus,
      shopId: typeof raw.shopId === 'string' ? raw.shopId : null,
      mode: typeof od?.mode === 'string' ? od.mode : null,
      serverDate,
    };
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof MalformedAnswer) return { ok: false, reason: 'malformed' };
    throw e;
  }
  if (Math.abs(now.getTime() - details.serverDate.getTime()) > NOTIFICATION_TOLERANCE_MS) return { ok: false, reason: 'stale' };
  return { ok: true, result: { ok: true, transactionId: details.orderId, status, ack: LYRA_NOTIFICATION_ACK }, details };
}
