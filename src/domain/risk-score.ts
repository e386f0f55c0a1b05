/**
 * Chipin's own score of a shopper (docs/risk.md#the-score): a transparent sum of points from the
 * shopper's history with this account, each line a reason, clamped to 0..100. No weights are
 * learnt: a merchant can recompute every score by hand from the table in docs/risk.md.
 */

/** What the account's history says about a shopper (one query: src/risk/shopper-history-repository.ts). */
export interface ShopperHistory {
  /** Purchases fully paid (SUCCESSFUL), and those refunded after being paid. */
  completedPurchases: number;
  /** Purchases that ended FAILED: a card refused past the retries, or dunning exhausted. */
  failedPurchases: number;
  /** Card payments declined in the last 180 days. */
  recentDeclines: number;
  /** Chargebacks recorded against the shopper (none are recorded yet: docs/risk.md#what-is-not-there-yet). */
  chargebacks: number;
  /** What the shopper still owes on open plans: unpaid installments, fees included. */
  outstandingCents: number;
  /** The largest purchase they paid, 0 when none. */
  largestPaidCents: number;
  /** When Chipin first saw them on this account (their first purchase), undefined when never. */
  firstSeenAt: Date | undefined;
  /** Credit plans (INSTALLMENTS, DEFERRED purchases) they started in the last hour and day. */
  plansLastHour: number;
  plansLastDay: number;
}

/** A shopper Chipin knows nothing of. */
export const NO_HISTORY: Readonly<ShopperHistory> = {
  completedPurchases: 0,
  failedPurchases: 0,
  recentDeclines: 0,
  chargebacks: 0,
  outstandingCents: 0,
  largestPaidCents: 0,
  firstSeenAt: undefined,
  plansLastHour: 0,
  plansLastDay: 0,
};

export type ScoreReasonCode =
  'FIRST_PURCHASE' | 'RETURNING_SHOPPER' | 'PAST_DECLINES' | 'PAST_FAILED_PURCHASES' | 'PAST_CHARGEBACKS' | 'OUTSTANDING_CREDIT' | 'KNOWN_SINCE' | 'AMOUNT_ABOVE_HISTORY';

interface ScoreReason {
  code: ScoreReasonCode;
  /** Points added (positive) or taken (negative). */
  points: number;
}

export interface Score {
  /** 0..100: the base plus every reason's points, clamped. */
  value: number;
  base: number;
  /** Every factor that moved the score, in the table's order; none are zero. */
  reasons: ScoreReason[];
}

/** The model's constants, named as docs/risk.md's table names them. */
export const SCORE_MODEL = {
  base: 50,
  firstPurchase: -10,
  perCompletedPurchase: 10,
  maxReturning: 30,
  perDecline: -5,
  maxDeclines: -25,
  perFailedPurchase: -30,
  maxFailedPurchases: -60,
  perChargeback: -40,
  maxChargebacks: -80,
  /** Up to this many points off as the outstanding credit grows against the amount asked. */
  maxOutstanding: -20,
  /** One point per full 30 days since first seen, at most this. */
  maxKnownSince: 15,
  daysPerKnownPoint: 30,
  /** Asking more than 2× (5×) the largest purchase ever paid. */
  aboveHistory2x: -10,
  aboveHistory5x: -20,
} as const;

const DAY_MS = 86_400_000;

/** The points of a capped per-event factor: `per` each, never beyond `cap` (same sign). */
export function capped(count: number, per: number, cap: number): number {
  const raw = count * per;
  return per < 0 ? Math.max(raw, cap) : Math.min(raw, cap);
}

/**
 * Points off for what the shopper already owes, against what they ask for now:
 * −⌊20 × outstanding / (outstanding + amount)⌋, so 0 with nothing owed, −10 when they owe as much
 * as they ask, and never below −19: exposure alone never decides.
 */
export function outstandingPoints(outstandingCents: number, amountCents: number): number {
  if (outstandingCents <= 0) return 0;
  const points = -Math.floor((-SCORE_MODEL.maxOutstanding * outstandingCents) / (outstandingCents + Math.max(amountCents, 0)));
  return points === 0 ? 0 : points; // never -0
}

/** The shopper's score for a purchase of `amountCents` on `now`. Pure: same inputs, same score. */
export function scoreShopper(history: ShopperHistory, amountCents: number, now: Date): Score {
  const m = SCORE_MODEL;
  const reasons: ScoreReason[] = [];
  if (history.completedPurchases === 0) add(reasons, 'FIRST_PURCHASE', m.firstPurchase);
  else add(reasons, 'RETURNING_SHOPPER', capped(history.completedPurchases, m.perCompletedPurchase, m.maxReturning));
  add(reasons, 'PAST_DECLINES', capped(history.recentDeclines, m.perDecline, m.maxDeclines));
  add(reasons, 'PAST_FAILED_PURCHASES', capped(history.failedPurchases, m.perFailedPurchase, m.maxFailedPurchases));
  add(reasons, 'PAST_CHARGEBACKS', capped(history.chargebacks, m.perChargeback, m.maxChargebacks));
  add(reasons, 'OUTSTANDING_CREDIT', outstandingPoints(history.outstandingCents, amountCents));
  if (history.firstSeenAt !== undefined) {
    const days = Math.max(0, Math.floor((now.getTime() - history.firstSeenAt.getTime()) / DAY_MS));
    add(reasons, 'KNOWN_SINCE', Math.min(Math.floor(days / m.daysPerKnownPoint), m.maxKnownSince));
  }
  if (history.largestPaidCents > 0) {
    if (amountCents > 5 * history.largestPaidCents) add(reasons, 'AMOUNT_ABOVE_HISTORY', m.aboveHistory5x);
    else if (amountCents > 2 * history.largestPaidCents) add(reasons, 'AMOUNT_ABOVE_HISTORY', m.aboveHistory2x);
  }
  let sum: number = m.base;
  for (const r of reasons) sum += r.points;
  return { value: Math.min(100, Math.max(0, sum)), base: m.base, reasons };
}

/** A factor that moved the score; one of zero points is left out. */
function add(reasons: ScoreReason[], code: ScoreReasonCode, points: number): void {
  if (points !== 0) reasons.push({ code, points });
}
