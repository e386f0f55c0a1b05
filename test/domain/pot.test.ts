import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { potComment, potCompleteComment, potDeadline, potDeadlineComment, reminderAt, uncovered } from '../../src/domain/pot.ts';

const HOUR = 3_600_000;

describe("the pot's texts and times", () => {
  it("the open pot's comment tells how many friends paid and what is left", () => {
    expect(potComment(2, 1, 3_000, 'EUR')).toBe('1 of 2 friends paid, 30.00 EUR left.');
    expect(potComment(1, 0, 150, 'EUR')).toBe('0 of 1 friend paid, 1.50 EUR left.');
    expect(potComment(3, 0, 500, 'JPY')).toBe('0 of 3 friends paid, 500 JPY left.');
  });

  it('the complete pot and the deadline comments', () => {
    expect(potCompleteComment(2, 2)).toBe('The pot is complete: 2 of 2 friends paid.');
    expect(potDeadlineComment(2, 1, 3_000, 'EUR', true)).toBe('1 of 2 friends paid; the leader paid the remaining 30.00 EUR at the deadline.');
    expect(potDeadlineComment(1, 0, 3_000, 'EUR', false)).toBe('0 of 1 friend paid; charging the remaining 30.00 EUR to the leader was refused.');
  });

  it("the deadline is the offer's hours after the leader's payment", () => {
    expect(potDeadline(new Date('2025-01-01T00:00:00Z'), 48).toISOString()).toBe('2025-01-03T00:00:00.000Z');
  });

  it('the reminder is a day before the deadline, or half-way for pots shorter than two days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000_000 }), fc.integer({ min: 1, max: 24 * 30 }), (opened, hours) => {
        const openedAt = new Date(opened);
        const deadline = potDeadline(openedAt, hours);
        const at = reminderAt(openedAt, deadline).getTime();
        expect(at).toBeGreaterThanOrEqual(opened);
        expect(at).toBeLessThan(deadline.getTime());
        expect(deadline.getTime() - at).toBe(Math.min(24 * HOUR, (hours * HOUR) / 2));
      }),
    );
  });

  it("what is uncovered is the amount less the leader's share and the pledges, to the cent", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.array(fc.integer({ min: 1, max: 100_000 }), { maxLength: 20 }), (leader, shares) => {
        const amount = leader + shares.reduce((a, b) => a + b, 0);
        expect(uncovered(amount, leader, shares)).toBe(0);
        expect(uncovered(amount, leader, shares.slice(1))).toBe(shares[0] ?? 0);
      }),
    );
  });
});
