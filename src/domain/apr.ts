/**
 * Annual percentage rate (TAEG) of Directive 2008/48/EC, Annex I:
 *
 *   Σ drawdowns_k / (1+X)^t_k  =  Σ repayments_l / (1+X)^t_l
 *
 * written here as one signed sum, Σ amount_k / (1+X)^t_k = 0, with t in years from the first
 * flow. Pure: plain arithmetic on 'yyyy-mm-dd' strings, no I/O.
 *
 * The time axis of the equation uses the calendar arithmetic of the payment dates themselves
 * (domain/dates.ts), so that a schedule line k months after `created` counts as exactly k/12 year.
 */
import { addMonthsYmd, dayNumber, parseYmd, type Ymd } from './dates.ts';

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
 *   12.96 %). We use plain days/365 (docs/schedules.md#how-the-taeg-is-computed), so a day weighs
 *   the same in any year.
 */
export type DayCount = 'monthly' | 'actual365';

/** Time from `from` to `to` in years under the given day count (see {@link DayCount}). */
export function yearFraction(from: string, to: string, dayCount: DayCount): number {
  return yearsBetween(parseYmd(from), parseYmd(to), dayCount);
}

function yearsBetween(a: Ymd, b: Ymd, dayCount: DayCount): number {
  const end = dayNumber(b);
  if (dayCount === 'actual365') return (end - dayNumber(a)) / 365;
  let months = (b.y - a.y) * 12 + (b.m - a.m);
  let anniversary = dayNumber(addMonthsYmd(a, months));
  // Clamping can put "k months later" past `to` (31 Jan → 30 Mar is one month and 30 days).
  if (anniversary > end) {
    months -= 1;
    anniversary = dayNumber(addMonthsYmd(a, months));
  }
  return months / 12 + (end - anniversary) / 365;
}

/**
 * The annual rate X (a fraction: 0.1296 for 12.96 %) that makes the flows' present value
 * zero, time measured from the earliest flow's date.
 *
 * Brackets the root between -0.99 and an upper bound doubled until the present value changes
 * sign, then narrows the bracket with Newton steps, falling back to bisection whenever a step
 * would leave it: it converges in a few steps like Newton's method, yet cannot diverge or jump
 * to a wrong root, because every trial stays inside a bracket that holds the root. It stops when
 * a step no longer moves the rate beyond a few units of a double's last place.
 *
 * @throws RangeError when there is no flow, an amount is not finite, a date is invalid, the
 *   flows do not contain both a drawdown and a repayment, or no rate makes the sum zero.
 */
export function solveApr(flows: readonly DatedFlow[], dayCount: DayCount): number {
  if (flows.length === 0) throw new RangeError('APR needs at least one cash flow');
  const dates = flows.map((flow) => {
    const date = parseYmd(flow.date);
    if (!Number.isFinite(flow.amount)) throw new RangeError(`cash flow amount is not a number: ${flow.amount}`);
    return date;
  });
  let start = dates[0]!;
  for (const date of dates) if (dayNumber(date) < dayNumber(start)) start = date;
  // Sorted by time, then amount, so that the sums, and so the rate to its last bit, do not
  // depend on the order of the list; plain arrays read in a loop by the steps below.
  const terms = flows
    .map((flow, i) => ({ amount: flow.amount, years: yearsBetween(start, dates[i]!, dayCount) }))
    .filter((t) => t.amount !== 0)
    .sort((a, b) => a.years - b.years || a.amount - b.amount);
  const amounts = terms.map((t) => t.amount);
  const years = terms.map((t) => t.years);
  if (!amounts.some((a) => a > 0) || !amounts.some((a) => a < 0)) {
    throw new RangeError('APR needs both a drawdown (positive flow) and a repayment (negative flow)');
  }
  const presentValue = (rate: number): number => {
    let sum = 0;
    for (let k = 0; k < amounts.length; k++) sum += amounts[k]! * (1 + rate) ** -years[k]!;
    return sum;
  };

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
  let rate = low + (high - low) / 2;
  // Bisection alone needs ~1,100 halvings from the widest bracket; Newton far fewer.
  for (let step = 0; step < 2_000; step++) {
    let pv = 0;
    let slope = 0;
    for (let k = 0; k < amounts.length; k++) {
      const discounted = amounts[k]! * (1 + rate) ** -years[k]!;
      pv += discounted;
      slope -= years[k]! * discounted;
    }
    slope /= 1 + rate;
    if (pv === 0) return rate;
    if (Math.sign(pv) === Math.sign(pvLow)) {
      low = rate;
      pvLow = pv;
    } else {
      high = rate;
    }
    const newton = rate - pv / slope;
    const next = newton > low && newton < high ? newton : low + (high - low) / 2;
    if (next <= low || next >= high || Math.abs(next - rate) <= 4 * Number.EPSILON * Math.max(1, Math.abs(rate))) return next;
    rate = next;
  }
  return rate;
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
