import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The back-mode notification signature of the contract ("Back mode: notification to the merchant
 * back end"). Pure: no I/O, no clock.
 *
 * 1. Take every key of the body except `additional_data`, `metadata` and `signature` — the
 *    standard body has `created_at`, `error`, `id`, `reference`, `sandbox`, `status`; the REST
 *    variant of one PSP adds `uid`, which is signed too.
 * 2. Sort them by key.
 * 3. Join `key=value` pairs with the secret between two consecutive pairs (not before the first,
 *    not after the last); an empty value gives `key=`.
 * 4. SHA-256 of that string (UTF-8), as upper-case hexadecimal.
 */
const UNSIGNED_KEYS: ReadonlySet<string> = new Set(['additional_data', 'metadata', 'signature']);

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

/** The string that is hashed: exposed so that documentation and tests can show it. */
export function notificationSigningString(body: Readonly<Record<string, unknown>>, secret: string): string {
  return (
    Object.keys(body)
      .filter((k) => !UNSIGNED_KEYS.has(k))
      // Plain code-unit order: the keys are ASCII, where that is alphabetical order.
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((k) => `${k}=${text(body[k])}`)
      .join(secret)
  );
}

/** Upper-case hex SHA-256 of {@link notificationSigningString}. */
export function notificationSignature(body: Readonly<Record<string, unknown>>, secret: string): string {
  return createHash('sha256').update(notificationSigningString(body, secret), 'utf8').digest('hex').toUpperCase();
}

/** Whether `body.signature` is the signature of the body under `secret` (constant-time compare). */
export function verifyNotificationSignature(body: Readonly<Record<string, unknown>>, secret: string): boolean {
  const given = body.signature;
  if (typeof given !== 'string' || !/^[0-9A-Fa-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(given.toUpperCase(), 'ascii'), Buffer.from(notificationSignature(body, secret), 'ascii'));
}
