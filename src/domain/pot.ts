/**
 * The pot of a SHARED purchase (DESIGN §3): the leader pays a share, pledgers pay theirs, the
 * shares never exceed the amount. Pure arithmetic on integer minor units.
 */

/** Splits `amountCents` evenly between the leader and `pledgers` friends; the remainder goes to the leader (DESIGN §2). */
export function splitEvenly(amountCents: number, pledgers: number): { leader: number; pledger: number } {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError('amount must be a positive integer');
  if (!Number.isInteger(pledgers) || pledgers < 0) throw new RangeError('pledgers must be a non-negative integer');
  const people = pledgers + 1;
  const pledger = Math.floor(amountCents / people);
  return { leader: amountCents - pledger * pledgers, pledger };
}

export type ShareProblem =
  | { code: 'share_not_positive'; index: number }
  | { code: 'shares_exceed_amount' }
  | { code: 'leader_share_not_positive' }
  | { code: 'too_many_pledgers'; max: number };

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
