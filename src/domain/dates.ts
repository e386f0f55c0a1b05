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
