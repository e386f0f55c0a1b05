import { describe, expect, it } from 'vitest';
import { parseDecimalAmount, parseTypedAmount } from '../../src/domain/money.ts';

describe("amounts typed in the page's locale", () => {
  it('accepts "30,00", "30 €", "€30", "30,00 EUR"; refuses what is not an amount', () => {
    for (const text of ['30', '30,00', '30.00', '30 €', '€30', '30,00\u00a0€', '30,00 EUR']) expect(parseTypedAmount(text, 'EUR')).toBe(3_000);
    for (const text of ['€', '', 'thirty', '30,001', '-30']) expect(parseTypedAmount(text, 'EUR')).toBeUndefined();
  });

  it('refuses an amount beyond the integers a number holds exactly (13 digits in a currency of 3 decimals)', () => {
    expect(parseDecimalAmount('9999999999999.99', 'EUR')).toBe(999_999_999_999_999);
    expect(parseDecimalAmount('9999999999999.999', 'KWD')).toBeUndefined();
    expect(parseDecimalAmount('9007199254740.991', 'KWD')).toBe(Number.MAX_SAFE_INTEGER);
  });
});
