import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSchedule, ScheduleError, type OfferTerms, type ScheduleErrorCode } from '../../src/domain/schedule.ts';
import { addDays, addMonthsClamped } from '../../src/domain/dates.ts';

// The dates a purchase may ask for (docs/schedules.md#requested-dates): secondInstallmentDate for
// installments, deferredDate for a deferred payment.

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

const refusal = (run: () => unknown): { code: ScheduleErrorCode; message: string } | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof ScheduleError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
};
const lines = (secondInstallmentDate?: string) =>
  computeSchedule(installments(5), 50_000, '2020-01-01', { secondInstallmentDate }).INSTALLMENT.map((l) => [l.amount_cents, l.payment_date]);

describe('secondInstallmentDate: the integration guide’s three examples (5 x 100.00 EUR created 2020-01-01)', () => {
  it('without it: monthly from the created date', () => {
    expect(lines()).toEqual([
      [10_000, '2020-01-01'],
      [10_000, '2020-02-01'],
      [10_000, '2020-03-01'],
      [10_000, '2020-04-01'],
      [10_000, '2020-05-01'],
    ]);
  });

  it('2020-05-15: the second share on that day, the later ones monthly from it', () => {
    expect(lines('2020-05-15')).toEqual([
      [10_000, '2020-01-01'],
      [10_000, '2020-05-15'],
      [10_000, '2020-06-15'],
      [10_000, '2020-07-15'],
      [10_000, '2020-08-15'],
    ]);
  });

  it('2020-11-15: the shares that would fall more than 12 months after the created date are added to the last one that does not', () => {
    expect(lines('2020-11-15')).toEqual([
      [10_000, '2020-01-01'],
      [10_000, '2020-11-15'],
      [30_000, '2020-12-15'],
    ]);
  });
});

describe('secondInstallmentDate: edges', () => {
  it('on or before the created date it is ignored: the offer’s own dates apply', () => {
    expect(lines('2019-12-31')).toEqual(lines());
    expect(lines('2020-01-01')).toEqual(lines());
  });

  it('exactly 12 months after the created date is allowed (everything after the first share falls due that day); one day more is refused', () => {
    expect(lines('2021-01-01')).toEqual([
      [10_000, '2020-01-01'],
      [40_000, '2021-01-01'],
    ]);
    expect(refusal(() => lines('2021-01-02'))).toEqual({ code: 'invalid_second_installment_date', message: expect.stringContaining('latest is 2021-01-01') });
  });

  it('later dates are counted from the requested one, clamped to month ends without drifting', () => {
    expect(lines('2020-01-31').map(([, date]) => date)).toEqual(['2020-01-01', '2020-01-31', '2020-02-29', '2020-03-31', '2020-04-30']);
  });

  it('not a real yyyy-mm-dd date: refused naming it, whatever the offer type', () => {
    for (const date of ['2020-02-30', '15/05/2020', '']) {
      expect(refusal(() => lines(date))?.code, date).toBe('invalid_second_installment_date');
      expect(refusal(() => computeSchedule(deferred(30), 50_000, '2020-01-01', { secondInstallmentDate: date }))?.code).toBe('invalid_second_installment_date');
    }
  });

  it('is ignored by a DEFERRED offer', () => {
    expect(computeSchedule(deferred(30), 50_000, '2020-01-01', { secondInstallmentDate: '2020-01-10' })).toEqual(computeSchedule(deferred(30), 50_000, '2020-01-01'));
  });

  it('the TAEG follows the real dates: 2x with the second share 6 months later is (P / (C − fees))^2 − 1', () => {
    // 2 x 150.00, fee 6.00 at checkout: 150.00 − 6.00 lent, 150.00 repaid at t = 1/2 year.
    const s = computeSchedule(installments(2, { fixedFeeCents: 600 }), 30_000, '2026-01-31', { secondInstallmentDate: '2026-07-31' });
    expect(s.INSTALLMENT.map((l) => l.payment_date)).toEqual(['2026-01-31', '2026-07-31']);
    expect(s.taeg).toBe(Math.round(((15_000 / 14_400) ** 2 - 1) * 10_000) / 100);
    // Between whole months the leftover days count days/365: 31 Jan → 15 Mar is 1 month (to 28 Feb) and 15 days.
    const t = 1 / 12 + 15 / 365;
    const odd = computeSchedule(installments(2, { fixedFeeCents: 600 }), 30_000, '2026-01-31', { secondInstallmentDate: '2026-03-15' });
    expect(odd.taeg).toBe(Math.round(((15_000 / 14_400) ** (1 / t) - 1) * 10_000) / 100);
  });

  it('a later second share lowers the TAEG of the same fees, and the funding cap still measures the credit', () => {
    const terms = installments(3, { feeRateBps: 150 });
    const plain = computeSchedule(terms, 30_000, '2026-01-31');
    const later = computeSchedule(terms, 30_000, '2026-01-31', { secondInstallmentDate: '2026-06-30' });
    expect(later.INSTALLMENT[0]!.fees).toBe(plain.INSTALLMENT[0]!.fees);
    expect(later.taeg).toBeLessThan(plain.taeg);
    expect(refusal(() => computeSchedule(installments(3, { fundingCapCents: 19_999 }), 30_000, '2026-01-31', { secondInstallmentDate: '2026-06-30' }))?.code).toBe(
      'amount_above_funding_cap',
    );
  });
});

describe('deferredDate', () => {
  const created = '2026-01-31';

  it('without it: created + the offer’s days; with it: that day, and the TAEG counts its days/365', () => {
    expect(computeSchedule(deferred(30), 30_000, created).INSTALLMENT[0]!.payment_date).toBe('2026-03-02');
    const s = computeSchedule(deferred(30, { fixedFeeCents: 300 }), 30_000, created, { deferredDate: '2026-02-10' });
    expect(s.INSTALLMENT).toEqual([{ amount_cents: 30_000, fees: 300, payment_date: '2026-02-10' }]);
    expect(s.taeg).toBe(Math.round(((30_300 / 30_000) ** (365 / 10) - 1) * 10_000) / 100);
  });

  it('the latest allowed day is accepted; a later one, the created day or an earlier one is refused naming the date', () => {
    expect(computeSchedule(deferred(30), 30_000, created, { deferredDate: '2026-03-02' }).INSTALLMENT[0]!.payment_date).toBe('2026-03-02');
    expect(refusal(() => computeSchedule(deferred(30), 30_000, created, { deferredDate: '2026-03-03' }))).toEqual({
      code: 'invalid_deferred_date',
      message: 'the deferred payment date 2026-03-03 is after the latest this offer allows, 2026-03-02 (created + 30 days)',
    });
    for (const date of [created, '2026-01-30', '2025-12-01'])
      expect(refusal(() => computeSchedule(deferred(30), 30_000, created, { deferredDate: date }))?.code).toBe('invalid_deferred_date');
    expect(refusal(() => computeSchedule(deferred(30), 30_000, created, { deferredDate: '2026-02-30' }))?.code).toBe('invalid_deferred_date');
  });

  it('is ignored by an INSTALLMENTS offer', () => {
    expect(computeSchedule(installments(3), 30_000, created, { deferredDate: '2026-02-10' })).toEqual(computeSchedule(installments(3), 30_000, created));
  });

  it('a DEFERRED offer answers its payment also as DEFERRED; an installment plan has no DEFERRED', () => {
    const s = computeSchedule(deferred(30, { feeRateBps: 100 }), 30_000, created, { deferredDate: '2026-02-15' });
    expect(s.DEFERRED).toEqual({ amount_cents: 30_000, fees: 300, payment_date: '2026-02-15' });
    expect(s.DEFERRED).toEqual(s.INSTALLMENT[0]);
    expect(computeSchedule(installments(3), 30_000, created)).not.toHaveProperty('DEFERRED');
  });
});

describe('requested dates: properties', () => {
  const day = fc.integer({ min: 0, max: 36_500 }).map((days) => addDays('2000-01-01', days));

  it('any second date up to 12 months: shares sum to the amount, fees only at checkout, dates rise and stay within 12 months, monthly from the requested date', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1_250, max: 100_000_000 }), day, fc.integer({ min: 1, max: 366 }), (n, amount, created, offset) => {
        const second = addDays(created, offset);
        const latest = addMonthsClamped(created, 12);
        const outcome = refusal(() => computeSchedule(installments(n, { feeRateBps: 150 }), amount, created, { secondInstallmentDate: second }));
        if (second > latest) {
          expect(outcome?.code).toBe('invalid_second_installment_date');
          return;
        }
        const s = computeSchedule(installments(n, { feeRateBps: 150 }), amount, created, { secondInstallmentDate: second });
        expect(s.INSTALLMENT.reduce((sum, l) => sum + l.amount_cents, 0)).toBe(amount);
        expect(s.INSTALLMENT.slice(1).every((l) => l.fees === 0)).toBe(true);
        expect(s.INSTALLMENT.length).toBeLessThanOrEqual(n);
        s.INSTALLMENT.forEach((line, k) => {
          expect(line.payment_date).toBe(k === 0 ? created : addMonthsClamped(second, k - 1));
          expect(line.payment_date <= latest).toBe(true);
          if (k > 0) expect(line.payment_date > s.INSTALLMENT[k - 1]!.payment_date).toBe(true);
        });
        // Only the last line can hold merged shares; no share that fits was moved.
        if (s.INSTALLMENT.length < n) expect(addMonthsClamped(second, s.INSTALLMENT.length - 1) > latest).toBe(true);
      }),
    );
  });
});
