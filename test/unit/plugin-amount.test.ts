import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPluginAmountCents, TOLERANCE_CENTS } from '../../src/domain/plugin-amount.ts';

describe('plugin amounts in cents', () => {
  it('reads a cart total times 100 as the whole number of cents it stands for', () => {
    expect(readPluginAmountCents(19.99 * 100)).toEqual({ ok: true, cents: 1999 });
    expect(readPluginAmountCents(1998.9999999999998)).toEqual({ ok: true, cents: 1999 });
    expect(readPluginAmountCents('30550')).toEqual({ ok: true, cents: 30550 });
    expect(readPluginAmountCents(30550)).toEqual({ ok: true, cents: 30550 });
  });

  it('refuses a fraction of a cent instead of rounding it, and anything that is not an amount', () => {
    expect(readPluginAmountCents(1998.5)).toEqual({ ok: false, reason: 'fractional_cents' });
    expect(readPluginAmountCents('12.34')).toEqual({ ok: false, reason: 'fractional_cents' });
    expect(readPluginAmountCents(-1)).toEqual({ ok: false, reason: 'negative' });
    for (const v of ['', 'abc', '1e', '0x10', ' - 5', null, undefined, true, {}, [], Number.NaN, Infinity]) {
      expect(readPluginAmountCents(v)).toEqual({ ok: false, reason: 'not_a_number' });
    }
    expect(readPluginAmountCents(1e14)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('every price with two decimals times 100 gives back its exact cents (the float artefact is undone)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const total = Number((cents / 100).toFixed(2)); // what a shop holds as its total
        const read = readPluginAmountCents(total * 100);
        return read.ok && read.cents === cents;
      }),
    );
  });

  it('never accepts an amount further than the tolerance from a whole number of cents', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e12, noNaN: true }), (n) => {
        const read = readPluginAmountCents(n);
        if (!read.ok) return read.reason === 'fractional_cents' || read.reason === 'too_large';
        return Math.abs(n - read.cents) <= TOLERANCE_CENTS && Number.isSafeInteger(read.cents);
      }),
    );
  });
});
