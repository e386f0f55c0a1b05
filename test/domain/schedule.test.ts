import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { solveApr } from '../../src/domain/apr.ts';
import { computeSchedule, feeCents, ScheduleError, taegFlows, type OfferTerms, type ScheduleErrorCode } from '../../src/domain/schedule.ts';
import { addDays, addMonthsClamped, parseIsoDate } from '../../src/domain/dates.ts';

const installments = (n: number, overrides: Partial<OfferTerms> = {}): OfferTerms => ({
  type: 'INSTALLMENTS',
  installments: n,
  deferredDays: 0,
  feeRateBps: 0,
  fixedFeeCents: 0,
  minAmountCents: 1,
  maxAmountCents: Number.MAX_SAFE_INTEGER,
  fundingCapCents: null,
  debitRateBps: 0,
  usuryCeilingBps: null,
  ...overrides,
});
const deferred = (days: number, overrides: Partial<OfferTerms> = {}): OfferTerms => installments(1, { type: 'DEFERRED', deferredDays: days, ...overrides });

const refusal = (run: () => unknown): ScheduleErrorCode | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof ScheduleError) return error.code;
    throw error;
  }
  return undefined;
};

describe('computeSchedule: worked examples', () => {
  it('3x 300.00 EUR at 150 bps from 31 Jan: equal thirds, 4.50 fee at checkout, month ends clamped, TAEG 20.00', () => {
    const schedule = computeSchedule(installments(3, { feeRateBps: 150 }), 30_000, '2026-01-31');
    expect(schedule).toEqual({
      INSTALLMENT: [
        { amount_cents: 10_000, fees: 450, payment_date: '2026-01-31' },
        { amount_cents: 10_000, fees: 0, payment_date: '2026-02-28' },
        { amount_cents: 10_000, fees: 0, payment_date: '2026-03-31' },
      ],
      debit_rate: 0,
      taeg: 20,
    });
    // Closed form: 195.50 lent at t=0 repaid 100 at 1/12 and 2/12 year is a quadratic in v = (1+X)^(-1/12).
    const v = (-1 + Math.sqrt(1 + 4 * 1.955)) / 2;
    const rate = solveApr(taegFlows(installments(3, { feeRateBps: 150 }), 30_000, schedule.INSTALLMENT, '2026-01-31'), 'monthly');
    expect(Math.abs(rate - (v ** -12 - 1))).toBeLessThan(1e-9);
  });

  it('4x 300.00 EUR at 150 bps: 75.00 each, same 4.50 fee spread over a longer credit gives a lower TAEG', () => {
    const schedule = computeSchedule(installments(4, { feeRateBps: 150 }), 30_000, '2026-01-31');
    expect(schedule.INSTALLMENT.map((l) => [l.amount_cents, l.fees, l.payment_date])).toEqual([
      [7_500, 450, '2026-01-31'],
      [7_500, 0, '2026-02-28'],
      [7_500, 0, '2026-03-31'],
      [7_500, 0, '2026-04-30'],
    ]);
    expect(schedule.taeg).toBe(12.91);
  });

  it('3x 100.00 EUR: the first installment takes the rounding remainder', () => {
    const lines = computeSchedule(installments(3), 10_000, '2026-05-10').INSTALLMENT;
    expect(lines.map((l) => l.amount_cents)).toEqual([3_334, 3_333, 3_333]);
  });

  it('a fixed fee is added to the rate fee on the first installment', () => {
    const lines = computeSchedule(installments(3, { feeRateBps: 150, fixedFeeCents: 99 }), 30_000, '2026-05-10').INSTALLMENT;
    expect(lines.map((l) => l.fees)).toEqual([549, 0, 0]);
  });

  it('deferred 30 days: one line with the whole amount and fees, TAEG on days/365', () => {
    const schedule = computeSchedule(deferred(30, { feeRateBps: 150 }), 30_000, '2026-01-31');
    expect(schedule.INSTALLMENT).toEqual([{ amount_cents: 30_000, fees: 450, payment_date: '2026-03-02' }]);
    expect(schedule.taeg).toBe(19.86);
    expect(((30_450 / 30_000) ** (365 / 30) - 1) * 100).toBeCloseTo(19.86, 2);
  });

  it('deferred across 29 February counts the leap day', () => {
    expect(computeSchedule(deferred(30), 5_000, '2028-02-15').INSTALLMENT[0]!.payment_date).toBe('2028-03-16');
  });

  it('reports the offer debit rate in percent', () => {
    expect(computeSchedule(installments(3, { debitRateBps: 450 }), 30_000, '2026-01-31').debit_rate).toBe(4.5);
  });
});

describe('computeSchedule: dates', () => {
  it('created on the 31st: every installment on the 31st or the last day of shorter months', () => {
    const dates = computeSchedule(installments(12), 120_000, '2026-01-31').INSTALLMENT.map((l) => l.payment_date);
    expect(dates).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
    ]);
  });

  it('leap years: 31 Jan 2028 is followed by 29 Feb 2028; 29 Feb 2028 by the 29th of later months', () => {
    expect(computeSchedule(installments(2), 100, '2028-01-31').INSTALLMENT[1]!.payment_date).toBe('2028-02-29');
    expect(computeSchedule(installments(4), 100, '2027-11-30').INSTALLMENT[3]!.payment_date).toBe('2028-02-29');
    expect(computeSchedule(installments(3), 100, '2028-02-29').INSTALLMENT.map((l) => l.payment_date)).toEqual(['2028-02-29', '2028-03-29', '2028-04-29']);
  });

  it('date helpers work on yyyy-mm-dd strings in UTC', () => {
    expect(addMonthsClamped('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonthsClamped('2026-01-31', 2)).toBe('2026-03-31');
    expect(addMonthsClamped('2026-12-15', 1)).toBe('2027-01-15');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(parseIsoDate('2024-02-29').toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseIsoDate('0050-06-01').getUTCFullYear()).toBe(50);
  });
});

describe('computeSchedule: amounts', () => {
  it('a 1-cent purchase: the first installment holds the cent, later ones are 0, TAEG 0', () => {
    expect(computeSchedule(installments(3, { feeRateBps: 150 }), 1, '2026-01-31')).toMatchObject({
      INSTALLMENT: [
        { amount_cents: 1, fees: 0 },
        { amount_cents: 0, fees: 0 },
        { amount_cents: 0, fees: 0 },
      ],
      taeg: 0,
    });
    expect(computeSchedule(deferred(30, { feeRateBps: 150 }), 1, '2026-01-31').taeg).toBe(0);
  });

  it('refuses a purchase whose fees at checkout reach the credit: no finite TAEG exists', () => {
    expect(refusal(() => computeSchedule(installments(3, { fixedFeeCents: 100 }), 1, '2026-01-31'))).toBe('amount_below_minimum');
    expect(refusal(() => computeSchedule(installments(3, { fixedFeeCents: 200 }), 300, '2026-01-31'))).toBe('amount_below_minimum');
    expect(computeSchedule(installments(3, { fixedFeeCents: 199 }), 300, '2026-01-31').taeg).toBeGreaterThan(1_000_000);
  });

  it('large amounts stay exact: 99,999,999.99 in 4x at 150 bps', () => {
    const lines = computeSchedule(installments(4, { feeRateBps: 150 }), 99_999_999_99, '2026-01-31').INSTALLMENT;
    expect(lines.map((l) => l.amount_cents)).toEqual([2_500_000_002, 2_499_999_999, 2_499_999_999, 2_499_999_999]);
    expect(lines[0]!.fees).toBe(150_000_000); // 149,999,999.985 rounded half up
  });

  it('rate fees round half up in integer arithmetic', () => {
    expect(feeCents({ feeRateBps: 150, fixedFeeCents: 0 }, 100)).toBe(2); // 1.5
    expect(feeCents({ feeRateBps: 150, fixedFeeCents: 0 }, 33)).toBe(0); // 0.495
    expect(feeCents({ feeRateBps: 1, fixedFeeCents: 0 }, 5_000)).toBe(1); // 0.5
    expect(feeCents({ feeRateBps: 10_000, fixedFeeCents: 0 }, Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses amounts that are not positive safe integers', () => {
    for (const amount of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
      expect(refusal(() => computeSchedule(installments(3), amount, '2026-01-31'))).toBe('invalid_amount');
    }
    expect(refusal(() => computeSchedule(installments(3, { feeRateBps: 150 }), Number.MAX_SAFE_INTEGER, '2026-01-31'))).toBe('invalid_amount');
  });

  it('refuses amounts outside the offer minimum and maximum, bounds included', () => {
    const terms = installments(3, { minAmountCents: 5_000, maxAmountCents: 300_000 });
    expect(refusal(() => computeSchedule(terms, 4_999, '2026-01-31'))).toBe('amount_below_minimum');
    expect(refusal(() => computeSchedule(terms, 5_000, '2026-01-31'))).toBeUndefined();
    expect(refusal(() => computeSchedule(terms, 300_000, '2026-01-31'))).toBeUndefined();
    expect(refusal(() => computeSchedule(terms, 300_001, '2026-01-31'))).toBe('amount_above_maximum');
  });

  it('refuses a credit above the funding cap: installments count what is not paid at checkout, deferred the whole amount', () => {
    expect(refusal(() => computeSchedule(installments(3, { fundingCapCents: 20_000 }), 30_000, '2026-01-31'))).toBeUndefined();
    expect(refusal(() => computeSchedule(installments(3, { fundingCapCents: 19_999 }), 30_000, '2026-01-31'))).toBe('amount_above_funding_cap');
    expect(refusal(() => computeSchedule(deferred(30, { fundingCapCents: 29_999 }), 30_000, '2026-01-31'))).toBe('amount_above_funding_cap');
  });

  it('refuses a schedule whose TAEG is above the usury ceiling, and accepts one exactly at it', () => {
    const at = (ceiling: number) => installments(3, { feeRateBps: 150, usuryCeilingBps: ceiling });
    expect(computeSchedule(at(2_000), 30_000, '2026-01-31').taeg).toBe(20);
    expect(() => computeSchedule(at(1_999), 30_000, '2026-01-31')).toThrow(/TAEG of 20 % is above the usury ceiling of 19.99 %/);
    expect(refusal(() => computeSchedule(at(1_999), 30_000, '2026-01-31'))).toBe('usury_ceiling_exceeded');
  });

  it('refuses created dates that are not real yyyy-mm-dd calendar dates', () => {
    for (const created of ['2025-02-30', '2025-02-29', '2025-13-01', '2025-00-10', '2025-04-31', '2025-1-01', '20250101', '', ' 2025-01-01', '2025-01-01T00:00:00Z']) {
      expect(
        refusal(() => computeSchedule(installments(3), 30_000, created)),
        created,
      ).toBe('invalid_date');
    }
    expect(refusal(() => computeSchedule(installments(3), 30_000, '9999-12-01'))).toBe('invalid_date');
  });

  it('rejects inconsistent offer terms as a configuration bug, not a customer error', () => {
    expect(() => computeSchedule(installments(13), 30_000, '2026-01-31')).toThrow(RangeError);
    expect(() => computeSchedule(installments(1), 30_000, '2026-01-31')).toThrow(RangeError);
    expect(() => computeSchedule(deferred(0), 30_000, '2026-01-31')).toThrow(RangeError);
    expect(() => computeSchedule(installments(3, { feeRateBps: -1 }), 30_000, '2026-01-31')).toThrow(RangeError);
  });
});

describe('computeSchedule: properties', () => {
  const created = fc.integer({ min: 0, max: 36_500 }).map((days) => addDays('2000-01-01', days));
  const n = fc.integer({ min: 2, max: 12 });
  // Fees up to 10 % + 5.00 stay below the credit (at least half the amount) from 12.50 up.
  const fees = fc.record({ feeRateBps: fc.integer({ min: 0, max: 1_000 }), fixedFeeCents: fc.integer({ min: 0, max: 500 }) });
  const amount = fc.integer({ min: 1_250, max: 100_000_000_00 });

  it('installments sum to the amount, the first carries the remainder and all fees, the others are equal, dates strictly increase', () => {
    fc.assert(
      fc.property(n, fees, amount, created, (count, fee, amountCents, day) => {
        const lines = computeSchedule(installments(count, fee), amountCents, day).INSTALLMENT;
        const [first, ...rest] = lines;
        expect(lines).toHaveLength(count);
        expect(lines.reduce((sum, l) => sum + l.amount_cents, 0)).toBe(amountCents);
        expect(first!.amount_cents).toBe(Math.floor(amountCents / count) + (amountCents % count));
        expect(first!.fees).toBe(feeCents(fee, amountCents));
        expect(first!.payment_date).toBe(day);
        for (const line of rest) expect(line).toMatchObject({ amount_cents: rest[0]!.amount_cents, fees: 0 });
        lines.forEach((line, k) => {
          expect(line.payment_date).toBe(addMonthsClamped(day, k));
          if (k > 0) expect(line.payment_date > lines[k - 1]!.payment_date).toBe(true);
        });
      }),
    );
  });

  it('any amount from 1 cent splits exactly when the offer has no fees, with TAEG 0', () => {
    fc.assert(
      fc.property(n, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), created, (count, amountCents, day) => {
        const schedule = computeSchedule(installments(count), amountCents, day);
        expect(schedule.INSTALLMENT.reduce((sum, l) => sum + l.amount_cents, 0)).toBe(amountCents);
        expect(schedule.taeg).toBe(0);
      }),
    );
  });

  it('a deferred schedule without fees has TAEG 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), amount, created, (days, amountCents, day) => {
        expect(computeSchedule(deferred(days), amountCents, day).taeg).toBe(0);
      }),
    );
  });

  it('more fees never lower the TAEG', () => {
    fc.assert(
      fc.property(fc.option(n, { nil: undefined }), fees, fees, amount, created, (count, a, b, amountCents, day) => {
        const low = { feeRateBps: Math.min(a.feeRateBps, b.feeRateBps), fixedFeeCents: Math.min(a.fixedFeeCents, b.fixedFeeCents) };
        const high = { feeRateBps: Math.max(a.feeRateBps, b.feeRateBps), fixedFeeCents: Math.max(a.fixedFeeCents, b.fixedFeeCents) };
        const terms = (f: typeof low) => (count === undefined ? deferred(30, f) : installments(count, f));
        expect(computeSchedule(terms(high), amountCents, day).taeg).toBeGreaterThanOrEqual(computeSchedule(terms(low), amountCents, day).taeg);
      }),
    );
  });
});
