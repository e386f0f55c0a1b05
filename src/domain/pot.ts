/**
 * The pot of a SHARED purchase (docs/hosted-payment.md#rules): the leader pays a share, pledgers
 * pay theirs, the shares never exceed the amount. Pure arithmetic on integer minor units.
 */
import { decimalAmount } from './money.ts';

export type ShareProblem =
  { code: 'share_not_positive'; index: number } | { code: 'shares_exceed_amount' } | { code: 'leader_share_not_positive' } | { code: 'too_many_pledgers'; max: number };

export const MAX_PLEDGERS = 20;

/**
 * Checks the pledgers' shares: each positive, and together leaving the leader a positive share.
 * Answers the leader's share, or the first problem.
 */
export function leaderShare(amountCents: number, shares: readonly number[]): { ok: true; leader: number } | { ok: false; problem: ShareProblem } {
  if (shares.length > MAX_PLEDGERS) return { ok: false, problem: { code: 'too_many_pledgers', max: MAX_PLEDGERS } };
  let total = 0;
  for (const [index, share] of shares.entries()) {
    if (!Number.isSafeInteger(share) || share <= 0) return { ok: false, problem: { code: 'share_not_positive', index } };
    total += share;
  }
  if (total > amountCents) return { ok: false, problem: { code: 'shares_exceed_amount' } };
  if (total === amountCents) return { ok: false, problem: { code: 'leader_share_not_positive' } };
  return { ok: true, leader: amountCents - total };
}

/** What is still uncovered once the leader's share and the paid (or reserved) pledges are counted. */
export function uncovered(amountCents: number, leaderShareCents: number, pledgedCents: readonly number[]): number {
  return amountCents - leaderShareCents - pledgedCents.reduce((a, b) => a + b, 0);
}

/** How long a pledge stays reserved while its PSP call (or 3-D Secure challenge) runs. */
export const PLEDGE_RESERVATION_MS = 15 * 60_000;

/** When the pot closes: the offer's `pot_deadline_hours` after the leader's payment. */
export function potDeadline(openedAt: Date, potDeadlineHours: number): Date {
  return new Date(openedAt.getTime() + potDeadlineHours * 3_600_000);
}

/** When unpaid pledgers are reminded: a day before the deadline, or half-way for pots shorter than two days. */
export function reminderAt(openedAt: Date, deadline: Date): Date {
  const window = deadline.getTime() - openedAt.getTime();
  return new Date(deadline.getTime() - Math.min(24 * 3_600_000, window / 2));
}

const friends = (n: number) => `friend${n === 1 ? '' : 's'}`;

/** v1 `comment` of an open pot: "1 of 3 friends paid, 40.00 EUR left." */
export function potComment(invited: number, paid: number, leftCents: number, currency: string): string {
  return `${paid} of ${invited} ${friends(invited)} paid, ${decimalAmount(leftCents, currency)} ${currency} left.`;
}

/** v1 `comment` once the pledges cover the amount. */
export function potCompleteComment(invited: number, paid: number): string {
  return `The pot is complete: ${paid} of ${invited} ${friends(invited)} paid.`;
}

/** v1 `comment` at the deadline, after the leader was charged the uncovered rest (or refused). */
export function potDeadlineComment(invited: number, paid: number, restCents: number, currency: string, captured: boolean): string {
  const summary = `${paid} of ${invited} ${friends(invited)} paid`;
  const rest = `${decimalAmount(restCents, currency)} ${currency}`;
  return captured ? `${summary}; the leader paid the remaining ${rest} at the deadline.` : `${summary}; charging the remaining ${rest} to the leader was refused.`;
}
