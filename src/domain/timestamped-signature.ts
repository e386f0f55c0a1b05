import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The timestamped HMAC signature header, Stripe's scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256>`
 * where the MAC covers `<t>.<raw body>` (UTF-8). Covering the timestamp is what makes the
 * freshness check mean something: a captured body cannot be replayed later under a new `t`.
 *
 * Used by the sandbox PSP's notifications (`sandbox-psp-signature`, src/psp/sandbox/notifications.ts)
 * and by the external scoring hook in both directions (`Chipin-Signature`, docs/risk.md#the-external-scoring-hook):
 * its answer signs, in place of the bare body, the body bound to the request it answers
 * (`hookAnswerSigned`, src/domain/scoring-hook.ts).
 * Pure: the time is passed in.
 */

/** A signature older (or further in the future) than this is `stale`. */
const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** HMAC-SHA256 of `<t>.<rawBody>`; a string key is taken as its UTF-8 bytes. */
function timestampedMac(secret: Buffer | string, timestamp: number, rawBody: string): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest();
}

/** The header value for `rawBody` sent at `now`. */
export function signTimestamped(secret: Buffer | string, rawBody: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${timestampedMac(secret, t, rawBody).toString('hex')}`;
}

/** The first `v1` value of a header {@link signTimestamped} wrote (64 hex digits), or undefined. */
export function signatureOf(header: string): string | undefined {
  return /(?:^|,)v1=([0-9a-f]{64})(?:,|$)/.exec(header)?.[1];
}

export type SignatureCheck = 'ok' | 'malformed' | 'bad_signature' | 'stale';

/**
 * Checks the header against the body: any of several `v1` values may match (secret rotation);
 * other keys (`v0`, a future scheme) are ignored. The signature is checked before freshness, so an
 * unsigned request learns nothing about timing. Constant-time comparison, no early exit.
 */
export function checkTimestamped(
  secret: Buffer | string,
  header: string | undefined,
  rawBody: string,
  now: Date,
  toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return 'malformed';
  let t: number | undefined;
  const given: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return 'malformed';
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^[0-9]{1,12}$/.test(value) || t !== undefined) return 'malformed';
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return 'malformed';
      given.push(Buffer.from(value, 'hex'));
    }
  }
  if (t === undefined || given.length === 0) return 'malformed';
  const expected = timestampedMac(secret, t, rawBody);
  let match = false;
  for (const g of given) match = timingSafeEqual(g, expected) || match;
  if (!match) return 'bad_signature';
  if (Math.abs(now.getTime() / 1000 - t) > toleranceSeconds) return 'stale';
  return 'ok';
}
