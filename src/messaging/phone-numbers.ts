import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';

/**
 * Phone numbers, the SMS channel's addresses, read with libphonenumber-js (Google's numbering
 * plan, kept up to date by its maintainers) rather than rules of our own: international
 * (`+33 6 12 34 56 78`, `0033 6…`) or national (`06 12 34 56 78`), always stored and sent in
 * E.164 (`+33612345678`). Which country a national number belongs to is the caller's to say
 * ({@link shopperCountry}); never the page's language (docs/messaging.md, "Phone numbers").
 * The `min` metadata: its validation checks each country's lengths and leading digits, enough
 * to catch a number read with the wrong country (docs/dependencies.md).
 */

/** The country of an E.164 number (`+33612345678` → `FR`), or undefined. */
export function countryOfPhone(e164: string | null | undefined): CountryCode | undefined {
  return e164 ? parsePhoneNumberFromString(e164)?.country : undefined;
}

/**
 * The country in which a shopper's national numbers are read: the shopper's own, known from the
 * leader's phone number on the purchase, or else the merchant's (`MERCHANT_COUNTRY`).
 */
export function shopperCountry(leaderPhone: string | null | undefined, merchantCountry: CountryCode): CountryCode {
  return countryOfPhone(leaderPhone) ?? merchantCountry;
}

/**
 * A number typed by a shopper on a page, in E.164, or undefined when it is not a valid number
 * (national numbers read in `country`): a typo is answered on the page, not by an SMS that
 * never arrives.
 */
export function normalizeTypedPhone(text: string, country: CountryCode): string | undefined {
  const parsed = parsePhoneNumberFromString(text.trim(), country);
  return parsed?.isValid() ? parsed.number : undefined;
}

/**
 * A number to send an SMS to (the API's `+…` numbers, those stored by the pages) in E.164, or
 * undefined unless it is international and of a possible length: the gateway is the judge of
 * the rest.
 */
export function normalizePhone(value: string): string | undefined {
  const text = value.trim();
  if (!text.startsWith('+')) return undefined;
  const parsed = parsePhoneNumberFromString(text);
  return parsed?.isPossible() ? parsed.number : undefined;
}
