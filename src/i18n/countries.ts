import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/min';

/**
 * Whether `code` is an ISO 3166 alpha-2 country with a numbering plan (`FR`, `GB`): the countries
 * the service accepts (`MERCHANT_COUNTRY`, an account's, an offer's), which are those whose
 * national phone numbers messaging/phone-numbers.ts can read. libphonenumber-js's list
 * (docs/messaging.md, "Phone numbers"), not one of our own.
 */
export function isPhoneCountry(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}
