import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { isPhoneCountry } from '../../src/i18n/countries.ts';
import { countryOfPhone, normalizePhone, normalizeTypedPhone, shopperCountry } from '../../src/messaging/phone-numbers.ts';

/** A French mobile's 9 national digits after the trunk 0 (`6xxxxxxxx` / `7xxxxxxxx`). */
const frenchMobile = fc.tuple(fc.constantFrom('6', '7'), fc.stringMatching(/^[0-9]{8}$/)).map(([a, b]) => a + b);
/** How people group digits: spaces, dots, dashes, nothing. */
const separator = fc.constantFrom('', ' ', '.', '-', '\u00a0');
const typed = (digits: string, sep: string) => (digits.match(/^.|.{1,2}/g) ?? []).join(sep);

describe('phone numbers typed on the pages (libphonenumber-js)', () => {
  it('national numbers are read in the given country, international ones whatever it is; stored in E.164', () => {
    expect(normalizeTypedPhone('06 12 34 56 78', 'FR')).toBe('+33612345678');
    expect(normalizeTypedPhone('06.12.34.56.78', 'FR')).toBe('+33612345678');
    expect(normalizeTypedPhone('0033 6 12 34 56 78', 'GB')).toBe('+33612345678');
    expect(normalizeTypedPhone('+44 7400 123456', 'FR')).toBe('+447400123456');
    expect(normalizeTypedPhone('07400 123456', 'GB')).toBe('+447400123456');
    expect(normalizeTypedPhone('0170 1234567', 'DE')).toBe('+491701234567');
  });

  it('a number not valid in the country it is read in is refused, not turned into another country\'s (the "+44 6…" of a French mobile)', () => {
    expect(normalizeTypedPhone('06 12 34 56 78', 'GB')).toBeUndefined();
    expect(normalizeTypedPhone('hello', 'FR')).toBeUndefined();
    expect(normalizeTypedPhone('06 12 34', 'FR')).toBeUndefined();
    expect(normalizeTypedPhone('', 'FR')).toBeUndefined();
  });

  it('property: any French mobile, however grouped, national in France or international anywhere, is the same E.164 number', () => {
    fc.assert(
      fc.property(frenchMobile, separator, fc.constantFrom('FR', 'GB', 'DE', 'BE', 'ES') as fc.Arbitrary<'FR'>, (digits, sep, country) => {
        const e164 = `+33${digits}`;
        expect(normalizeTypedPhone(typed(`0${digits}`, sep), 'FR')).toBe(e164);
        expect(normalizeTypedPhone(`+33 ${typed(digits, sep)}`, country)).toBe(e164);
        // `00` is the international prefix of these countries (the United States dial 011).
        expect(normalizeTypedPhone(`0033${sep}${typed(digits, sep)}`, country)).toBe(e164);
        expect(normalizeTypedPhone(`+33${sep}${typed(digits, sep)}`, 'US')).toBe(e164);
        // What the pages store is what the SMS sender accepts, unchanged.
        expect(normalizePhone(e164)).toBe(e164);
        expect(countryOfPhone(e164)).toBe('FR');
      }),
    );
  });

  it("national numbers are read in the shopper's country (from the leader's number), else in the merchant's", () => {
    expect(shopperCountry('+447400123456', 'FR')).toBe('GB');
    expect(shopperCountry(null, 'FR')).toBe('FR');
    expect(shopperCountry('not a number', 'BE')).toBe('BE');
  });
});

describe('numbers an SMS is sent to', () => {
  it('international numbers of a possible length, separators dropped; national or too short ones refused', () => {
    expect(normalizePhone('+33 6 12-34.56 78')).toBe('+33612345678');
    expect(normalizePhone('+447700900123')).toBe('+447700900123');
    expect(normalizePhone('0612345678')).toBeUndefined();
    expect(normalizePhone('+33 1 23')).toBeUndefined();
    expect(normalizePhone('')).toBeUndefined();
  });
});

describe('MERCHANT_COUNTRY', () => {
  const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'chipin-config-')), MASTER_KEY: 'a'.repeat(64) };
  it('defaults to FR, takes a country code, and refuses what is not one, naming the variable', () => {
    expect(isPhoneCountry('FR') && isPhoneCountry('GB') && !isPhoneCountry('ZZ') && !isPhoneCountry('fr')).toBe(true);
    expect(loadConfig(env).merchantCountry).toBe('FR');
    expect(loadConfig({ ...env, MERCHANT_COUNTRY: 'BE' }).merchantCountry).toBe('BE');
    expect(() => loadConfig({ ...env, MERCHANT_COUNTRY: 'France' })).toThrow(/^MERCHANT_COUNTRY must be an ISO 3166 country code/);
  });
});
