import { describe, expect, it } from 'vitest';
import { parseTypedAmount } from '../../src/domain/money.ts';

describe("amounts typed in the page's locale", () => {
  it('accepts "30,00", "30 €", "€30", "30,00 EUR"; refuses what is not an amount', () => {
    for (const text of ['30', '30,00', '30.00', '30 €', '€30', '30,00\u00a0€', '30,00 EUR']) expect(parseTypedAmount(text, 'EUR')).toBe(3_000);
    for (const text of ['€', '', 'thirty', '30,001', '-30']) expect(parseTypedAmount(text, 'EUR')).toBeUndefined();
  });
});
