/**
 * Properties of the payment-time risk decision (docs/risk.md): whatever the shopper owes and
 * the ceiling, `decide` never accepts a credit plan that would take the shopper's outstanding
 * credit over `max_outstanding_cents`; the credit a decision reserves is the credit it checked;
 * and Chipin's card fingerprint is stable per account, different across accounts, and never
 * holds the card's digits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardFingerprint } from '../../src/crypto/card-fingerprint.ts';
import { decide, planCredit } from '../../src/domain/eligibility.ts';
import { effectiveRules } from '../../src/domain/risk-rules.ts';
import { NO_HISTORY, scoreShopper } from '../../src/domain/risk-score.ts';
import { computeSchedule, type OfferTerms } from '../../src/domain/schedule.ts';
import { planCreditOf } from '../../src/use-cases/risk/payment-risk.ts';

const CREATED = '2026-01-31';
const NOW = new Date('2026-01-31T10:00:00Z');
const RUNS = { numRuns: 200 };

/** A credit offer's terms: 2x..12x with fees, or a deferred payment of 1..90 days. */
const terms = fc.oneof(
  fc.record({ installments: fc.integer({ min: 2, max: 12 }), feeRateBps: fc.nat(500), fixedFeeCents: fc.nat(1_000) }).map((t): OfferTerms => ({
    type: 'INSTALLMENTS',
    deferredDays: 0,
    minAmountCents: 5_000,
    maxAmountCents: 500_000,
    fundingCapCents: null,
    debitRateBps: 0,
    usuryCeilingBps: null,
    ...t,
  })),
  fc.record({ deferredDays: fc.integer({ min: 1, max: 90 }), feeRateBps: fc.nat(500), fixedFeeCents: fc.nat(1_000) }).map((t): OfferTerms => ({
    type: 'DEFERRED',
    installments: 1,
    minAmountCents: 5_000,
    maxAmountCents: 500_000,
    fundingCapCents: null,
    debitRateBps: 0,
    usuryCeilingBps: null,
    ...t,
  })),
);

describe('the outstanding-credit ceiling in `decide`', () => {
  it('never accepts a credit plan whose outstanding + credit exceeds max_outstanding_cents, and names the rule whenever it refuses for it', () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 5_000, max: 500_000 }), fc.nat(2_000_000), fc.nat(2_000_000), fc.nat(5), (offer, amountCents, outstandingCents, max, plansLastHour) => {
        const schedule = computeSchedule(offer, amountCents, CREATED);
        const history = { ...NO_HISTORY, outstandingCents, plansLastHour };
        const decision = decide({
          offerType: offer.type,
          amountCents,
          created: CREATED,
          schedule: { ok: schedule },
          rules: effectiveRules({ max_outstanding_cents: max, max_plans_per_hour: 3 }, undefined),
          shopper: { email: 'ann@example.com' },
          history,
          score: scoreShopper(history, amountCents, NOW),
        });
        const credit = planCredit(schedule, CREATED);
        const over = outstandingCents + credit > max;
        if (decision.eligible) expect(over).toBe(false);
        expect(decision.reasons.some((r) => r.code === 'OUTSTANDING_CREDIT_LIMIT')).toBe(over);
      }),
      RUNS,
    );
  });

  it('reserves, for an accepted plan, exactly the credit the rule checked (the first installment paid at checkout, all of a deferred payment)', () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 5_000, max: 500_000 }), (offer, amountCents) => {
        const schedule = computeSchedule(offer, amountCents, CREATED);
        const lines = schedule.INSTALLMENT.map((l, index) => ({ index, dueDate: l.payment_date, amountCents: l.amount_cents, feesCents: l.fees }));
        expect(planCreditOf({ type: offer.type }, lines)).toBe(planCredit(schedule, CREATED));
      }),
      RUNS,
    );
  });
});

describe("Chipin's card fingerprint", () => {
  const key = Buffer.alloc(32, 7);
  const pan = fc.stringMatching(/^[0-9]{13,19}$/);
  const account = fc.uuid();

  it('is the same for the same account and number (spaces or not), different for another account, and never contains the digits', () => {
    fc.assert(
      fc.property(account, account, pan, (a, b, number) => {
        fc.pre(a !== b);
        const fp = cardFingerprint(key, a, number);
        expect(fp).toMatch(/^cfp_[A-Za-z0-9_-]{26}$/);
        expect(cardFingerprint(key, a, number.replace(/(\d{4})/g, '$1 '))).toBe(fp);
        expect(cardFingerprint(key, b, number)).not.toBe(fp);
        expect(fp).not.toContain(number);
        expect(fp).not.toContain(number.slice(0, 6));
      }),
      RUNS,
    );
  });

  it('tells two numbers of one account apart, and depends on the key', () => {
    fc.assert(
      fc.property(account, pan, pan, (a, x, y) => {
        fc.pre(x !== y);
        expect(cardFingerprint(key, a, x)).not.toBe(cardFingerprint(key, a, y));
        expect(cardFingerprint(Buffer.alloc(32, 8), a, x)).not.toBe(cardFingerprint(key, a, x));
      }),
      RUNS,
    );
  });
});
