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
