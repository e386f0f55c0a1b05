/**
 * Phone numbers as shoppers type them on the hosted pages: international (`+33 6 12 34 56 78`,
 * `0033 6…`) or national for the shop's country (`06 12 34 56 78` in France), always stored in
 * E.164 (`+33612345678`). The shop's country is the region of the purchase's language
 * (`fr_FR` → FR); a national number without one is refused, never guessed.
 */

/** Calling codes of the countries whose national numbers the pages accept (trunk prefix 0). */
const CALLING_CODES: Readonly<Record<string, string>> = {
  FR: '33',
  BE: '32',
  CH: '41',
  LU: '352',
  MC: '377',
  GB: '44',
  IE: '353',
  DE: '49',
  AT: '43',
  NL: '31',
  ES: '34',
  PT: '351',
};

/** `fr_FR` → `FR`; undefined without a region. */
export function countryOfLanguage(language: string | undefined): string | undefined {
  const m = /^[a-z]{2}[_-]([A-Z]{2})$/.exec(language ?? '');
  return m?.[1];
}

/** E.164, or undefined when the text is not a phone number we can place. */
export function normalizeTypedPhone(text: string, country: string | undefined): string | undefined {
  let compact = text.trim().replace(/[\s.\-()\u00a0\u202f]/g, '');
  if (compact.startsWith('00')) compact = `+${compact.slice(2)}`;
  if (!compact.startsWith('+')) {
    const code = country ? CALLING_CODES[country] : undefined;
    if (!code || !/^0\d{6,13}$/.test(compact)) return undefined;
    compact = `+${code}${compact.slice(1)}`; // the trunk prefix 0 is dropped
  }
  return /^\+[1-9]\d{6,14}$/.test(compact) ? compact : undefined;
}
