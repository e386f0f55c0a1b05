import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { challengeReturnOf } from '../../src/http/challenge-return.ts';

describe('what a 3-D Secure return hands the connector (docs/psp-connectors.md#the-return-from-3-d-secure)', () => {
  it("keeps the PSP's fields, drops Chipin's own and anything not a single string", () => {
    expect(challengeReturnOf({ payment: 'p', embed: '1', PaRes: 'abc', MD: '12', twice: ['a', 'b'] }, ['payment', 'embed'])).toEqual({ PaRes: 'abc', MD: '12' });
    expect(challengeReturnOf(undefined, [])).toEqual({});
    expect(challengeReturnOf('PaRes=abc', [])).toEqual({});
  });

  it('a 3-D Secure 1 PaRes of 20 kB and a redirectResult go through whole', () => {
    const pares = 'A'.repeat(20_000);
    expect(challengeReturnOf({ PaRes: pares, redirectResult: 'X'.repeat(2_000) }, [])).toEqual({ PaRes: pares, redirectResult: 'X'.repeat(2_000) });
  });

  it('hostile input is bounded: at most 16 fields, names of 64 characters, values of 32 KiB; what is past the bounds is left out', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 80 }), fc.oneof(fc.string({ maxLength: 40 }), fc.constant('v'.repeat(33 * 1024))), { maxKeys: 40 }), (fields) => {
        const out = challengeReturnOf(fields, ['payment']);
        expect(Object.keys(out).length).toBeLessThanOrEqual(16);
        for (const [name, value] of Object.entries(out)) {
          expect(name.length).toBeLessThanOrEqual(64);
          expect(value.length).toBeLessThanOrEqual(32 * 1024);
          expect(name).not.toBe('payment');
          expect(fields[name]).toBe(value);
        }
      }),
    );
  });
});
