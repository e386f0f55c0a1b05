import { currencyExponent, decimalAmount } from '../domain/money.ts';
import { LOCALE, type Lang } from './lang.ts';

/**
 * Amounts and dates for people to read, on the hosted pages and in e-mails and SMS alike, so a
 * shopper reads the same deadline in the message and on the page it links to.
 */

/** Dates with a time are shown in the service's market's time zone, whatever the reader's. */
const TIME_ZONE = 'Europe/Paris';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in minor units, formatted for people in the language's locale: `12,50 €` (fr),
 * `€12.50` (en), `JP¥1,234`. Exact for every safe integer (formatted from a decimal string, never
 * through a float division). Throws RangeError for a non-integer amount or an unknown currency.
 */
export function formatMoney(amountCents: number, currency: string, lang: Lang): string {
  if (!Number.isSafeInteger(amountCents)) throw new RangeError(`amount must be an integer number of minor units, got ${amountCents}`);
  const exponent = currencyExponent(currency);
  const key = `${lang}:${currency}`;
  let nf = moneyFormats.get(key);
  if (!nf) {
    nf = new Intl.NumberFormat(LOCALE[lang], {
      style: 'currency',
      currency,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    });
    moneyFormats.set(key, nf);
  }
  // Intl.NumberFormat formats a decimal string exactly (ECMA-402 NumberFormat v3, Node 19+).
  return nf.format(decimalAmount(amountCents, currency) as unknown as number);
}

const dateFormats = new Map<string, { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat }>();

function formats(lang: Lang, timeZone: string): { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat } {
  const key = `${lang}:${timeZone}`;
  let f = dateFormats.get(key);
  if (!f) {
    f = {
      day: new Intl.DateTimeFormat(LOCALE[lang], { day: 'numeric', month: 'long', year: 'numeric', timeZone }),
      time: new Intl.DateTimeFormat(LOCALE[lang], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }),
    };
    dateFormats.set(key, f);
  }
  return f;
}

/** French writes the first day of a month as an ordinal: `1er août`. */
function day(lang: Lang, date: Date, timeZone: string): string {
  const text = formats(lang, timeZone).day.format(date);
  return lang === 'fr' ? text.replace(/^1(?=\s)/, '1er') : text;
}

/**
 * A date and time in the language, Paris time: `23 November 2026, 14:00` (en),
 * `23 novembre 2026 à 14:00`, `1er août 2026 à 09:05` (fr). Throws RangeError for an invalid date.
 *
 * This is the rendering the e-mails and SMS had; the pages used `dateStyle: 'long'` with
 * `timeStyle: 'short'` (`23 November 2026 at 14:00`, `1 août 2026 à 09:05`). The e-mails' one won:
 * it is built from parts, so the joiner is ours rather than whatever the ICU data shipped with Node
 * picks for `dateStyle` + `timeStyle`; it has the French ordinal `1er`; and the shorter English
 * form leaves more room in a 160-character SMS.
 */
export function formatDateTime(date: Date, lang: Lang): string {
  const time = formats(lang, TIME_ZONE).time.format(date);
  return lang === 'fr' ? `${day(lang, date, TIME_ZONE)} à ${time}` : `${day(lang, date, TIME_ZONE)}, ${time}`;
}

/**
 * A calendar date (`YYYY-MM-DD`, no time zone: an installment's due date) in the language, with
 * the same day rendering as {@link formatDateTime}: `1 August 2026`, `1er août 2026`.
 */
export function formatDate(isoDate: string, lang: Lang): string {
  return day(lang, new Date(`${isoDate}T00:00:00Z`), 'UTC');
}

/**
 * A rate given in percent (an APR, `20` for 20 %) with two decimals, in the language's
 * typography: `20.00%` (en), `20,00 %` (fr, with a narrow no-break space).
 */
export function formatPercent(percent: number, lang: Lang): string {
  return new Intl.NumberFormat(LOCALE[lang], { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(percent / 100);
}
