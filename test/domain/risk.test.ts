/**
 * The risk engine (docs/risk.md): each rule accepts and refuses with its reason code, the
 * defaults-and-overrides merge, the schema of stored rules, and the score's arithmetic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CardFacts } from '../../src/domain/card-facts.ts';
import { decide, expiresBefore, planCredit, type EligibilityInput } from '../../src/domain/eligibility.ts';
import { BUILT_IN_RULES, effectiveRules, ipInRanges, parseRiskRules, type RiskRules } from '../../src/domain/risk-rules.ts';
import { capped, NO_HISTORY, outstandingPoints, SCORE_MODEL, scoreShopper, type ShopperHistory } from '../../src/domain/risk-score.ts';
import { computeSchedule, type OfferTerms } from '../../src/domain/schedule.ts';

const TERMS: OfferTerms = {
  type: 'INSTALLMENTS',
  installments: 3,
  deferredDays: 0,
  feeRateBps: 150,
  fixedFeeCents: 0,
  minAmountCents: 5_000,
  maxAmountCents: 300_000,
  fundingCapCents: null,
  debitRateBps: 0,
  usuryCeilingBps: null,
};
const CREATED = '2026-01-31';
const NOW = new Date('2026-01-31T10:00:00Z');
const schedule = (amount: number) => computeSchedule(TERMS, amount, CREATED);

/** A 300.00 3x purchase by a stranger under `rules`, with `over` changed. */
function input(rules: RiskRules, over: Partial<EligibilityInput> = {}): EligibilityInput {
  const amountCents = over.amountCents ?? 30_000;
  const history = over.history ?? NO_HISTORY;
  return {
    offerType: 'INSTALLMENTS',
    amountCents,
    created: CREATED,
    schedule: 'schedule' in over ? over.schedule : { ok: schedule(amountCents) },
    rules: effectiveRules(rules, undefined),
    shopper: { email: 'ann@example.com', ip: '203.0.113.7' },
    history,
    score: scoreShopper(history, amountCents, NOW),
    ...over,
  };
}
const codes = (i: EligibilityInput) => decide(i).reasons.map((r) => r.code);
const CARD: CardFacts = { bin: '424242', last4: '4242', brand: 'visa', funding: 'credit', country: 'FR', expMonth: 12, expYear: 2030, fingerprint: 'fp_ann' };

describe('the risk rules, each accepting and refusing with its reason code', () => {
  it('with no rules set, a purchase the schedule accepts is eligible', () => {
    expect(decide(input({}))).toEqual({ eligible: true, reasons: [] });
  });

  it('AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH: the risk bounds, inclusive', () => {
    expect(codes(input({ min_amount_cents: 30_000, max_amount_cents: 30_000 }))).toEqual([]);
    expect(codes(input({ min_amount_cents: 30_001 }))).toEqual(['AMOUNT_TOO_LOW']);
    expect(codes(input({ max_amount_cents: 29_999 }))).toEqual(['AMOUNT_TOO_HIGH']);
  });

  it("the offer's own limits refuse with the same codes, once, and an unsellable schedule with SCHEDULE_NOT_AVAILABLE", () => {
    const below = input({ min_amount_cents: 6_000 }, { amountCents: 4_000, schedule: { refused: 'AMOUNT_TOO_LOW', message: 'below the minimum' } });
    expect(codes(below)).toEqual(['AMOUNT_TOO_LOW']);
    expect(codes(input({}, { schedule: { refused: 'SCHEDULE_NOT_AVAILABLE', message: 'usury' } }))).toEqual(['SCHEDULE_NOT_AVAILABLE']);
  });

  it('OUTSTANDING_CREDIT_LIMIT: what the shopper owes plus the credit of this plan (fees included), against the limit', () => {
    const credit = planCredit(schedule(30_000), CREATED); // 2 × 100.00: the first 100.00 + 4.50 fees are paid at checkout
    expect(credit).toBe(20_000);
    const owing = (cents: number): ShopperHistory => ({ ...NO_HISTORY, outstandingCents: cents });
    expect(codes(input({ max_outstanding_cents: 50_000 }, { history: owing(30_000) }))).toEqual([]);
    expect(codes(input({ max_outstanding_cents: 50_000 }, { history: owing(30_001) }))).toEqual(['OUTSTANDING_CREDIT_LIMIT']);
  });

  it('VELOCITY_LIMIT: plans started in the last hour and day, this one included', () => {
    const recent = (hour: number, day: number): ShopperHistory => ({ ...NO_HISTORY, plansLastHour: hour, plansLastDay: day });
    expect(codes(input({ max_plans_per_hour: 2, max_plans_per_day: 3 }, { history: recent(1, 2) }))).toEqual([]);
    expect(codes(input({ max_plans_per_hour: 2 }, { history: recent(2, 2) }))).toEqual(['VELOCITY_LIMIT']);
    expect(codes(input({ max_plans_per_day: 3 }, { history: recent(0, 3) }))).toEqual(['VELOCITY_LIMIT']);
  });

  it('the outstanding-credit and velocity rules are about credit: a pot (SHARED) is not refused by them', () => {
    const owing: ShopperHistory = { ...NO_HISTORY, outstandingCents: 1_000_000, plansLastHour: 10, plansLastDay: 10 };
    expect(codes(input({ max_outstanding_cents: 1, max_plans_per_hour: 1 }, { offerType: 'SHARED', schedule: undefined, history: owing }))).toEqual([]);
  });

  it('BLOCKED: an e-mail (any case), a card fingerprint or an address in a blocked range; a block wins over an allow', () => {
    expect(codes(input({ blocked_emails: ['ann@example.com'] }, { shopper: { email: 'ANN@Example.com ' } }))).toEqual(['BLOCKED']);
    expect(codes(input({ blocked_cards: ['fp_ann'] }, { card: CARD }))).toEqual(['BLOCKED']);
    expect(codes(input({ blocked_ip_ranges: ['203.0.113.0/24'] }))).toEqual(['BLOCKED']);
    expect(codes(input({ blocked_ip_ranges: ['198.51.100.0/24'], blocked_emails: ['bob@example.com'] }))).toEqual([]);
    expect(codes(input({ blocked_emails: ['ann@example.com'], allowed_emails: ['ann@example.com'] }))).toEqual(['BLOCKED']);
  });

  it('SCORE_TOO_LOW: below the threshold only; no threshold, no refusal', () => {
    const stranger = scoreShopper(NO_HISTORY, 30_000, NOW).value; // 40: a first purchase
    expect(codes(input({ min_score: stranger }))).toEqual([]);
    expect(codes(input({ min_score: stranger + 1 }))).toEqual(['SCORE_TOO_LOW']);
  });

  it('an allowed shopper skips the outstanding-credit, velocity and score rules, not the amount bounds', () => {
    const heavy: ShopperHistory = { ...NO_HISTORY, outstandingCents: 1_000_000, plansLastHour: 10, plansLastDay: 10, failedPurchases: 2 };
    const rules: RiskRules = { max_outstanding_cents: 1, max_plans_per_hour: 1, min_score: 90, allowed_ip_ranges: ['203.0.113.7'] };
    expect(codes(input(rules, { history: heavy }))).toEqual([]);
    expect(codes(input({ ...rules, max_amount_cents: 1_000 }, { history: heavy }))).toEqual(['AMOUNT_TOO_HIGH']);
    expect(codes(input({ ...rules, allowed_ip_ranges: [] }, { history: heavy }))).toEqual(['OUTSTANDING_CREDIT_LIMIT', 'VELOCITY_LIMIT', 'SCORE_TOO_LOW']);
  });

  it('CARD_PREPAID: a prepaid card is refused for credit by default, accepted for a pot or when the rule is off', () => {
    const prepaid = { ...CARD, funding: 'prepaid' as const };
    expect(codes(input({}, { card: prepaid }))).toEqual(['CARD_PREPAID']);
    expect(codes(input({}, { card: CARD }))).toEqual([]);
    expect(codes(input({ refuse_prepaid_cards: false }, { card: prepaid }))).toEqual([]);
    expect(codes(input({}, { card: prepaid, offerType: 'SHARED', schedule: undefined }))).toEqual([]);
  });

  it('CARD_COUNTRY: the issuing country must be listed; an unknown country is refused when a list is set', () => {
    expect(codes(input({ card_countries: ['FR', 'BE'] }, { card: CARD }))).toEqual([]);
    expect(codes(input({ card_countries: ['BE'] }, { card: CARD }))).toEqual(['CARD_COUNTRY']);
    expect(codes(input({ card_countries: ['FR'] }, { card: { ...CARD, country: undefined } }))).toEqual(['CARD_COUNTRY']);
    expect(codes(input({ card_countries: [] }, { card: { ...CARD, country: 'US' } }))).toEqual([]);
  });

  it('CARD_EXPIRES_BEFORE_LAST_DUE: a card valid through its expiry month must reach the last due date (2026-03-31)', () => {
    expect(codes(input({}, { card: { ...CARD, expMonth: 3, expYear: 2026 } }))).toEqual([]);
    expect(codes(input({}, { card: { ...CARD, expMonth: 2, expYear: 2026 } }))).toEqual(['CARD_EXPIRES_BEFORE_LAST_DUE']);
    expect(codes(input({ card_must_outlast_plan: false }, { card: { ...CARD, expMonth: 2, expYear: 2026 } }))).toEqual([]);
  });

  it('every refusal is given at once, not only the first', () => {
    const i = input({ max_amount_cents: 1_000, blocked_emails: ['ann@example.com'], min_score: 100 }, { card: { ...CARD, funding: 'prepaid', expMonth: 1, expYear: 2026 } });
    expect(codes(i)).toEqual(['AMOUNT_TOO_HIGH', 'BLOCKED', 'SCORE_TOO_LOW', 'CARD_PREPAID', 'CARD_EXPIRES_BEFORE_LAST_DUE']);
  });
});

describe('defaults and overrides', () => {
  it("built-in, then the account's, then the offer's, key by key; null switches the account's rule off on the offer", () => {
    const account: RiskRules = { max_outstanding_cents: 100_000, min_score: 30, refuse_prepaid_cards: false };
    expect(effectiveRules(account, undefined)).toEqual({ ...BUILT_IN_RULES, ...account });
    expect(effectiveRules(account, { min_score: 50, max_outstanding_cents: null })).toEqual({ card_must_outlast_plan: true, refuse_prepaid_cards: false, min_score: 50 });
  });

  it('the schema refuses unknown rules and bad values naming the field, and normalises lists', () => {
    expect(parseRiskRules({ max_score: 3 })).toEqual({ error: { field: 'rules.max_score', message: expect.stringContaining('is not a rule'), refusal: { code: 'unknown_rule' } } });
    expect(parseRiskRules({ min_score: 101 })).toEqual({
      error: { field: 'rules.min_score', message: 'must be an integer between 0 and 100', refusal: { code: 'out_of_range', min: 0, max: 100, amount: false } },
    });
    expect(parseRiskRules({ max_plans_per_day: 0 })).toMatchObject({ error: { field: 'rules.max_plans_per_day' } });
    expect(parseRiskRules({ blocked_ip_ranges: ['10.0.0.0/33'] })).toMatchObject({ error: { field: 'rules.blocked_ip_ranges', message: expect.stringContaining('[0]') } });
    expect(parseRiskRules({ min_amount_cents: 10, max_amount_cents: 5 })).toMatchObject({ error: { field: 'rules.min_amount_cents' } });
    expect(parseRiskRules([])).toMatchObject({ error: { field: 'rules' } });
    expect(parseRiskRules({ blocked_emails: ['A@X.io', 'a@x.io '], card_countries: ['fr'], min_score: null })).toEqual({
      rules: { blocked_emails: ['a@x.io'], card_countries: ['FR'] },
    });
    expect(parseRiskRules({ min_score: null }, 'rules', true)).toEqual({ rules: { min_score: null } });
  });

  it('IP ranges: v4 and v6 CIDR, single addresses, nothing else', () => {
    expect(ipInRanges('203.0.113.200', ['203.0.113.0/24'])).toBe(true);
    expect(ipInRanges('203.0.114.1', ['203.0.113.0/24'])).toBe(false);
    expect(ipInRanges('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(ipInRanges('192.0.2.1', ['192.0.2.1'])).toBe(true);
    expect(ipInRanges('not an ip', ['0.0.0.0/0'])).toBe(false);
  });

  it('a card expires before a due date only when its month is earlier', () => {
    expect(expiresBefore({ expMonth: 3, expYear: 2026 }, '2026-03-31')).toBe(false);
    expect(expiresBefore({ expMonth: 2, expYear: 2026 }, '2026-03-01')).toBe(true);
    expect(expiresBefore({ expMonth: 1, expYear: 2027 }, '2026-12-31')).toBe(false);
  });
});

describe("the score's arithmetic (fast-check)", () => {
  const history = fc.record({
    completedPurchases: fc.nat(50),
    failedPurchases: fc.nat(10),
    recentDeclines: fc.nat(20),
    chargebacks: fc.nat(5),
    outstandingCents: fc.nat(10_000_000),
    largestPaidCents: fc.nat(10_000_000),
    firstSeenAt: fc.option(fc.date({ min: new Date('2020-01-01'), max: NOW, noInvalidDate: true }), { nil: undefined }),
    plansLastHour: fc.nat(10),
    plansLastDay: fc.nat(20),
  });

  it('the score is the base plus its reasons, clamped to 0..100, and no reason is zero', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 100_000_000 }), (h, amount) => {
        const s = scoreShopper(h, amount, NOW);
        const sum = s.reasons.reduce((t, r) => t + r.points, s.base);
        expect(s.value).toBe(Math.min(100, Math.max(0, sum)));
        expect(Number.isInteger(s.value)).toBe(true);
        expect(s.reasons.every((r) => r.points !== 0 && Number.isInteger(r.points))).toBe(true);
      }),
    );
  });

  it('each capped factor stays within its cap and grows with its count', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000),
        fc.integer({ min: -50, max: 50 }).filter((p) => p !== 0),
        fc.integer({ min: 1, max: 100 }),
        (n, per, size) => {
          const cap = Math.sign(per) * size;
          const points = capped(n, per, cap);
          expect(Math.abs(points)).toBeLessThanOrEqual(Math.abs(cap));
          expect(Math.abs(capped(n + 1, per, cap))).toBeGreaterThanOrEqual(Math.abs(points));
        },
      ),
    );
  });

  it('exposure takes 0 to 19 points, more as the outstanding grows, fewer as the amount grows', () => {
    fc.assert(
      fc.property(fc.nat(100_000_000), fc.integer({ min: 1, max: 100_000_000 }), fc.nat(1_000_000), (owed, amount, more) => {
        const p = outstandingPoints(owed, amount);
        expect(p).toBeLessThanOrEqual(0);
        expect(p).toBeGreaterThan(SCORE_MODEL.maxOutstanding);
        expect(outstandingPoints(owed + more, amount)).toBeLessThanOrEqual(p);
        expect(outstandingPoints(owed, amount + more)).toBeGreaterThanOrEqual(p);
      }),
    );
  });

  it("a plan's credit is what its lines after the day of purchase add up to, never more than the amount plus fees", () => {
    fc.assert(
      fc.property(fc.integer({ min: TERMS.minAmountCents, max: TERMS.maxAmountCents }), fc.integer({ min: 2, max: 12 }), (amount, n) => {
        const s = computeSchedule({ ...TERMS, installments: n }, amount, CREATED);
        const total = s.INSTALLMENT.reduce((t, l) => t + l.amount_cents + l.fees, 0);
        const first = s.INSTALLMENT[0]!;
        expect(planCredit(s, CREATED)).toBe(total - first.amount_cents - first.fees);
        const deferred = computeSchedule({ ...TERMS, type: 'DEFERRED', installments: 1, deferredDays: 30 }, amount, CREATED);
        expect(planCredit(deferred, CREATED)).toBe(amount + deferred.INSTALLMENT[0]!.fees);
      }),
    );
  });

  it('the outstanding-credit rule refuses exactly when outstanding + credit exceeds the limit', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(1_000_000), fc.integer({ min: 5_000, max: 300_000 }), (owed, limit, amount) => {
        const i = input({ max_outstanding_cents: limit }, { amountCents: amount, history: { ...NO_HISTORY, outstandingCents: owed } });
        const refused = codes(i).includes('OUTSTANDING_CREDIT_LIMIT');
        expect(refused).toBe(owed + planCredit(schedule(amount), CREATED) > limit);
      }),
    );
  });

  it('the score threshold refuses exactly the scores below it', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 0, max: 100 }), (h, threshold) => {
        const i = input({ min_score: threshold }, { history: h });
        expect(codes(i).includes('SCORE_TOO_LOW')).toBe(i.score.value < threshold);
      }),
    );
  });

  it('the worked example of docs/risk.md: a returning shopper', () => {
    const h: ShopperHistory = {
      ...NO_HISTORY,
      completedPurchases: 2,
      recentDeclines: 1,
      outstandingCents: 10_000,
      largestPaidCents: 12_000,
      firstSeenAt: new Date('2025-07-31T10:00:00Z'),
    };
    expect(scoreShopper(h, 30_000, NOW)).toEqual({
      value: 56,
      base: 50,
      reasons: [
        { code: 'RETURNING_SHOPPER', points: 20 },
        { code: 'PAST_DECLINES', points: -5 },
        { code: 'OUTSTANDING_CREDIT', points: -5 },
        { code: 'KNOWN_SINCE', points: 6 },
        { code: 'AMOUNT_ABOVE_HISTORY', points: -10 },
      ],
    });
  });
});
