import { createHash, timingSafeEqual } from 'node:crypto';
import type { NotificationAck, NotificationResult } from '../connector.ts';
import { fromHipayAmount, isHipayStatus, toStatus } from './mapping.ts';

/**
 * HiPay's server-to-server notifications (HiPay Enterprise platform overview, "Server-to-server
 * notifications" and "Signature verification"; HiPay's PHP SDK, Helper/Signature.php): an
 * `application/x-www-form-urlencoded` POST whose header `X-ALLOPASS-SIGNATURE` is the hex digest of
 * `<raw body><secret passphrase>`. SHA-1 by default; the back office (Integration → Security
 * settings) may switch the account to SHA-256 or SHA-512. The algorithm is not sent, so it is told
 * by the digest's length (40, 64 or 128 hex digits), as the PHP SDK's `isSameHashAlgorithm` does.
 *
 * HiPay signs no timestamp, so a notification cannot be judged stale by its signature; HiPay also
 * retries failed deliveries for a long time. Freshness is therefore not checked: a replayed
 * notification only repeats a status, and Chipin re-reads the transaction (`retrieve`) before
 * acting on money.
 */
export const SIGNATURE_HEADER = 'x-allopass-signature';

export type HipayHashAlgorithm = 'sha1' | 'sha256' | 'sha512';

const ALGORITHM_BY_LENGTH: Record<number, HipayHashAlgorithm> = { 40: 'sha1', 64: 'sha256', 128: 'sha512' };

/** HiPay expects a 200 answer; anything else makes it retry. */
const HIPAY_ACK: NotificationAck = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' };

export function signNotification(passphrase: string, rawBody: string, algorithm: HipayHashAlgorithm = 'sha1'): string {
  return createHash(algorithm)
    .update(rawBody + passphrase, 'utf8')
    .digest('hex');
}

/** Header lookup regardless of case (PHP shows it as HTTP_X_ALLOPASS_SIGNATURE; frameworks lower-case it). */
export function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

export function checkSignature(passphrase: string, header: string | undefined, rawBody: string): 'ok' | 'malformed' | 'bad_signature' {
  if (!header) return 'malformed';
  const given = header.trim().toLowerCase();
  const algorithm = /^[0-9a-f]+$/.test(given) ? ALGORITHM_BY_LENGTH[given.length] : undefined;
  if (!algorithm) return 'malformed';
  const expected = Buffer.from(signNotification(passphrase, rawBody, algorithm), 'utf8');
  return timingSafeEqual(expected, Buffer.from(given, 'utf8')) ? 'ok' : 'bad_signature';
}

/** Reads a verified notification body (form fields such as `transaction_reference`, `status`, `refunded_amount`). */
export function readNotification(rawBody: string): NotificationResult {
  const form = new URLSearchParams(rawBody);
  const reference = form.get('transaction_reference');
  const status = Number(form.get('status'));
  if (!reference || !/^\d{1,32}$/.test(reference) || !Number.isInteger(status) || !isHipayStatus(status)) return { ok: false, reason: 'malformed' };
  const currency = form.get('currency') ?? form.get('order[currency]') ?? '';
  let refunded = 0;
  if (form.has('refunded_amount')) {
    let parsed: number | undefined;
    try {
      parsed = fromHipayAmount(form.get('refunded_amount'), currency);
    } catch {
      parsed = undefined; // unknown currency
    }
    if (parsed === undefined) return { ok: false, reason: 'malformed' };
    refunded = parsed;
  }
  return { ok: true, transactionId: reference, status: toStatus(status, refunded), ack: HIPAY_ACK };
}
