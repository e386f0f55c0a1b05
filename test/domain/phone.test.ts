import { describe, expect, it } from 'vitest';
import { parseTypedAmount } from '../../src/domain/money.ts';
import { countryOfLanguage, normalizeTypedPhone } from '../../src/domain/phone.ts';

describe('phone numbers typed on the pages', () => {
  it("national numbers of the shop's country become E.164; international ones are kept", () => {
    expect(countryOfLanguage('fr_FR')).toBe('FR');
    expect(normalizeTypedPhone('06 12 34 56 78', 'FR')).toBe('+33612345678');
    expect(normalizeTypedPhone('06.12.34.56.78', 'FR')).toBe('+33612345678');
    expect(normalizeTypedPhone('0033 6 12 34 56 78', 'FR')).toBe('+33612345678');
    expect(normalizeTypedPhone('+44 7700 900123', 'FR')).toBe('+447700900123');
    expect(normalizeTypedPhone('07700 900123', 'GB')).toBe('+447700900123');
  });

  it('a national number without a known country, or not a number, is refused', () => {
    expect(normalizeTypedPhone('06 12 34 56 78', undefined)).toBeUndefined();
    expect(normalizeTypedPhone('06 12 34 56 78', 'ZZ')).toBeUndefined();
    expect(normalizeTypedPhone('hello', 'FR')).toBeUndefined();
    expect(normalizeTypedPhone('612345678', 'FR')).toBeUndefined();
  });
});

describe("amounts typed in the page's locale", () => {
  it('accepts "30,00", "30 €", "€30", "30,00 EUR"; refuses what is not an amount', () => {
    for (const text of ['30', '30,00', '30.00', '30 €', '€30', '30,00\u00a0€', '30,00 EUR']) expect(parseTypedAmount(text, 'EUR')).toBe(3_000);
    for (const text of ['€', '', 'thirty', '30,001', '-30']) expect(parseTypedAmount(text, 'EUR')).toBeUndefined();
  });
});
