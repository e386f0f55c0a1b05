/**
 * Annual percentage rate (TAEG) of Directive 2008/48/EC, Annex I:
 *
 *   Σ drawdowns_k / (1+X)^t_k  =  Σ repayments_l / (1+X)^t_l
 *
 * written here as one signed sum, Σ amount_k / (1+X)^t_k = 0, with t in years from the first
 * flow. Pure: plain arithmetic on 'yyyy-mm-dd' strings, no I/O.
 *
 * The calendar helpers live in this file, not in the schedule engine, because the time axis
 * of the equation needs exactly the same month arithmetic as the payment dates (a schedule
 * line k months after `created` must count as exactly k/12 year); the schedule module
 * re-exports them.
 */

/** One cash flow of a credit. */
export type DatedFlow = {
  /** Calendar date, 'yyyy-mm-dd'. */
  date: string;
  /** Integer minor units: positive = drawdown paid to the consumer, negative = repayment or charge. */
  amount: number;
};

/**
 * How the time between two dates becomes a fraction of a year (Annex I, remark (c)).
 * - 'monthly': 12 equal months; every whole month counts exactly 1/12 year whatever its
 *   length, leftover days count days/365 (so a month is 365/12 = 30.41666 days). Used for
 *   installment schedules, whose dates are whole months apart.
 * - 'actual365': days/365. The official examples (apr-examples.json, Directive 98/7/EC
 *   Annex III) say "1 year = 365 days, 366 in leap years"; none of them spans a 29 February,
 *   so days/365 and actual/actual give identical times there and both reproduce every
 *   expected value, while 12-equal-months does not (546 days ≠ 18 months: 12.92 % instead of
 *   12.96 %). We use plain days/365, as DESIGN §4 says, so a day weighs the same in any year.
 */
export type DayCount = 'monthly' | 'actual365';

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Parses a strict 'yyyy-mm-dd' calendar date to UTC midnight.
 * @throws RangeError for malformed text or a date that does not exist (2025-02-30, 2025-13-01).
 */
export function parseIsoDate(text: string): Date {
  const match = ISO_DATE.exec(text);
  if (match) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const date = utcDate(year, month - 1, day);
    // Date silently rolls 30 Feb over to March: only a round trip proves the date exists.
    if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
      return date;
    }
  }
  throw new RangeError(`not a calendar date in yyyy-mm-dd form: ${JSON.stringify(text)}`);
}

/**
 * Formats a UTC date as 'yyyy-mm-dd'.
 * @throws RangeError outside years 0000–9999, which the format cannot express.
 */
export function formatIsoDate(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) throw new RangeError(`date out of the yyyy-mm-dd range: year ${year}`);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
}

/** `date` plus `days` calendar days ('yyyy-mm-dd' in and out). */
export function addDays(date: string, days: number): string {
  return formatIsoDate(new Date(parseIsoDate(date).getTime() + days * DAY_MS));
}

/**
 * `date` plus `months` months, same day of month, clamped to the target month's last day
 * (2026-01-31 + 1 → 2026-02-28; 2028-01-31 + 1 → 2028-02-29). Always counted from the
 * original date, so 31 Jan + 2 months is 31 Mar, not the 28th carried over from February.
 */
export function addMonthsClamped(date: string, months: number): string {
  const start = parseIsoDate(date);
  const monthIndex = start.getUTCMonth() + months;
  const lastDay = utcDate(start.getUTCFullYear(), monthIndex + 1, 0).getUTCDate();
  return formatIsoDate(utcDate(start.getUTCFullYear(), monthIndex, Math.min(start.getUTCDate(), lastDay)));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
function daysBetween(from: string, to: string): number {
  return Math.round((parseIsoDate(to).getTime() - parseIsoDate(from).getTime()) / DAY_MS);
}

/** Time from `from` to `to` in years under the given day count (see {@link DayCount}). */
export function yearFraction(from: string, to: string, dayCount: DayCount): number {
  if (dayCount === 'actual365') return daysBetween(from, to) / 365;
  const a = parseIsoDate(from);
  const b = parseIsoDate(to);
  let months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  // Clamping can put "k months later" past `to` (31 Jan → 30 Mar is one month and 30 days).
  if (addMonthsClamped(from, months) > to) months -= 1;
  return months / 12 + daysBetween(addMonthsClamped(from, months), to) / 365;
}

/**
 * The annual rate X (a fraction: 0.1296 for 12.96 %) that makes the flows' present value
 * zero, time measured from the earliest flow's date.
 *
 * Brackets the root between -0.99 and an upper bound doubled until the present value changes
 * sign, then bisects down to the resolution of a double: slower than Newton's method but it
 * cannot diverge or jump to a wrong root, and 13 flows × ~100 steps costs nothing.
 *
 * @throws RangeError when there is no flow, an amount is not finite, a date is invalid, the
 *   flows do not contain both a drawdown and a repayment, or no rate makes the sum zero.
 */
export function solveApr(flows: readonly DatedFlow[], dayCount: DayCount): number {
  if (flows.length === 0) throw new RangeError('APR needs at least one cash flow');
  for (const flow of flows) {
    parseIsoDate(flow.date);
    if (!Number.isFinite(flow.amount)) throw new RangeError(`cash flow amount is not a number: ${flow.amount}`);
  }
  // Strict yyyy-mm-dd strings sort chronologically.
  const start = flows.map((f) => f.date).sort()[0]!;
  const terms = flows
    .filter((f) => f.amount !== 0)
    .map((f) => ({ amount: f.amount, years: yearFraction(start, f.date, dayCount) }));
  if (!terms.some((t) => t.amount > 0) || !terms.some((t) => t.amount < 0)) {
    throw new RangeError('APR needs both a drawdown (positive flow) and a repayment (negative flow)');
  }
  const presentValue = (rate: number) => terms.reduce((sum, t) => sum + t.amount * (1 + rate) ** -t.years, 0);

  let low = -0.99;
  let high = 1;
  let pvLow = presentValue(low);
  let pvHigh = presentValue(high);
  while (Math.sign(pvLow) === Math.sign(pvHigh) && high < 1e300) {
    high *= 2;
    pvHigh = presentValue(high);
  }
  if (pvLow === 0) return low;
  if (pvHigh === 0) return high;
  if (Math.sign(pvLow) === Math.sign(pvHigh) || Number.isNaN(pvLow)) {
    throw new RangeError('no annual rate above -99 % makes these cash flows balance');
  }
  for (;;) {
    const mid = low + (high - low) / 2;
    if (mid <= low || mid >= high) return mid;
    const pvMid = presentValue(mid);
    if (pvMid === 0) return mid;
    if (Math.sign(pvMid) === Math.sign(pvLow)) {
      low = mid;
      pvLow = pvMid;
    } else {
      high = mid;
    }
  }
}

/**
 * A rate as a percentage with 2 decimals, rounded half up (0.12345 → 12.35, 0.13 → 13).
 * The rate is first snapped to 1e-6 of a percent, far below the solver's error, so that a
 * binary artefact like 1234.4999999 hundredths of a percent still rounds as the 1234.5 it means.
 */
export function aprPercent(rate: number): number {
  const micro = Math.round(rate * 1e8);
  // Rates beyond ~9e7 (absurd, but finite) no longer fit an exact integer; there the float is the answer.
  if (!Number.isSafeInteger(micro)) return Math.floor(rate * 1e4 + 0.5) / 100;
  return Math.floor((micro + 5000) / 10_000) / 100;
}

function utcDate(year: number, monthIndex: number, day: number): Date {
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}
