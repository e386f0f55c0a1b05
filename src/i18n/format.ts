import { currencyExponent, decimalAmount } from '../domain/money.ts';
import { Catalogue } from './catalogue.ts';
import de from './catalogues/format/de.json' with { type: 'json' };
import en from './catalogues/format/en.json' with { type: 'json' };
import es from './catalogues/format/es.json' with { type: 'json' };
import fr from './catalogues/format/fr.json' with { type: 'json' };
import it from './catalogues/format/it.json' with { type: 'json' };
import nl from './catalogues/format/nl.json' with { type: 'json' };
import { LOCALE, type Lang } from './lang.ts';

/**
 * Amounts and dates for people to read, on the hosted pages and in e-mails and SMS alike, so a
 * shopper reads the same deadline in the message and on the page it links to.
 */

/**
 * An account's time zone until its staff choose another (docs/back-office.md#time-zone): the
 * service's first market. Every date with a time is shown in the zone of the account the page or
 * message belongs to, whatever the reader's, and says which ({@link formatDateTime}).
 */
export const DEFAULT_TIME_ZONE = 'Europe/Paris';

/** How each language joins a date to its time (`23 novembre 2026 à 14:00`, `23. November 2026 um 14:00`). */
const WORDS = new Catalogue<keyof typeof en>('format', { de, en, es, fr, it, nl });

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
 * A date and time in the language, in `timeZone` (an IANA name), followed by that zone's offset
 * from UTC at that instant: `23 November 2026, 14:00 (UTC+1)` (en),
 * `23 novembre 2026 à 14:00 (UTC+1)`, `1er août 2026 à 09:05 (UTC+2)` (fr),
 * `23. November 2026 um 14:00 (UTC+1)` (de), `… 09:05 (UTC+5:30)`, `… (UTC)`. Throws RangeError
 * for an invalid date or an unknown zone.
 *
 * The offset, not a zone's name: it is unambiguous (`CET`, `EST` or "heure de Paris" are not, or
 * not for everyone), the same in every language, short enough for a 160-character SMS (ASCII, so
 * the SMS keeps its 7-bit alphabet), and it changes with daylight saving time as the clock does.
 * Built by us from the instant rather than asked of Intl (`timeZoneName: 'shortOffset'` says
 * `GMT+1` in English and `UTC+1` in French, and may change with the ICU data of a Node release).
 *
 * The date and time are built from parts, so the joiner is the format catalogue's rather than
 * whatever the ICU data shipped with Node picks for `dateStyle` + `timeStyle`; French has its
 * ordinal `1er`.
 */
export function formatDateTime(date: Date, lang: Lang, timeZone: string): string {
  const time = `${formats(lang, timeZone).time.format(date)} (${utcOffset(date, timeZone)})`;
  return WORDS.text(lang, 'dateAtTime', { date: day(lang, date, timeZone), time });
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone's offset from UTC at that instant, as {@link formatDateTime} states it: `UTC+1`,
 * `UTC-3`, `UTC+5:30`, `UTC` (no offset); seconds only for the few historical offsets that had
 * them (`UTC-0:44:30`). The wall clock in the zone, read as if it were UTC, minus the instant.
 */
export function utcOffset(date: Date, timeZone: string): string {
  const seconds = offsetSeconds(date, timeZone);
  if (seconds === 0) return 'UTC';
  const abs = Math.abs(seconds);
  const [h, m, s] = [Math.floor(abs / 3600), Math.floor((abs % 3600) / 60), abs % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `UTC${seconds < 0 ? '-' : '+'}${h}${m || s ? `:${pad(m)}` : ''}${s ? `:${pad(s)}` : ''}`;
}

/** The wall clock in the zone at that instant, as the fields of a UTC date (`wall.getUTCHours()` is the zone's hour). */
function wallClock(date: Date, timeZone: string): Date {
  let f = wallClocks.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClocks.set(timeZone, f);
  }
  const part: Record<string, string> = {};
  for (const p of f.formatToParts(date)) part[p.type] = p.value;
  const year = part.era === 'BC' ? 1 - Number(part.year) : Number(part.year);
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(part.month) - 1, Number(part.day));
  wall.setUTCHours(Number(part.hour), Number(part.minute), Number(part.second), 0);
  return wall;
}

/** The zone's offset from UTC at that instant, in seconds (east positive). */
function offsetSeconds(date: Date, timeZone: string): number {
  return Math.round((wallClock(date, timeZone).getTime() - (date.getTime() - (((date.getTime() % 1000) + 1000) % 1000))) / 1000);
}

/** The calendar date (`YYYY-MM-DD`) the zone's clocks show at that instant. */
export function zonedDay(date: Date, timeZone: string): string {
  return wallClock(date, timeZone).toISOString().slice(0, 10);
}

/**
 * The instant a calendar date (`YYYY-MM-DD`) begins in the zone: its first wall-clock instant,
 * so 01:00 on a day whose midnight a daylight-saving change skips. Two passes settle the offset
 * (the one in force at the guess may differ from the one at the answer).
 */
export function zonedMidnight(isoDate: string, timeZone: string): Date {
  const utcMidnight = Date.parse(`${isoDate}T00:00:00Z`);
  let t = utcMidnight;
  for (let pass = 0; pass < 2; pass++) t = utcMidnight - offsetSeconds(new Date(t), timeZone) * 1000;
  // A repeated midnight (the wall clock goes back over it, Lisbon on 29 September 1985): the day
  // begins at its first occurrence, under the offset in force just before.
  const first = utcMidnight - offsetSeconds(new Date(t - 1), timeZone) * 1000;
  if (first < t && zonedDay(new Date(first), timeZone) === isoDate && zonedDay(new Date(first - 1), timeZone) !== isoDate) return new Date(first);
  // A skipped midnight (the wall clock jumps over it): the day begins at the jump.
  return zonedDay(new Date(t), timeZone) === isoDate ? new Date(t) : new Date(t + 3_600_000);
}

/**
 * The time zone to store for what someone typed, or undefined when Intl does not know it: an IANA
 * name (`Europe/Paris`, `America/New_York`, `UTC`), kept as typed when it is written in its usual
 * capitals (`Asia/Kolkata`, although this Node's ICU calls it `Asia/Calcutta`), else Intl's own
 * name for it (`europe/paris` → `Europe/Paris`). Offsets (`+01:00`) are refused: a fixed offset
 * ignores daylight saving time, which is what a zone is for.
 */
export function timeZoneOf(typed: string): string | undefined {
  const name = typed.trim();
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return undefined;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return /^(?:UTC|[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*)$/.test(name) ? name : canonical;
}

/**
 * A calendar date (`YYYY-MM-DD`, no time zone: an installment's due date) in the language, with
 * the same day rendering as {@link formatDateTime}: `1 August 2026`, `1er août 2026`.
 */
export function formatDate(isoDate: string, lang: Lang): string {
  return day(lang, new Date(`${isoDate}T00:00:00Z`), 'UTC');
}

const percentFormats = new Map<Lang, Intl.NumberFormat>();

/**
 * A rate given in percent (the TAEG/APR, `20` for 20 %), with 2 decimals in the language:
 * `20,00 %` (fr, with a narrow no-break space), `20.00%` (en).
 */
export function formatPercent(percent: number, lang: Lang): string {
  if (!Number.isFinite(percent)) throw new RangeError(`a rate must be a finite number, got ${percent}`);
  let nf = percentFormats.get(lang);
  if (!nf) {
    nf = new Intl.NumberFormat(LOCALE[lang], { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
    percentFormats.set(lang, nf);
  }
  return nf.format(percent / 100);
}
