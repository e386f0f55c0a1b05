/**
 * Currencies and amounts. Amounts are integers in the currency's minor unit
 * (docs/api-conventions.md#money), so the exponent of a currency decides what "1234" means:
 * 12.34 EUR, 1 234 JPY, 1.234 KWD.
 * Formatting them for people is src/i18n/format.ts.
 */

const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/**
 * Where the platform's CLDR data shows fewer decimals than the ISO 4217 minor unit (it rounds the
 * display of currencies whose subunit is out of use). Money is counted in ISO minor units, as PSPs
 * do, so these follow ISO 4217: 12345 HUF minor units are 123.45 Ft, not 12 345 Ft.
 */
const ISO_EXPONENT_OVERRIDES: Readonly<Record<string, number>> = {
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  KPW: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  PKR: 2,
  SLL: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

const exponents = new Map<string, number>();

/** An ISO 4217 code (upper case) that this platform knows. */
export function isKnownCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CODES.has(code);
}

/** Number of decimals of the currency's minor unit (EUR 2, JPY 0, KWD 3). Throws RangeError for an unknown code. */
export function currencyExponent(currency: string): number {
  const cached = exponents.get(currency);
  if (cached !== undefined) return cached;
  if (!isKnownCurrency(currency)) throw new RangeError(`unknown currency "${currency}"`);
  const exponent = ISO_EXPONENT_OVERRIDES[currency] ?? new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  exponents.set(currency, exponent);
  return exponent;
}

/** `amountCents` minor units as an exact decimal string: (1, 2) → "0.01", (-150, 2) → "-1.50", (7, 0) → "7". */
function toDecimal(amountCents: number, exponent: number): string {
  const digits = Math.abs(amountCents)
    .toString()
    .padStart(exponent + 1, '0');
  const sign = amountCents < 0 ? '-' : '';
  return exponent === 0 ? sign + digits : `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** An amount as a plain decimal in the currency's unit: (4000, 'EUR') → "40.00", (7, 'JPY') → "7". */
export function decimalAmount(amountCents: number, currency: string): string {
  return toDecimal(amountCents, currencyExponent(currency));
}

/**
 * What a person typed as an amount ("25", "25.5", "25,50", "1 234.00") in minor units, or
 * undefined when it is not a non-negative amount with at most the currency's decimals, or is
 * beyond the integers a number holds exactly. Integer arithmetic on the digits: "0.1" is exactly
 * 10 cents.
 */
export function parseDecimalAmount(text: string, currency: string): number | undefined {
  const exponent = currencyExponent(currency);
  const compact = text
    .trim()
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(',', '.');
  const m = /^(\d{1,13})(?:\.(\d*))?$/.exec(compact);
  if (!m) return undefined;
  const fraction = m[2] ?? '';
  if (fraction.length > exponent) return undefined;
  const cents = Number(m[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
  // 13 digits in a currency of 3 decimals go past the integers a number holds exactly.
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/**
 * An amount typed on a hosted page, in the page's locale: what {@link parseDecimalAmount} takes,
 * with the currency's sign or code around it ("30 €", "€30", "30,00 EUR") allowed.
 */
export function parseTypedAmount(text: string, currency: string): number | undefined {
  const bare = text.replace(new RegExp(`${currency}|[€$£¥]`, 'gi'), '');
  return /\d/.test(bare) ? parseDecimalAmount(bare, currency) : undefined;
}
