import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLeaderPurpose, LEADER_PURPOSES, leaderRefusedComment, planLeaderPayment, plannedCharges, type LeaderPlan } from '../../src/domain/leader-plan.ts';
import type { OfferRules } from '../../src/domain/offer-terms.ts';

const offer = (type: OfferRules['type'], over: Partial<OfferRules> = {}): OfferRules => ({
  type,
  installments: type === 'INSTALLMENTS' ? 3 : 1,
  deferredDays: type === 'DEFERRED' ? 30 : 0,
  feeRateBps: type === 'INSTALLMENTS' ? 150 : 0,
  fixedFeeCents: 0,
  minAmountCents: 100,
  maxAmountCents: 1_000_000,
  fundingCapCents: null,
  debitRateBps: 0,
  usuryCeilingBps: null,
  ...over,
});
const created = new Date('2025-03-10T15:00:00Z');
const plan = (o: OfferRules, amount: number, shares: number[] = []) => planLeaderPayment(o, amount, shares, created) as LeaderPlan;

describe("the leader's plan at checkout", () => {
  it('a leader paying a SHARED purchase alone has the whole amount captured', () => {
    expect(plan(offer('SHARED'), 10_000)).toEqual({ purpose: 'leader_share', authorizeCents: 10_000, capture: 'automatic', leaderShareCents: 10_000 });
  });

  it("with friends, only the friends' part is held as a guarantee: hold + leader's share = the amount, never more", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10_000_000 }), fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 20 }), (amount, shares) => {
        fc.pre(shares.reduce((a, b) => a + b, 0) < amount);
        const p = plan(offer('SHARED'), amount, shares);
        expect(p.purpose).toBe('guarantee');
        expect(p.capture).toBe('manual');
        expect(p.authorizeCents).toBe(shares.reduce((a, b) => a + b, 0));
        expect(p.authorizeCents + p.leaderShareCents).toBe(amount);
        expect(p.leaderShareCents + shares.reduce((a, b) => a + b, 0)).toBe(amount);
        expect(p.leaderShareCents).toBeGreaterThan(0);
      }),
    );
  });

  it('shares that leave the leader nothing are a problem, not a plan', () => {
    expect(planLeaderPayment(offer('SHARED'), 10_000, [5_000, 5_000], created)).toEqual({ problem: { code: 'leader_share_not_positive' } });
    expect(planLeaderPayment(offer('SHARED'), 10_000, [9_000, 2_000], created)).toEqual({ problem: { code: 'shares_exceed_amount' } });
  });

  it('INSTALLMENTS captures the first line with all the fees, and plans every line summing to the amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5_000, max: 300_000 }), (amount) => {
        const p = plan(offer('INSTALLMENTS', { minAmountCents: 5_000, maxAmountCents: 300_000 }), amount);
        expect(p.purpose).toBe('first_installment');
        expect(p.capture).toBe('automatic');
        expect(p.leaderShareCents).toBe(amount);
        expect(p.schedule).toHaveLength(3);
        const first = p.schedule![0]!;
        expect(p.authorizeCents).toBe(first.amountCents + first.feesCents);
        expect(p.schedule!.reduce((a, l) => a + l.amountCents, 0)).toBe(amount);
        expect(p.schedule!.slice(1).every((l) => l.feesCents === 0)).toBe(true);
      }),
    );
  });

  it('DEFERRED authorises its single line, captured later', () => {
    const p = plan(offer('DEFERRED'), 20_000);
    expect(p).toMatchObject({ purpose: 'deferred', capture: 'manual', authorizeCents: 20_000, leaderShareCents: 20_000 });
    expect(p.schedule).toEqual([{ index: 0, dueDate: '2025-04-09', amountCents: 20_000, feesCents: 0 }]);
  });

  it('DOWN_PAYMENT captures the deposit with all the fees at checkout and plans the balance on the date asked, summing to the amount', () => {
    const o = offer('DOWN_PAYMENT', { installments: 2, depositPercent: 30, maxBalanceDelayDays: 60, feeRateBps: 150 });
    const p = planLeaderPayment(o, 30_000, [], created, { balanceDate: '2025-04-01' }) as LeaderPlan;
    expect(p).toMatchObject({ purpose: 'first_installment', capture: 'automatic', authorizeCents: 9_000 + 450, leaderShareCents: 30_000 });
    expect(p.schedule).toEqual([
      { index: 0, dueDate: '2025-03-10', amountCents: 9_000, feesCents: 450 },
      { index: 1, dueDate: '2025-04-01', amountCents: 21_000, feesCents: 0 },
    ]);
    expect(plannedCharges(p, [])).toEqual([
      { what: "the leader's checkout", amountCents: 9_450 },
      { what: 'installment 2', amountCents: 21_000 },
    ]);
    expect(planLeaderPayment(o, 30_000, [], created, { balanceDate: '2025-05-10' })).toEqual({
      problem: {
        code: 'schedule',
        message: 'the balance payment date 2025-05-10 is after the latest this offer allows, 2025-05-09 (created + 60 days, the maximum balance payment delay)',
      },
    });
  });

  it("an amount the schedule refuses is a problem with the schedule's reason", () => {
    const p = planLeaderPayment(offer('INSTALLMENTS', { minAmountCents: 5_000 }), 100, [], created);
    expect(p).toMatchObject({ problem: { code: 'schedule' } });
  });

  it("the leader's purposes are the four checkout transactions, not a pledge or the rest", () => {
    expect([...LEADER_PURPOSES].sort()).toEqual(['deferred', 'first_installment', 'guarantee', 'leader_share']);
    expect(isLeaderPurpose('pledge')).toBe(false);
    expect(isLeaderPurpose('rest')).toBe(false);
    expect(isLeaderPurpose('guarantee')).toBe(true);
  });

  it('the FAILED comment names the attempts and the reason', () => {
    expect(leaderRefusedComment(3, 'card_declined')).toBe("The leader's card was refused 3 times (card_declined).");
  });
});

describe('what a plan charges at the PSP (plannedCharges)', () => {
  const total = (charges: { amountCents: number }[]) => charges.reduce((a, c) => a + c.amountCents, 0);

  it("a pot with friends: each pledger's share, the guarantee held on the friends' part, and the leader's share charged apart", () => {
    const p = plan(offer('SHARED'), 10_000, [4_000, 1_000]);
    expect(plannedCharges(p, [4_000, 1_000])).toEqual([
      { what: 'pledgers[0]', amountCents: 4_000 },
      { what: 'pledgers[1]', amountCents: 1_000 },
      { what: "the leader's checkout", amountCents: 5_000 },
      { what: "the leader's share", amountCents: 5_000 },
    ]);
  });

  it('INSTALLMENTS: every line of the schedule with its fees, summing to the amount plus the fees', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5_000, max: 300_000 }), (amount) => {
        const p = plan(offer('INSTALLMENTS', { minAmountCents: 5_000, maxAmountCents: 300_000 }), amount);
        const charges = plannedCharges(p, []);
        expect(charges.map((c) => c.what)).toEqual(["the leader's checkout", 'installment 2', 'installment 3']);
        expect(total(charges)).toBe(amount + p.schedule!.reduce((a, l) => a + l.feesCents, 0));
      }),
    );
  });

  it('alone or deferred: the one amount charged or held', () => {
    expect(plannedCharges(plan(offer('SHARED'), 10_000), [])).toEqual([{ what: "the leader's checkout", amountCents: 10_000 }]);
    expect(plannedCharges(plan(offer('DEFERRED'), 15_000), [])).toEqual([{ what: "the leader's checkout", amountCents: 15_000 }]);
  });
});
