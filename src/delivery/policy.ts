/**
 * Delivery policy (docs/webhooks.md#delivery-policy). Pure: times are passed in.
 *
 * - Success: any 2xx answered within the timeout (10 s by default). Redirects are not followed.
 * - Otherwise retry after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each ±20 %), then
 *   give up: 8 attempts in all, spread over about 28 hours.
 * - A `Retry-After` answer (seconds or an HTTP date) replaces the next delay, clamped to
 *   [5 s, 24 h]; it still counts as one of the retries.
 * - 410 Gone: the target is gone for good (the webhook endpoint is disabled).
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** Attempts a delivery gets before it is given up: the first, then one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const DEFAULT_TIMEOUT_MS = 10_000;
const JITTER = 0.2;
const RETRY_AFTER_MIN_MS = 5_000;
const RETRY_AFTER_MAX_MS = 86_400_000;

/**
 * Delay before the next attempt after `failures` failed attempts in a row (1 = the first
 * attempt failed), or undefined when the delivery is to be given up. `random` in [0, 1).
 */
export function retryDelay(failures: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[failures - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * Milliseconds a `Retry-After` value asks to wait, clamped to [5 s, 24 h]; undefined when it is
 * absent or neither delay-seconds nor an HTTP date (RFC 9110 §10.2.3).
 */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    // An HTTP date names a day of the week and a GMT time; Date.parse reads all three RFC forms.
    if (!/[a-z]{3}/i.test(v)) return undefined;
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, ms));
}

/** What one attempt came to, as far as the policy is concerned. */
export type AttemptVerdict = 'succeeded' | 'gone' | 'failed';

export function verdictOf(statusCode: number | undefined): AttemptVerdict {
  if (statusCode === undefined) return 'failed';
  if (statusCode >= 200 && statusCode < 300) return 'succeeded';
  if (statusCode === 410) return 'gone';
  return 'failed';
}
