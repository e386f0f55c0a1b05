import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MERCHANT_PARAMETER_DEFAULTS, type Offer } from '../../src/accounts/offer.ts';
import { ScheduleMemo } from '../../src/accounts/schedule-memo.ts';
import { offerTerms } from '../../src/domain/offer-terms.ts';
import { computeSchedule, ScheduleError } from '../../src/domain/schedule.ts';
import { addDays } from '../../src/domain/dates.ts';

const offer = (overrides: Partial<Offer> = {}): Offer => ({
  id: '0b7e6a52-3c1d-4f7e-9a40-6f1e2d3c4b5a',
  accountId: '6f1e2d3c-4b5a-4f7e-9a40-0b7e6a523c1d',
  type: 'INSTALLMENTS',
  installments: 3,
  deferredDays: 0,
  depositPercent: null,
  maxBalanceDelayDays: null,
  currency: 'EUR',
  minAmountCents: 100,
  maxAmountCents: 10_000_000,
  accountName: 'Test Shop',
  accountTimeZone: 'Europe/Paris',
  accountCountry: null,
  psp: 'sandbox',
  pspAccountId: null,
  paymentMode: 'back',
  commissionBps: 0,
  commissionFixedCents: 0,
  maxAttempts: 3,
  potDeadlineHours: 72,
  expiryHours: 24,
  feeRateBps: 150,
  fixedFeeCents: 0,
  debitRateBps: 0,
  fundingCapCents: null,
  usuryCeilingBps: null,
  pspEnvironment: null,
  creditLender: null,
  lender: 'Test Shop',
  withdrawalDays: null,
  ...MERCHANT_PARAMETER_DEFAULTS,
  ...overrides,
});

/** The schedule, or the code of the refusal. */
const outcome = (run: () => unknown): unknown => {
  try {
    return run();
  } catch (error) {
    if (error instanceof ScheduleError) return error.code;
    throw error;
  }
};

const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

describe('schedule memo', () => {
  it('answers what computeSchedule answers (schedule or refusal), first time and again, for any amount, day and offer', () => {
    const memo = new ScheduleMemo();
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000 }),
        day,
        fc.constantFrom(2, 3, 4, 10),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
        (amount, created, n, feeRateBps, fixedFeeCents, secondAfter) => {
          const o = offer({ installments: n, feeRateBps, fixedFeeCents });
          // A requested second date is part of what is remembered: the same amount and day with another date is another schedule.
          const dates = secondAfter === undefined ? {} : { secondInstallmentDate: addDays(created, secondAfter) };
          const expected = outcome(() => computeSchedule(offerTerms(o), amount, created, dates));
          expect(outcome(() => memo.schedule(o, amount, created, dates))).toEqual(expected);
          expect(outcome(() => memo.schedule(o, amount, created, dates))).toEqual(expected);
          expect(outcome(() => memo.schedule(o, amount, created))).toEqual(outcome(() => computeSchedule(offerTerms(o), amount, created)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same schedule object again for the same offer object, amount and day, and one nobody can alter', () => {
    const memo = new ScheduleMemo();
    const o = offer();
    const first = memo.schedule(o, 30_000, '2026-01-31');
    expect(memo.schedule(o, 30_000, '2026-01-31')).toBe(first);
    expect(memo.schedule(o, 30_001, '2026-01-31')).not.toBe(first);
    expect(() => {
      (first.INSTALLMENT[0] as { fees: number }).fees = 0;
    }).toThrow(TypeError);
    expect(memo.schedule(o, 30_000, '2026-01-31').INSTALLMENT[0]!.fees).toBe(450);
  });

  it('computes again under a reloaded offer object (same id), so edited terms show at once, and keeps the newer', () => {
    const memo = new ScheduleMemo();
    const edited = offer({ feeRateBps: 300 });
    const before = memo.schedule(offer({ feeRateBps: 150 }), 30_000, '2026-01-31');
    const after = memo.schedule(edited, 30_000, '2026-01-31');
    expect(before.INSTALLMENT[0]!.fees).toBe(450);
    expect(after.INSTALLMENT[0]!.fees).toBe(900);
    expect(memo.schedule(edited, 30_000, '2026-01-31')).toBe(after);
  });

  it('keeps no refusal: an amount below the minimum throws every time', () => {
    const memo = new ScheduleMemo();
    const o = offer({ minAmountCents: 5_000 });
    for (let i = 0; i < 2; i++) {
      expect(() => memo.schedule(o, 4_999, '2026-01-31')).toThrow(ScheduleError);
    }
  });

  it('holds at most its bound in all, whatever the offers, dropping the oldest first', () => {
    const memo = new ScheduleMemo(2);
    const o = offer();
    const other = offer({ id: '9c1d3e5f-7a2b-4c6d-8e0f-1a3b5c7d9e2f' });
    const a = memo.schedule(o, 10_000, '2026-01-31');
    const b = memo.schedule(other, 20_000, '2026-01-31');
    memo.schedule(o, 30_000, '2026-01-31'); // drops a
    expect(memo.schedule(other, 20_000, '2026-01-31')).toBe(b);
    const again = memo.schedule(o, 10_000, '2026-01-31');
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
  });
});
