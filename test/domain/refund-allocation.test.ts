import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chargebackTakes,
  disputedCents,
  everythingCents,
  largestRemainder,
  planRefund,
  refundableCents,
  sourceRefundableCents,
  type RefundSource,
  type UncollectedInstallment,
} from '../../src/domain/refund-allocation.ts';

/** A captured payment nothing was given back on yet. */
const paidSource = (paymentId: string, payer: 'leader' | 'pledger', cents: number, pledgeId?: string): RefundSource => ({
  paymentId,
  payer,
  ...(pledgeId ? { pledgeId } : {}),
  capturedCents: cents,
  refundedCents: 0,
  chargedBackCents: 0,
  chargebackOpen: false,
});

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
    const sources: RefundSource[] = [paidSource('p0', 'leader', 10_450), paidSource('p1', 'leader', 10_000)];
    const uncollected: UncollectedInstallment[] = [{ installmentId: 'i2', index: 2, dueCents: 10_000 }];
    const plan = planRefund(12_000, sources, uncollected);
    expect(plan).toEqual({
      ok: true,
      allocations: [
        { kind: 'installment', installmentId: 'i2', payer: 'leader', amountCents: 10_000, remainingCents: 0 },
        { kind: 'refund', paymentId: 'p1', payer: 'leader', amountCents: 2_000 },
      ],
    });
    expect(planRefund(30_451, sources, uncollected)).toEqual({ ok: false, reason: 'amount', refundableCents: 30_450, disputedCents: 0 });
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
          const sources: RefundSource[] = payments.map((x) => ({ ...paidSource(x.paymentId, x.payer, x.captured, x.pledgeId), refundedCents: x.refunded }));
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
        const sources: RefundSource[] = paid.map((c, i) => (i === 0 ? paidSource('L', 'leader', c) : paidSource(`P${i}`, 'pledger', c, `pl${i}`)));
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

/**
 * Refunds and disputes on the same payments (docs/money-operations.md#refunds-and-disputes): what
 * a payment gives back, by refunds and lost chargebacks together, never exceeds what it captured;
 * nothing is refunded on a payment while a chargeback is open on it.
 */
describe('refunds and chargebacks', () => {
  it('chargebackTakes: each lost chargeback takes at most what its payment still held after the refunds and the chargebacks before it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_200_000 }),
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000_000 })), { maxLength: 5 }),
        (captured, refunded, lost) => {
          const takes = chargebackTakes(captured, refunded, lost);
          const total = takes.reduce((s, t) => s + t, 0);
          expect(total).toBe(
            Math.min(
              lost.reduce((s, l) => s + l, 0),
              Math.max(0, captured - refunded),
            ),
          );
          let left = Math.max(0, captured - refunded);
          takes.forEach((t, i) => {
            expect(t).toBe(Math.min(lost[i]!, left));
            left -= t;
          });
          expect(Math.min(refunded, captured) + total).toBeLessThanOrEqual(captured);
        },
      ),
    );
    // The audit's case: refunded in full, then charged back in full: the chargeback takes nothing.
    expect(chargebackTakes(276_257, 276_257, [276_257])).toEqual([0]);
    expect(chargebackTakes(276_257, 100_000, [276_257, 50_000])).toEqual([176_257, 0]);
    expect(chargebackTakes(276_257, 100_000, [0, 50_000])).toEqual([0, 50_000]);
  });

  it('a payment with a chargeback open is held whole: refundable 0, counted as disputed', () => {
    const held: RefundSource = { ...paidSource('L', 'leader', 10_000), refundedCents: 2_000, chargebackOpen: true };
    expect(sourceRefundableCents(held)).toBe(0);
    expect(disputedCents([held])).toBe(8_000);
    const lost: RefundSource = { ...paidSource('L', 'leader', 10_000), refundedCents: 2_000, chargedBackCents: 9_000 };
    expect(sourceRefundableCents(lost)).toBe(0);
    expect(sourceRefundableCents({ ...lost, chargedBackCents: 3_000 })).toBe(5_000);
    expect(planRefund(1, [held], [])).toEqual({ ok: false, reason: 'charge_disputed', refundableCents: 0, disputedCents: 8_000 });
    expect(planRefund(8_001, [held], [])).toMatchObject({ ok: false, reason: 'amount' });
    // A pot: the pledger's 3,000 is served around the leader's disputed payment.
    const pot = [held, paidSource('P', 'pledger', 3_000, 'pl')];
    expect(planRefund(3_000, pot, [])).toEqual({ ok: true, allocations: [{ kind: 'refund', paymentId: 'P', payer: 'pledger', pledgeId: 'pl', amountCents: 3_000 }] });
    expect(planRefund(3_001, pot, [])).toMatchObject({ ok: false, reason: 'charge_disputed', refundableCents: 3_000, disputedCents: 8_000 });
    expect(everythingCents(pot, [])).toBe(11_000);
  });

  /**
   * Random payments through random events (refunds asked, chargebacks opened on one of them, won,
   * lost with an amount as the PSP tells it, possibly more than is left): per payment, Σ refunded
   * + Σ what lost chargebacks take stays within what it captured; nothing is refunded on a payment
   * while a chargeback is open on it; a refusal is `charge_disputed` exactly when what is asked fits
   * with the disputed payments only.
   */
  it('over random refunds and chargebacks, no payment ever gives back more than it captured, and none is refunded while disputed', () => {
    type Event = { kind: 'refund'; asked: number } | { kind: 'everything' } | { kind: 'open' | 'win'; who: number } | { kind: 'lose'; who: number; told: number };
    const event: fc.Arbitrary<Event> = fc.oneof(
      fc.record({ kind: fc.constant('refund' as const), asked: fc.integer({ min: -5, max: 600_000 }) }),
      fc.record({ kind: fc.constant('everything' as const) }),
      fc.record({ kind: fc.constantFrom('open' as const, 'win' as const), who: fc.nat(6) }),
      fc.record({ kind: fc.constant('lose' as const), who: fc.nat(6), told: fc.integer({ min: 1, max: 400_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300_000 }), { minLength: 1, maxLength: 5 }), fc.array(event, { minLength: 1, maxLength: 25 }), (paid, events) => {
        type Payment = { source: RefundSource; refunded: number; disputes: { state: 'open' | 'won' | 'lost'; told: number }[] };
        const payments: Payment[] = paid.map((c, i) => ({
          source: i === 0 ? paidSource('L', 'leader', c) : paidSource(`P${i}`, 'pledger', c, `pl${i}`),
          refunded: 0,
          disputes: [],
        }));
        /** The sources as refundSources reads them: lost chargebacks as told, an open one holding the payment. */
        const sources = (): RefundSource[] =>
          payments.map((p) => ({
            ...p.source,
            refundedCents: p.refunded,
            chargedBackCents: p.disputes.filter((d) => d.state === 'lost').reduce((s, d) => s + d.told, 0),
            chargebackOpen: p.disputes.some((d) => d.state === 'open'),
          }));
        for (const e of events) {
          if (e.kind === 'refund' || e.kind === 'everything') {
            const now = sources();
            const refundable = refundableCents(now, []);
            const disputed = disputedCents(now);
            const asked = e.kind === 'refund' ? e.asked : everythingCents(now, []);
            const plan = planRefund(asked, now, []);
            if (!plan.ok) {
              expect(asked <= 0 || asked > refundable).toBe(true);
              expect(plan.reason).toBe(asked > refundable && asked <= refundable + disputed ? 'charge_disputed' : 'amount');
              if (e.kind === 'everything') expect(asked === 0 || disputed > 0).toBe(true);
              continue;
            }
            expect(plan.allocations.reduce((s, a) => s + a.amountCents, 0)).toBe(asked);
            for (const a of plan.allocations) {
              const p = payments.find((x) => x.source.paymentId === (a as { paymentId: string }).paymentId)!;
              expect(
                p.disputes.some((d) => d.state === 'open'),
                'never refunded while a chargeback is open on it',
              ).toBe(false);
              p.refunded += a.amountCents;
            }
          } else {
            const p = payments[e.who % payments.length]!;
            const open = p.disputes.find((d) => d.state === 'open');
            if (e.kind === 'open') {
              if (!open) p.disputes.push({ state: 'open', told: Math.max(0, p.source.capturedCents - p.refunded) });
            } else if (open) {
              open.state = e.kind === 'win' ? 'won' : 'lost';
              if (e.kind === 'lose') open.told = e.told;
            }
          }
          for (const p of payments) {
            const taken = chargebackTakes(
              p.source.capturedCents,
              p.refunded,
              p.disputes.map((d) => (d.state === 'lost' ? d.told : 0)),
            ).reduce((s, t) => s + t, 0);
            expect(p.refunded + taken, 'refunded + charged back').toBeLessThanOrEqual(p.source.capturedCents);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
