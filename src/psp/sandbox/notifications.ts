import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signatures of the sandbox PSP's notifications, modelled on the common PSP scheme:
 * `sandbox-psp-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the MAC covers
 * `<t>.<raw body>`. Covering the timestamp too is what makes the freshness check mean something:
 * a captured notification cannot be replayed later under a new `t`.
 */
export const SIGNATURE_HEADER = 'sandbox-psp-signature';

/** A notification older (or further in the future) than this is refused as `stale`. */
const NOTIFICATION_TOLERANCE_SECONDS = 5 * 60;

function mac(secret: Buffer, timestamp: number, rawBody: string): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest();
}

/** The header value for `rawBody` sent at `now`. */
export function signNotification(secret: Buffer, rawBody: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${mac(secret, t, rawBody).toString('hex')}`;
}

/** Header lookup regardless of case: frameworks and proxies differ. */
export function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

export type SignatureCheck = 'ok' | 'malformed' | 'bad_signature' | 'stale';

/**
 * Checks the header against the body: any of several `v1` values may match (secret rotation).
 * The signature is checked before freshness, so an unsigned request learns nothing about timing.
 */
export function checkSignature(secret: Buffer, header: string | undefined, rawBody: string, now: Date): SignatureCheck {
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
  const expected = mac(secret, t, rawBody);
  let match = false;
  // Compare against every candidate (no early exit) in constant time.
  for (const g of given) match = timingSafeEqual(g, expected) || match;
  if (!match) return 'bad_signature';
  if (Math.abs(now.getTime() / 1000 - t) > NOTIFICATION_TOLERANCE_SECONDS) return 'stale';
  return 'ok';
}
