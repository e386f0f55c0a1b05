import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aprPercent, solveApr, yearFraction, type DatedFlow } from '../../src/domain/apr.ts';
import { addDays, addMonthsClamped, formatIsoDate, parseIsoDate } from '../../src/domain/dates.ts';

type Example = { name: string; flows: [string, number][]; apr_1dp: number; apr_2dp?: number };
const examples: Example[] = JSON.parse(readFileSync(new URL('../fixtures/apr-examples.json', import.meta.url), 'utf8')).examples;

const toFlows = (pairs: [string, number][]): DatedFlow[] => pairs.map(([date, amount]) => ({ date, amount }));
const presentValue = (flows: DatedFlow[], rate: number) => flows.reduce((sum, f) => sum + f.amount * (1 + rate) ** -yearFraction(flows[0]!.date, f.date, 'actual365'), 0);

describe('solveApr reproduces the official worked examples', () => {
  it('has examples to check', () => expect(examples.length).toBeGreaterThanOrEqual(3));

  for (const example of examples) {
    it(`${example.name}: ${example.apr_2dp ?? example.apr_1dp} %`, () => {
      const rate = solveApr(toFlows(example.flows), 'actual365');
      expect(Math.round(rate * 1000) / 10).toBe(example.apr_1dp);
      if (example.apr_2dp !== undefined) expect(aprPercent(rate)).toBe(example.apr_2dp);
    });
  }

  it('12 equal months would not reproduce the 546-day example, so days count as days/365', () => {
    const flows = toFlows(examples[0]!.flows);
    expect(aprPercent(solveApr(flows, 'monthly'))).toBe(12.92);
    expect(aprPercent(solveApr(flows, 'actual365'))).toBe(12.96);
  });
});

describe('solveApr', () => {
  it('matches the closed form of a single repayment to 1e-12', () => {
    const rate = solveApr(
      toFlows([
        ['2025-03-01', 1000],
        ['2026-03-01', -1200],
      ]),
      'actual365',
    );
    expect(Math.abs(rate - 0.2)).toBeLessThan(1e-12);
  });

  it('counts a year containing 29 February as 366/365 of a year', () => {
    const rate = solveApr(
      toFlows([
        ['2028-01-01', 1000],
        ['2029-01-01', -1100],
      ]),
      'actual365',
    );
    expect(Math.abs(rate - (1.1 ** (365 / 366) - 1))).toBeLessThan(1e-12);
  });

  it('measures time from the earliest flow whatever the order of the list', () => {
    const ordered = toFlows([
      ['1994-01-01', 1000],
      ['1995-01-01', -600],
      ['1996-01-01', -600],
    ]);
    expect(solveApr([...ordered].reverse(), 'actual365')).toBe(solveApr(ordered, 'actual365'));
  });

  it('finds negative rates and very high rates', () => {
    expect(
      solveApr(
        toFlows([
          ['2025-01-01', 1000],
          ['2026-01-01', -500],
        ]),
        'actual365',
      ),
    ).toBeCloseTo(-0.5, 12);
    expect(
      solveApr(
        toFlows([
          ['2025-01-01', 1000],
          ['2026-01-01', -1_000_000],
        ]),
        'actual365',
      ),
    ).toBeCloseTo(999, 6);
  });

  it('ignores zero flows and sums flows on the same date', () => {
    const rate = solveApr(
      toFlows([
        ['2025-03-01', 1050],
        ['2025-03-01', -50],
        ['2025-06-01', 0],
        ['2026-03-01', -1200],
      ]),
      'actual365',
    );
    expect(Math.abs(rate - 0.2)).toBeLessThan(1e-12);
  });

  it('refuses flows without both a drawdown and a repayment', () => {
    expect(() => solveApr([], 'monthly')).toThrow(RangeError);
    expect(() =>
      solveApr(
        toFlows([
          ['2025-01-01', 1000],
          ['2026-01-01', 200],
        ]),
        'monthly',
      ),
    ).toThrow(/drawdown .* repayment/);
    expect(() =>
      solveApr(
        toFlows([
          ['2025-01-01', -1000],
          ['2026-01-01', -200],
        ]),
        'monthly',
      ),
    ).toThrow(RangeError);
    expect(() =>
      solveApr(
        toFlows([
          ['2025-01-01', 0],
          ['2026-01-01', -200],
        ]),
        'monthly',
      ),
    ).toThrow(RangeError);
  });

  it('refuses flows that no rate above -99 % can balance', () => {
    // Repaying 1 for 1000 lent would take a rate of -99.9 %.
    expect(() =>
      solveApr(
        toFlows([
          ['2025-01-01', 1000],
          ['2026-01-01', -1],
        ]),
        'actual365',
      ),
    ).toThrow(/no annual rate/);
  });

  it('refuses invalid dates and amounts', () => {
    expect(() =>
      solveApr(
        toFlows([
          ['2025-02-30', 1000],
          ['2026-01-01', -1200],
        ]),
        'actual365',
      ),
    ).toThrow(RangeError);
    expect(() =>
      solveApr(
        toFlows([
          ['2025-01-01', Number.NaN],
          ['2026-01-01', -1200],
        ]),
        'actual365',
      ),
    ).toThrow(RangeError);
  });

  // Realistic credits: first repayment a month or more out, 0.8× to 2× the drawdown repaid, so
  // rates stay between about -93 % and +460,000 % where 1e-9 is still a meaningful resolution.
  const credit = fc
    .record({
      drawdown: fc.integer({ min: 1_000, max: 1_000_000_000 }),
      start: fc.integer({ min: 0, max: 36_500 }),
      repayments: fc.array(fc.record({ day: fc.integer({ min: 30, max: 3_650 }), weight: fc.integer({ min: 1, max: 100 }) }), {
        minLength: 1,
        maxLength: 12,
      }),
      repaidShare: fc.double({ min: 0.8, max: 2, noNaN: true }),
    })
    .map(({ drawdown, start, repayments, repaidShare }) => {
      const created = addDays('2000-01-01', start);
      const totalWeight = repayments.reduce((sum, r) => sum + r.weight, 0);
      return [
        { date: created, amount: drawdown },
        ...repayments.map((r) => ({
          date: addDays(created, r.day),
          amount: -Math.max(1, Math.round((drawdown * repaidShare * r.weight) / totalWeight)),
        })),
      ];
    });

  it('returns a rate at which the discounted flows sum to zero, exact to 1e-9 in rate', () => {
    fc.assert(
      fc.property(credit, (flows) => {
        const rate = solveApr(flows, 'actual365');
        const scale = flows.reduce((sum, f) => sum + Math.abs(f.amount), 0);
        expect(Math.abs(presentValue(flows, rate))).toBeLessThan(scale * 1e-9);
        // The root lies between rate − 1e-9 and rate + 1e-9: the present value changes sign there.
        expect(Math.sign(presentValue(flows, rate - 1e-9)) * Math.sign(presentValue(flows, rate + 1e-9))).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('gives the same rate, to the last bit, whatever the order of the flows', () => {
    fc.assert(
      fc.property(
        credit.chain((flows) => fc.tuple(fc.constant(flows), fc.shuffledSubarray(flows, { minLength: flows.length, maxLength: flows.length }))),
        ([flows, shuffled]) => {
          expect(solveApr(shuffled, 'monthly')).toBe(solveApr(flows, 'monthly'));
        },
      ),
    );
  });
});

/**
 * The calendar helpers work on day numbers, not on Date objects (docs/performance.md). Their
 * oracle here is JavaScript's own proleptic Gregorian Date, which they must agree with on every
 * date the yyyy-mm-dd form can express.
 */
describe('calendar arithmetic agrees with JavaScript Date', () => {
  const DAY = 86_400_000;
  const oracleDate = (y: number, monthIndex: number, d: number) => {
    const date = new Date(0);
    date.setUTCFullYear(y, monthIndex, d);
    return date;
  };
  const oracleAddMonths = (text: string, months: number) => {
    const start = oracleDate(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10)));
    const index = start.getUTCMonth() + months;
    const lastDay = oracleDate(start.getUTCFullYear(), index + 1, 0).getUTCDate();
    return oracleDate(start.getUTCFullYear(), index, Math.min(start.getUTCDate(), lastDay));
  };
  const inRange = (d: Date) => d.getUTCFullYear() >= 0 && d.getUTCFullYear() <= 9999;
  const FIRST = oracleDate(0, 0, 1).getTime() / DAY;
  const LAST = oracleDate(9999, 11, 31).getTime() / DAY;
  const anyDay = fc.integer({ min: FIRST, max: LAST }).map((n) => formatIsoDate(new Date(n * DAY)));

  it('parses every yyyy-mm-dd date to its UTC midnight and back', () => {
    fc.assert(
      fc.property(anyDay, (text) => {
        expect(formatIsoDate(parseIsoDate(text))).toBe(text);
        expect(parseIsoDate(text).getTime()).toBe(oracleDate(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10))).getTime());
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses days that do not exist, as the Date round trip does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (y, m, d) => {
        const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        const real = oracleDate(y, m - 1, d);
        const exists = m >= 1 && m <= 12 && real.getUTCMonth() === m - 1 && real.getUTCDate() === d;
        if (exists) expect(formatIsoDate(parseIsoDate(text))).toBe(text);
        else expect(() => parseIsoDate(text)).toThrow(RangeError);
      }),
      { numRuns: 2_000 },
    );
  });

  it('adds days and clamped months as Date does, refusing results beyond year 9999', () => {
    fc.assert(
      fc.property(anyDay, fc.integer({ min: -3_000, max: 3_000 }), fc.integer({ min: -240, max: 240 }), (text, days, months) => {
        const byDays = new Date(parseIsoDate(text).getTime() + days * DAY);
        if (inRange(byDays)) expect(addDays(text, days)).toBe(formatIsoDate(byDays));
        else expect(() => addDays(text, days)).toThrow(RangeError);
        const byMonths = oracleAddMonths(text, months);
        if (inRange(byMonths)) expect(addMonthsClamped(text, months)).toBe(formatIsoDate(byMonths));
        else expect(() => addMonthsClamped(text, months)).toThrow(RangeError);
      }),
      { numRuns: 2_000 },
    );
  });

  it("counts years between dates as the Date-based rule does ('monthly' and 'actual365')", () => {
    fc.assert(
      fc.property(fc.integer({ min: FIRST, max: LAST - 4_000 }), fc.integer({ min: 0, max: 4_000 }), (from, span) => {
        const a = formatIsoDate(new Date(from * DAY));
        const b = formatIsoDate(new Date((from + span) * DAY));
        expect(yearFraction(a, b, 'actual365')).toBe(span / 365);
        const start = new Date(from * DAY);
        const end = new Date((from + span) * DAY);
        let months = (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + (end.getUTCMonth() - start.getUTCMonth());
        if (oracleAddMonths(a, months).getTime() > end.getTime()) months -= 1;
        const expected = months / 12 + Math.round((end.getTime() - oracleAddMonths(a, months).getTime()) / DAY) / 365;
        expect(yearFraction(a, b, 'monthly')).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('yearFraction', () => {
  it("'monthly' counts each clamped month as exactly 1/12 year, leftover days as days/365", () => {
    expect(yearFraction('2026-01-31', '2026-02-28', 'monthly')).toBe(1 / 12);
    expect(yearFraction('2028-01-31', '2028-02-29', 'monthly')).toBe(1 / 12);
    expect(yearFraction('2026-01-31', '2026-03-31', 'monthly')).toBe(2 / 12);
    expect(yearFraction('2026-01-31', '2026-03-30', 'monthly')).toBe(1 / 12 + 30 / 365);
    expect(yearFraction('2026-01-15', '2027-01-15', 'monthly')).toBe(1);
    expect(yearFraction('2026-01-15', '2026-01-25', 'monthly')).toBe(10 / 365);
  });

  it("'actual365' counts days over 365, leap years included", () => {
    expect(yearFraction('1994-01-01', '1995-07-01', 'actual365')).toBe(546 / 365);
    expect(yearFraction('2028-01-01', '2029-01-01', 'actual365')).toBe(366 / 365);
  });
});

describe('aprPercent', () => {
  it('rounds to 2 decimals half up', () => {
    expect(aprPercent(0.13)).toBe(13);
    expect(aprPercent(0.12345)).toBe(12.35);
    expect(aprPercent(0.12344999)).toBe(12.34);
    expect(aprPercent(0.00005)).toBe(0.01);
    expect(aprPercent(0.0000499)).toBe(0);
    expect(aprPercent(0)).toBe(0);
  });

  it('is not fooled by binary artefacts just below a half', () => {
    expect(0.00145 * 10_000).toBeLessThan(14.5); // the artefact this guards against
    expect(aprPercent(0.00145)).toBe(0.15);
    expect(aprPercent(0.00015)).toBe(0.02);
    expect(aprPercent(0.129599999999)).toBe(12.96);
  });
});
