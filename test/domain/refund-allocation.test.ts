import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { largestRemainder, planRefund, refundableCents, type RefundSource, type UncollectedInstallment } from '../../src/domain/refund-allocation.ts';

describe('largestRemainder', () => {
  it('splits to the cent: Σ = amount, no part above its weight, each within one cent of its exact share', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000_000_000 }), { minLength: 1, maxLength: 12 }), fc.double({ min: 0, max: 1, noNaN: true }), (weights, f) => {
        const total = weights.reduce((s, w) => s + w, 0);
        const amount = Math.floor(total * f);
        const parts = largestRemainder(amount, weights);
        expect(parts.reduce((s, p) => s + p, 0)).toBe(amount);
        parts.forEach((p, i) => {
          expect(Number.isInteger(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(weights[i]!);
          if (total > 0) expect(Math.abs(p - (amount * weights[i]!) / total)).toBeLessThan(1);
        });
      }),
    );
  });

  it('gives the cent left to the largest remainder (7,000 : 2,000 : 1,000 of 1,001)', () => {
    expect(largestRemainder(1_001, [7_000, 2_000, 1_000])).toEqual([701, 200, 100]);
    expect(largestRemainder(1, [1, 1, 1])).toEqual([1, 0, 0]);
    expect(largestRemainder(0, [5, 5])).toEqual([0, 0]);
  });
});

describe('planRefund', () => {
  it('lowers uncollected installments from the last, then refunds captured money newest first', () => {
    const sources: RefundSource[] = [
      { paymentId: 'p0', payer: 'leader', refundableCents: 10_450 },
      { paymentId: 'p1', payer: 'leader', refundableCents: 10_000 },
    ];
    const uncollected: UncollectedInstallment[] = [{ installmentId: 'i2', index: 2, dueCents: 10_000 }];
    const plan = planRefund(12_000, sources, uncollected);
    expect(plan).toEqual({
      ok: true,
      allocations: [
        { kind: 'installment', installmentId: 'i2', payer: 'leader', amountCents: 10_000, remainingCents: 0 },
        { kind: 'refund', paymentId: 'p1', payer: 'leader', amountCents: 2_000 },
      ],
    });
    expect(planRefund(30_451, sources, uncollected)).toEqual({ ok: false, refundableCents: 30_450 });
    expect(planRefund(0, sources, uncollected)).toMatchObject({ ok: false });
    expect(planRefund(1.5, sources, uncollected)).toMatchObject({ ok: false });
  });

  /**
   * Random pots (a leader with one or two payments, up to 6 pledgers, maybe installments left to
   * collect) and random sequences of refund requests, some too large: for every payer, Σ captured −
   * Σ refunded never goes negative, and the sums over payers are what the merchant keeps.
   */
  it('over random pots and refund sequences, what each payer has left is never negative and sums to what the merchant keeps', () => {
    const pot = fc.record({
      leader: fc.array(fc.integer({ min: 1, max: 500_000 }), { minLength: 1, maxLength: 2 }),
      pledgers: fc.array(fc.integer({ min: 1, max: 200_000 }), { maxLength: 6 }),
      installments: fc.array(fc.integer({ min: 1, max: 100_000 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(pot, fc.array(fc.integer({ min: -10, max: 1_500_000 }), { minLength: 1, maxLength: 15 }), (p, requests) => {
        type Paid = { paymentId: string; payer: 'leader' | 'pledger'; pledgeId?: string; captured: number; refunded: number };
        const payments: Paid[] = [
          ...p.leader.map((c, i) => ({ paymentId: `L${i}`, payer: 'leader' as const, captured: c, refunded: 0 })),
          ...p.pledgers.map((c, i) => ({ paymentId: `P${i}`, payer: 'pledger' as const, pledgeId: `pl${i}`, captured: c, refunded: 0 })),
        ];
        const due = p.installments.map((d, i) => ({ installmentId: `I${i}`, index: i + 1, dueCents: d }));
        const captured = payments.reduce((s, x) => s + x.captured, 0);
        let accepted = 0;
        for (const asked of requests) {
          const sources: RefundSource[] = payments.map((x) => ({
            paymentId: x.paymentId,
            payer: x.payer,
            ...(x.pledgeId ? { pledgeId: x.pledgeId } : {}),
            refundableCents: x.captured - x.refunded,
          }));
          const uncollected = due.filter((d) => d.dueCents > 0);
          const before = refundableCents(sources, uncollected);
          const plan = planRefund(asked, sources, uncollected);
          if (!plan.ok) {
            expect(asked <= 0 || asked > before).toBe(true);
            continue;
          }
          expect(plan.allocations.reduce((s, a) => s + a.amountCents, 0)).toBe(asked);
          for (const a of plan.allocations) {
            expect(a.amountCents).toBeGreaterThan(0);
            if (a.kind === 'installment') due.find((d) => d.installmentId === a.installmentId)!.dueCents -= a.amountCents;
            else {
              payments.find((x) => x.paymentId === a.paymentId)!.refunded += a.amountCents;
              accepted += a.amountCents;
            }
          }
          // Installments are lowered before any money goes back.
          if (plan.allocations.some((a) => a.kind === 'refund')) expect(due.every((d) => d.dueCents === 0)).toBe(true);
          for (const d of due) expect(d.dueCents).toBeGreaterThanOrEqual(0);
          for (const x of payments) expect(x.captured - x.refunded).toBeGreaterThanOrEqual(0);
          const kept = payments.reduce((s, x) => s + (x.captured - x.refunded), 0);
          expect(kept).toBe(captured - accepted);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("on a pot, each contributor's share of a refund is proportional to what they have left, within a cent", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 2, maxLength: 8 }), fc.double({ min: 0, max: 1, noNaN: true }), (paid, f) => {
        const total = paid.reduce((s, x) => s + x, 0);
        const amount = Math.max(1, Math.floor(total * f));
        const sources: RefundSource[] = paid.map((c, i) =>
          i === 0 ? { paymentId: 'L', payer: 'leader', refundableCents: c } : { paymentId: `P${i}`, payer: 'pledger', pledgeId: `pl${i}`, refundableCents: c },
        );
        const plan = planRefund(amount, sources, []);
        if (!plan.ok) throw new Error('refused');
        for (const a of plan.allocations) {
          const i = paid.findIndex((_, j) => sources[j]!.paymentId === (a as { paymentId: string }).paymentId);
          expect(Math.abs(a.amountCents - (amount * paid[i]!) / total)).toBeLessThan(1);
        }
      }),
    );
  });
});
