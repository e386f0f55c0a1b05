/**
 * Amounts in cents as the original provider's shop plugins send them (docs/migrating.md#amounts):
 * an integer, a numeric string (`"30550"`, from a query string), or a float that is a whole
 * number of cents up to binary rounding (`1998.9999999999998`, a cart's `19.99 * 100`). Such a
 * float is read as the whole number it stands for; anything further from a whole number than
 * {@link TOLERANCE_CENTS} is refused, never rounded: money is not changed silently. Pure.
 */

/**
 * How far from a whole number of cents a plugin's amount may be and still be read as it. The
 * error of `total * 100` on a double is below 1e-6 cent for any total under 10^9 units, and no
 * real amount has a thousandth of a cent: the two cannot be confused.
 */
export const TOLERANCE_CENTS = 0.001;

/** The largest amount read: past it a double no longer tells whole numbers apart exactly enough. */
const MAX_CENTS = 1e13;

export type PluginAmount = { ok: true; cents: number } | { ok: false; reason: 'not_a_number' | 'negative' | 'fractional_cents' | 'too_large' };

/** `value` (a number or a string) read as a whole number of cents, or why it cannot be. */
export function readPluginAmountCents(value: unknown): PluginAmount {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) n = Number(value);
  else return { ok: false, reason: 'not_a_number' };
  if (!Number.isFinite(n)) return { ok: false, reason: 'not_a_number' };
  if (n < 0) return { ok: false, reason: 'negative' };
  if (n > MAX_CENTS) return { ok: false, reason: 'too_large' };
  const cents = Math.round(n);
  if (Math.abs(n - cents) > TOLERANCE_CENTS) return { ok: false, reason: 'fractional_cents' };
  return { ok: true, cents };
}

/** The sentence naming `field` for a refused amount. */
export function pluginAmountMessage(field: string, reason: Exclude<PluginAmount, { ok: true }>['reason']): string {
  switch (reason) {
    case 'not_a_number':
      return `${field} must be a whole number of cents`;
    case 'negative':
      return `${field} must not be negative`;
    case 'fractional_cents':
      return `${field} must be a whole number of cents (a fraction of a cent is not rounded)`;
    case 'too_large':
      return `${field} is too large`;
  }
}
