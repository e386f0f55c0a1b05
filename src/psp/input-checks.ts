import { createHash } from 'node:crypto';
import { isKnownCurrency } from '../domain/money.ts';

/**
 * The checks every connector makes on what Chipin asks of it, before any call to its PSP: a
 * malformed request is a bug on our side (RangeError), never something to send to a PSP.
 */

export function assertKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 255) throw new RangeError('idempotencyKey must be 1 to 255 characters');
}

export function assertAmount(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError(`amountCents must be a positive integer, got ${amountCents}`);
}

export function assertCurrency(currency: string): void {
  if (!isKnownCurrency(currency)) throw new RangeError(`unknown currency "${currency}"`);
}

export function assertReturnUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError('returnUrl must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new RangeError('returnUrl must be an http(s) URL');
}

/**
 * The checks of a payment on a stored card (`chargeOffSession`, and the first part of
 * `authorize`), in the order every connector made them: the idempotency key, the amount, the currency.
 */
export function assertChargeInput(input: { idempotencyKey: string; amountCents: number; currency: string }): void {
  assertKey(input.idempotencyKey);
  assertAmount(input.amountCents);
  assertCurrency(input.currency);
}

/** The checks of an on-session payment (`authorize`): those of {@link assertChargeInput}, then the return URL. */
export function assertAuthorizeInput(input: { idempotencyKey: string; amountCents: number; currency: string; returnUrl: string }): void {
  assertChargeInput(input);
  assertReturnUrl(input.returnUrl);
}

/** What makes two calls with one idempotency key the same call (or a key reused for another one). */
export function fingerprint(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
