import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dueAt, earlyRepayment, installmentFailedComment, installmentPaidComment, retryDelayDays } from '../../src/domain/installment-rules.ts';
import { backModeStatus } from '../../src/domain/transaction-status.ts';

describe('installment collection rules', () => {
  it('a refused installment is retried 1, 3 and 7 days after its due date, then given up', () => {
    expect([1, 2, 3, 4].map(retryDelayDays)).toEqual([1, 3, 7, undefined]);
  });

  it('collection runs at midnight UTC of the due date, whatever form the driver returns it in', () => {
    expect(dueAt('2025-04-09').toISOString()).toBe('2025-04-09T00:00:00.000Z');
    expect(dueAt(new Date('2025-04-09T00:00:00Z'), 3).toISOString()).toBe('2025-04-12T00:00:00.000Z');
  });

  it('comments count installments, and call a plan of one the deferred payment', () => {
    expect(installmentPaidComment(2, 3)).toBe('2 of 3 installments paid.');
    expect(installmentPaidComment(3, 3)).toBe('All 3 installments are paid.');
    expect(installmentPaidComment(1, 1)).toBe('The deferred payment is collected.');
    expect(installmentFailedComment(1, 3, 4, 'card_declined')).toBe('Installment 2 of 3 could not be collected after 4 attempts (card_declined).');
    expect(installmentFailedComment(0, 1, 4, 'expired_card')).toBe('The deferred payment could not be collected after 4 attempts (expired_card).');
  });
});

describe('back-mode transaction status', () => {
  it("maps every PSP outcome to the contract's words, and a pending challenge to none", () => {
    expect(backModeStatus('authorized')).toBe('authorized');
    expect(backModeStatus('captured')).toBe('completed');
    expect(backModeStatus('voided')).toBe('voided');
    expect(backModeStatus('expired')).toBe('voided');
    expect(backModeStatus('refunded')).toBe('refunded');
    expect(backModeStatus('declined')).toBe('failed');
    expect(backModeStatus('requires_action')).toBeUndefined();
  });
});

describe('earlyRepayment', () => {
  it('charges the remaining principal and waives exactly the remaining fees, in integer cents', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ amountCents: fc.integer({ min: 0, max: 10_000_000 }), feesCents: fc.integer({ min: 0, max: 100_000 }) }), { maxLength: 24 }), (lines) => {
        const { chargeCents, waivedFeesCents } = earlyRepayment(lines);
        expect(Number.isSafeInteger(chargeCents)).toBe(true);
        expect(chargeCents).toBe(lines.reduce((s, l) => s + l.amountCents, 0));
        expect(chargeCents + waivedFeesCents).toBe(lines.reduce((s, l) => s + l.amountCents + l.feesCents, 0));
      }),
    );
  });
});
