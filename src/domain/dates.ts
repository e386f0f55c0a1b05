/**
 * The instants the service can hold everywhere: a JS Date, and PostgreSQL's `timestamptz` as
 * both databases read and write it through their drivers. Years 0001 to 9999: ISO 8601 text
 * without an expanded year, no year 0 (PostgreSQL has none), far inside both ranges.
 */
/** 0001-01-01T00:00:00Z (Date.UTC would read year 1 as 1901). */
const FIRST_MS = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether `d` is a valid Date within years 0001 to 9999 (UTC). */
export function isStorableDate(d: Date): boolean {
  const t = d.getTime();
  return !Number.isNaN(t) && t >= FIRST_MS && t <= MAX_MS;
}

/** The Date of an ISO 8601 text, or undefined when JS cannot read it or it is out of range (a leap second, year 0000...). */
export function storableDate(iso: string): Date | undefined {
  const d = new Date(iso);
  return isStorableDate(d) ? d : undefined;
}

/**
 * The days a request may name (a period's `from` and `to`, a filter's day): one rule for every
 * route and page that takes a `YYYY-MM-DD` (docs/back-office.md#days-a-request-may-name). The
 * instants a day stands for, the day after the last included, in any time zone (UTC−12 to UTC+14),
 * stay within the years {@link isStorableDate} holds; 1970 is the start of the Unix epoch, before
 * any record of the service.
 */
const FIRST_DAY = '1970-01-01';
const LAST_DAY = '9998-12-31';

/** How a refusal names the rule: `must be ${DAY_RULE}`. */
export const DAY_RULE = `a calendar day YYYY-MM-DD, ${FIRST_DAY} to ${LAST_DAY}`;

/** Whether `text` is `YYYY-MM-DD` of a day that exists, from {@link FIRST_DAY} to {@link LAST_DAY}. */
export function isDay(text: string): boolean {
  if (!isDayText(text)) return false;
  return text >= FIRST_DAY && text <= LAST_DAY;
}

/** Whether `text` is `YYYY-MM-DD` of a day that exists (Gregorian, years 0001 to 9999), whatever the range. */
export function isDayText(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return isStorableDate(d) && d.toISOString().startsWith(text);
}

/**
 * Calendar days ('yyyy-mm-dd'), the dates of schedules, due dates and reports: strict parsing,
 * formatting and arithmetic, on integers rather than Date objects (the public simulation computes
 * a schedule and its APR on every request, and parsing and formatting dates was most of its cost:
 * docs/performance.md). The APR's time axis (domain/apr.ts) uses the same month arithmetic as the
 * payment dates.
 */
const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A calendar date as integers (month 1–12), proleptic Gregorian like JavaScript's Date. The
 * calendar arithmetic below works on these and on day numbers rather than on Date objects and
 * strings: the public simulation computes a schedule and its APR on every request, and parsing
 * and formatting dates was most of its cost (docs/performance.md).
 */
export interface Ymd {
  y: number;
  m: number;
  d: number;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 (negative before), by H. Hinnant's `days_from_civil`. */
export function dayNumber({ y, m, d }: Ymd): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The inverse of {@link dayNumber} (`civil_from_days`). */
function dateOfDay(n: number): Ymd {
  const z = n + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yearOfEra + era * 400 + (m <= 2 ? 1 : 0), m, d: dayOfYear - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** Strict 'yyyy-mm-dd' to its parts; RangeError for malformed text or a day that does not exist. */
export function parseYmd(text: string): Ymd {
  const match = ISO_DATE.exec(text);
  if (match) {
    const y = Number(match[1]);
    const m = Number(match[2]);
    const d = Number(match[3]);
    if (m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m)) return { y, m, d };
  }
  throw new RangeError(`not a calendar date in yyyy-mm-dd form: ${JSON.stringify(text)}`);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** 'yyyy-mm-dd'; RangeError outside years 0000–9999, which the format cannot express. */
function formatYmd({ y, m, d }: Ymd): string {
  if (!(y >= 0 && y <= 9999)) throw new RangeError(`date out of the yyyy-mm-dd range: year ${y}`);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** `date` plus `months` months, same day of month, clamped to the target month's last day. */
export function addMonthsYmd(date: Ymd, months: number): Ymd {
  const index = date.y * 12 + (date.m - 1) + months;
  const y = Math.floor(index / 12);
  const m = index - y * 12 + 1;
  return { y, m, d: Math.min(date.d, daysInMonth(y, m)) };
}

/**
 * Parses a strict 'yyyy-mm-dd' calendar date to UTC midnight.
 * @throws RangeError for malformed text or a date that does not exist (2025-02-30, 2025-13-01).
 */
export function parseIsoDate(text: string): Date {
  return new Date(dayNumber(parseYmd(text)) * DAY_MS);
}

/**
 * Formats a UTC date as 'yyyy-mm-dd'.
 * @throws RangeError outside years 0000–9999, which the format cannot express.
 */
export function formatIsoDate(date: Date): string {
  return formatYmd({ y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() });
}

/** `date` plus `days` calendar days ('yyyy-mm-dd' in and out). */
export function addDays(date: string, days: number): string {
  return formatYmd(dateOfDay(dayNumber(parseYmd(date)) + days));
}

/**
 * `date` plus `months` months, same day of month, clamped to the target month's last day
 * (2026-01-31 + 1 → 2026-02-28; 2028-01-31 + 1 → 2028-02-29). Always counted from the
 * original date, so 31 Jan + 2 months is 31 Mar, not the 28th carried over from February.
 */
export function addMonthsClamped(date: string, months: number): string {
  return formatYmd(addMonthsYmd(parseYmd(date), months));
}
