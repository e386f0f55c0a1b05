import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aprPercent, solveApr } from '../../src/domain/apr.ts';
import { computeSchedule, depositCents, feeCents, ScheduleError, taegFlows, type OfferTerms, type ScheduleErrorCode } from '../../src/domain/schedule.ts';
import { addDays } from '../../src/domain/dates.ts';

// A down payment (docs/schedules.md#down-payment): a deposit at checkout, the balance on a later date.

const downPayment = (depositPercent: number, maxBalanceDelayDays: number, overrides: Partial<OfferTerms> = {}): OfferTerms => ({
  type: 'DOWN_PAYMENT',
  installments: 2,
  deferredDays: 0,
  depositPercent,
  maxBalanceDelayDays,
  feeRateBps: 0,
  fixedFeeCents: 0,
  minAmountCents: 1,
  maxAmountCents: Number.MAX_SAFE_INTEGER,
  fundingCapCents: null,
  debitRateBps: 0,
  usuryCeilingBps: null,
  ...overrides,
});

const refusal = (run: () => unknown): { code: ScheduleErrorCode; message: string } | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof ScheduleError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
};

describe('down payment: worked examples', () => {
  it('the default offer (30 %, 60 days, free): 90.00 at checkout, 210.00 sixty days later, TAEG 0', () => {
    expect(computeSchedule(downPayment(30, 60), 30_000, '2026-01-31')).toEqual({
      INSTALLMENT: [
        { amount_cents: 9_000, fees: 0, payment_date: '2026-01-31' },
        { amount_cents: 21_000, fees: 0, payment_date: '2026-04-01' },
      ],
      debit_rate: 0,
      taeg: 0,
    });
  });

  it('fees sit on the deposit, computed on the whole amount as for installments; the TAEG counts the balance as the credit, on days/365', () => {
    const s = computeSchedule(downPayment(30, 60, { feeRateBps: 150 }), 30_000, '2026-01-31');
    expect(s.INSTALLMENT).toEqual([
      { amount_cents: 9_000, fees: 450, payment_date: '2026-01-31' },
      { amount_cents: 21_000, fees: 0, payment_date: '2026-04-01' },
    ]);
    // 210.00 − 4.50 = 210.00 / (1 + X)^(60/365)
    expect(s.taeg).toBe(14.09);
    expect(Math.abs(s.taeg / 100 - ((210 / 205.5) ** (365 / 60) - 1))).toBeLessThan(0.00005);
    expect(taegFlows(downPayment(30, 60, { feeRateBps: 150 }), 30_000, s.INSTALLMENT, '2026-01-31')).toEqual([
      { date: '2026-01-31', amount: 21_000 },
      { date: '2026-01-31', amount: -450 },
      { date: '2026-04-01', amount: -21_000 },
    ]);
  });

  it('an earlier balance date asked for: the same fees over a shorter credit, a higher TAEG', () => {
    const s = computeSchedule(downPayment(30, 60, { feeRateBps: 150 }), 30_000, '2026-01-31', { balanceDate: '2026-03-02' });
    expect(s.INSTALLMENT[1]).toEqual({ amount_cents: 21_000, fees: 0, payment_date: '2026-03-02' });
    expect(s.taeg).toBe(30.15);
  });

  it('no DEFERRED object: the plugins read INSTALLMENT, and a down payment is two lines', () => {
    expect(computeSchedule(downPayment(30, 60), 30_000, '2026-01-31')).not.toHaveProperty('DEFERRED');
  });
});

describe('down payment: the deposit and its rounding', () => {
  it('deposit = percent × amount rounded half up to the cent; the balance is the rest', () => {
    expect(depositCents(30, 333)).toBe(100); // 99.9
    expect(depositCents(35, 101)).toBe(35); // 35.35
    expect(depositCents(50, 101)).toBe(51); // 50.5: half up
    expect(depositCents(50, 99)).toBe(50); // 49.5: half up
    expect(computeSchedule(downPayment(50, 10), 101, '2026-01-31').INSTALLMENT.map((l) => l.amount_cents)).toEqual([51, 50]);
  });

  it('at least 1 cent each side: a 2-cent purchase is 1 + 1 at 1 % and at 99 %; 1 cent is too small for a down payment', () => {
    expect(depositCents(1, 2)).toBe(1);
    expect(depositCents(99, 2)).toBe(1);
    expect(depositCents(99, 100)).toBe(99);
    expect(depositCents(1, 49)).toBe(1); // 0.49 would round to 0
    expect(depositCents(98, 25)).toBe(24); // 24.5 would round to 25, leaving no balance
    expect(refusal(() => computeSchedule(downPayment(30, 60), 1, '2026-01-31'))).toEqual({
      code: 'amount_below_minimum',
      message: 'amount 1 is too small for a down payment: the deposit and the balance need at least 1 cent each',
    });
  });

  it('large amounts stay exact: 99,999,999.99 at 33 %', () => {
    const lines = computeSchedule(downPayment(33, 30, { feeRateBps: 150 }), 9_999_999_999, '2026-01-31').INSTALLMENT;
    expect(lines.map((l) => [l.amount_cents, l.fees])).toEqual([
      [3_300_000_000, 150_000_000],
      [6_699_999_999, 0],
    ]);
  });
});

describe('down payment: the balance date', () => {
  const terms = downPayment(30, 60);
  const asked = (balanceDate: string) => refusal(() => computeSchedule(terms, 30_000, '2026-01-31', { balanceDate }));

  it('without a date asked, the latest the offer allows: created + the maximum delay', () => {
    expect(computeSchedule(terms, 30_000, '2026-01-31').INSTALLMENT[1]!.payment_date).toBe(addDays('2026-01-31', 60));
  });

  it('a date asked within (created, created + max delay] is the balance date, both ends of the range included where allowed', () => {
    expect(computeSchedule(terms, 30_000, '2026-01-31', { balanceDate: '2026-02-01' }).INSTALLMENT[1]!.payment_date).toBe('2026-02-01');
    expect(computeSchedule(terms, 30_000, '2026-01-31', { balanceDate: '2026-04-01' }).INSTALLMENT[1]!.payment_date).toBe('2026-04-01');
  });

  it('on or before created, or after the latest, is refused as invalid_balance_payment_date, naming the allowed range; never moved', () => {
    expect(asked('2026-01-31')).toEqual({ code: 'invalid_balance_payment_date', message: 'the balance payment date 2026-01-31 must be after created 2026-01-31' });
    expect(asked('2025-12-31')?.code).toBe('invalid_balance_payment_date');
    expect(asked('2026-04-02')).toEqual({
      code: 'invalid_balance_payment_date',
      message: 'the balance payment date 2026-04-02 is after the latest this offer allows, 2026-04-01 (created + 60 days, the maximum balance payment delay)',
    });
  });

  it('a date that is not a real yyyy-mm-dd date is refused whatever the offer type; another type ignores a real one', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '01/03/2026', '2026-3-1', '']) expect(asked(bad)?.code).toBe('invalid_balance_payment_date');
    const threeX: OfferTerms = { ...terms, type: 'INSTALLMENTS', installments: 3 };
    expect(refusal(() => computeSchedule(threeX, 30_000, '2026-01-31', { balanceDate: '2026-02-30' }))?.code).toBe('invalid_balance_payment_date');
    expect(computeSchedule(threeX, 30_000, '2026-01-31', { balanceDate: '2026-02-15' })).toEqual(computeSchedule(threeX, 30_000, '2026-01-31'));
  });

  it('a balance date so close that the fees make no computable annual rate is refused, naming the date', () => {
    const costly = downPayment(1, 60, { feeRateBps: 9_000 });
    expect(asked('2026-02-01')).toBeUndefined();
    expect(refusal(() => computeSchedule(costly, 30_000, '2026-01-31', { balanceDate: '2026-02-01' }))).toEqual({
      code: 'invalid_balance_payment_date',
      message: 'the balance payment date 2026-02-01 is too soon for this credit: no annual rate can be computed',
    });
  });
});

describe('down payment: limits and terms', () => {
  it('the funding cap is measured on the balance (the credit)', () => {
    expect(refusal(() => computeSchedule(downPayment(30, 60, { fundingCapCents: 21_000 }), 30_000, '2026-01-31'))).toBeUndefined();
    expect(refusal(() => computeSchedule(downPayment(30, 60, { fundingCapCents: 20_999 }), 30_000, '2026-01-31'))?.code).toBe('amount_above_funding_cap');
  });

  it('fees at checkout as large as the balance leave no TAEG: amount_below_minimum', () => {
    expect(refusal(() => computeSchedule(downPayment(99, 60, { fixedFeeCents: 100 }), 10_000, '2026-01-31'))?.code).toBe('amount_below_minimum');
  });

  it('the usury ceiling applies to the TAEG as for the other types', () => {
    expect(refusal(() => computeSchedule(downPayment(30, 60, { feeRateBps: 150, usuryCeilingBps: 1_409 }), 30_000, '2026-01-31'))).toBeUndefined();
    expect(refusal(() => computeSchedule(downPayment(30, 60, { feeRateBps: 150, usuryCeilingBps: 1_408 }), 30_000, '2026-01-31'))?.code).toBe('usury_ceiling_exceeded');
  });

  it('a deposit outside 1..99 % or a maximum delay outside 1..365 days is a configuration bug (RangeError), not the customer’s', () => {
    for (const [percent, days] of [
      [0, 60],
      [100, 60],
      [30.5, 60],
      [30, 0],
      [30, 366],
    ] as const) {
      expect(() => computeSchedule(downPayment(percent, days), 30_000, '2026-01-31')).toThrow(RangeError);
    }
    expect(() => computeSchedule({ ...downPayment(30, 60), depositPercent: null }, 30_000, '2026-01-31')).toThrow(RangeError);
  });
});

describe('down payment: properties', () => {
  const created = fc.integer({ min: 0, max: 36_500 }).map((days) => addDays('2000-01-01', days));
  const percent = fc.integer({ min: 1, max: 99 });
  const delay = fc.integer({ min: 1, max: 365 });
  const amount = fc.integer({ min: 2, max: 100_000_000_00 });
  const fees = fc.record({ feeRateBps: fc.integer({ min: 0, max: 1_000 }), fixedFeeCents: fc.integer({ min: 0, max: 500 }) });

  it('deposit + balance = amount exactly, each at least 1 cent, the deposit within half a cent of percent × amount unless a side would be empty', () => {
    fc.assert(
      fc.property(percent, delay, fc.integer({ min: 2, max: Number.MAX_SAFE_INTEGER }), created, (p, days, amountCents, day) => {
        const [deposit, balance] = computeSchedule(downPayment(p, days), amountCents, day).INSTALLMENT;
        expect(deposit!.amount_cents + balance!.amount_cents).toBe(amountCents);
        expect(deposit!.amount_cents).toBeGreaterThanOrEqual(1);
        expect(balance!.amount_cents).toBeGreaterThanOrEqual(1);
        // 100 × deposit − percent × amount in (−50, 50], in BigInt: exact beyond 2^53.
        const exact = BigInt(p) * BigInt(amountCents);
        const gap = 100n * BigInt(deposit!.amount_cents) - exact;
        // Clamped when rounding half up would leave a side empty: below half a cent, or at or above the amount less half a cent
        // (98 % of 25 cents is 24.5, rounded to 25: the deposit is 24, half a cent off, the balance 1).
        const clamped = exact < 50n || exact >= 100n * BigInt(amountCents) - 50n;
        if (!clamped) expect(gap > -50n && gap <= 50n).toBe(true);
      }),
    );
  });

  it('fees are exact: the offer’s fee on the whole amount, all on the deposit; none on the balance', () => {
    fc.assert(
      fc.property(percent, delay, fees, fc.integer({ min: 1_250, max: 100_000_000_00 }), created, (p, days, fee, amountCents, day) => {
        // The fees must stay below the balance for a TAEG to exist: a deposit of at most 50 % leaves half the amount.
        const terms = downPayment(Math.min(p, 50), days, fee);
        // Even then a short credit can carry fees with no annual rate (46 %, 1 day, 6.44 % + 4.93 on 12.50):
        // such a schedule does not exist and is refused as too small, which the TAEG property below checks.
        const refused = refusal(() => computeSchedule(terms, amountCents, day));
        if (refused) return expect(refused.code).toBe('amount_below_minimum');
        const [deposit, balance] = computeSchedule(terms, amountCents, day).INSTALLMENT;
        const expected = Number((BigInt(fee.feeRateBps) * BigInt(amountCents) + 5_000n) / 10_000n) + fee.fixedFeeCents;
        expect(deposit!.fees).toBe(expected);
        expect(deposit!.fees).toBe(feeCents(fee, amountCents));
        expect(balance!.fees).toBe(0);
      }),
    );
  });

  it('date rules: the deposit is due on created; a balance date k days after created is accepted exactly when 1 ≤ k ≤ the maximum delay, and then used as is', () => {
    fc.assert(
      fc.property(percent, delay, fc.integer({ min: -400, max: 400 }), amount, created, (p, days, k, amountCents, day) => {
        const balanceDate = addDays(day, k);
        const outcome = refusal(() => computeSchedule(downPayment(p, days), amountCents, day, { balanceDate }));
        if (k >= 1 && k <= days) {
          expect(outcome).toBeUndefined();
          const lines = computeSchedule(downPayment(p, days), amountCents, day, { balanceDate }).INSTALLMENT;
          expect(lines.map((l) => l.payment_date)).toEqual([day, balanceDate]);
        } else {
          expect(outcome?.code).toBe('invalid_balance_payment_date');
        }
        expect(computeSchedule(downPayment(p, days), amountCents, day).INSTALLMENT.map((l) => l.payment_date)).toEqual([day, addDays(day, days)]);
      }),
    );
  });

  it('a small amount whose fees over a 1-day balance give no annual rate is refused as too small for the offer, not a RangeError (fast-check counterexample)', () => {
    expect(refusal(() => computeSchedule(downPayment(42, 1, { feeRateBps: 980, fixedFeeCents: 493 }), 1_250, '2000-01-01'))).toMatchObject({ code: 'amount_below_minimum' });
  });

  it('the TAEG is the rate of the flows (credit = balance): 0 without fees, else the root of their present value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), delay, fees, fc.integer({ min: 1_250, max: 100_000_000_00 }), created, (p, days, fee, amountCents, day) => {
        const terms = downPayment(p, days, fee);
        const refused = refusal(() => computeSchedule(terms, amountCents, day));
        // Fees so large over so short a credit that no annual rate exists: refused, never a RangeError.
        if (refused) return expect(refused).toMatchObject({ code: 'amount_below_minimum', message: expect.stringMatching(/no computable annual rate/) });
        const s = computeSchedule(terms, amountCents, day);
        const flows = taegFlows(terms, amountCents, s.INSTALLMENT, day);
        expect(flows[0]).toEqual({ date: day, amount: s.INSTALLMENT[1]!.amount_cents });
        if (s.INSTALLMENT[0]!.fees === 0) expect(s.taeg).toBe(0);
        else expect(s.taeg).toBe(aprPercent(solveApr(flows, 'actual365')));
      }),
    );
  });
});
