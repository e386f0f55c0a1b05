import { formatIsoDate } from './dates.ts';
import { offerTerms, type OfferRules, type OfferType } from './offer-terms.ts';
import { leaderShare, type ShareProblem } from './pot.ts';
import { computeSchedule, ScheduleError, type RequestedDates } from './schedule.ts';

/** The purposes of the leader's checkout transaction. */
export type LeaderPurpose = 'guarantee' | 'leader_share' | 'first_installment' | 'deferred';
export const LEADER_PURPOSES: readonly LeaderPurpose[] = ['guarantee', 'leader_share', 'first_installment', 'deferred'];

export function isLeaderPurpose(purpose: string): purpose is LeaderPurpose {
  return (LEADER_PURPOSES as readonly string[]).includes(purpose);
}

/** One line of an installment or deferred plan, as stored. */
export interface PlannedInstallment {
  index: number;
  /** 'yyyy-mm-dd'. */
  dueDate: string;
  amountCents: number;
  feesCents: number;
}

/**
 * What the leader is charged at checkout, by payment solution
 * (docs/hosted-payment.md#what-the-leader-is-charged-by-offer).
 */
export interface LeaderPlan {
  purpose: LeaderPurpose;
  /**
   * Authorised on the leader's card at checkout, on session (captured at once when `capture` is
   * automatic). SHARED with friends: the hold of the friends' part only (amount − leader's share).
   */
  authorizeCents: number;
  capture: 'automatic' | 'manual';
  /** The part of the amount the leader owes; the pledgers owe the rest. */
  leaderShareCents: number;
  /** Installments (INSTALLMENTS, DEFERRED, DOWN_PAYMENT); index 0 is the one paid (the deposit) or held at checkout. */
  schedule?: PlannedInstallment[];
}

export type PlanProblem = ShareProblem | { code: 'schedule'; message: string };

/** Why a leader alone is refused, as the API says it (the hosted page says it in the shopper's language). */
export const PLEDGER_REQUIRED = 'at least one pledger is required: this offer does not let the leader pay alone';

/**
 * Whether a leader about to pay alone must invite someone first: a pot whose merchant turned
 * `leaderCanPayAlone` off is paid with at least one pledger (docs/hosted-payment.md#rules).
 */
export function pledgerRequired(offer: { type: OfferType; leaderCanPayAlone: boolean }, pledgerCount: number): boolean {
  return offer.type === 'SHARED' && !offer.leaderCanPayAlone && pledgerCount === 0;
}

/**
 * The leader's plan for a purchase of `amountCents` created on `createdAt`, pledgers' shares
 * given. SHARED alone: everything captured. SHARED with friends: a guarantee holding only what
 * the friends owe (amount − leader's share; the one 3-D Secure challenge) and the leader's share
 * charged separately, so the card never ties up more than the amount (docs/hosted-payment.md).
 * INSTALLMENTS: the first line with all the fees captured; DOWN_PAYMENT likewise, its deposit
 * (docs/schedules.md#down-payment). DEFERRED: its single line authorised, captured later. `dates`: the due dates the purchase asked for (docs/schedules.md#requested-dates).
 */
export function planLeaderPayment(
  offer: OfferRules,
  amountCents: number,
  pledgerShares: readonly number[],
  createdAt: Date,
  dates: RequestedDates = {},
): LeaderPlan | { problem: PlanProblem } {
  if (offer.type === 'SHARED') {
    if (pledgerShares.length === 0) {
      return { purpose: 'leader_share', authorizeCents: amountCents, capture: 'automatic', leaderShareCents: amountCents };
    }
    const share = leaderShare(amountCents, pledgerShares);
    if (!share.ok) return { problem: share.problem };
    return { purpose: 'guarantee', authorizeCents: amountCents - share.leader, capture: 'manual', leaderShareCents: share.leader };
  }
  let lines: PlannedInstallment[];
  try {
    const s = computeSchedule(offerTerms(offer), amountCents, formatIsoDate(createdAt), dates);
    lines = s.INSTALLMENT.map((l, index) => ({ index, dueDate: l.payment_date, amountCents: l.amount_cents, feesCents: l.fees }));
  } catch (err) {
    if (err instanceof ScheduleError) return { problem: { code: 'schedule', message: err.message } };
    throw err;
  }
  const first = lines[0]!;
  const purpose = offer.type === 'DEFERRED' ? 'deferred' : 'first_installment';
  return { purpose, authorizeCents: first.amountCents + first.feesCents, capture: purpose === 'deferred' ? 'manual' : 'automatic', leaderShareCents: amountCents, schedule: lines };
}

/**
 * Every amount the plan will charge, hold or capture at the PSP, named for a person: the leader's
 * checkout, the leader's share charged apart beside friends, each pledger's share, each later
 * installment. What a PSP with a coarser step than the currency's minor unit checks before a
 * purchase is created or paid (Midtrans: whole rupiah).
 */
export function plannedCharges(plan: LeaderPlan, pledgerShares: readonly number[]): { what: string; amountCents: number }[] {
  const charges = pledgerShares.map((share, i) => ({ what: `pledgers[${i}]`, amountCents: share }));
  charges.push({ what: "the leader's checkout", amountCents: plan.authorizeCents });
  if (plan.purpose === 'guarantee') charges.push({ what: "the leader's share", amountCents: plan.leaderShareCents });
  for (const line of plan.schedule?.slice(1) ?? []) charges.push({ what: `installment ${line.index + 1}`, amountCents: line.amountCents + line.feesCents });
  return charges;
}

/** v1 `comment` once the leader's card was refused the offer's last time. */
export function leaderRefusedComment(attempts: number, reason: string): string {
  return `The leader's card was refused ${attempts} times (${reason}).`;
}

/**
 * A leader payment left pending or awaiting 3-D Secure for longer than this is no longer "in
 * progress": the leader may try again (a tab closed mid-challenge must not block the purchase).
 */
export const LEADER_BUSY_MS = 60_000;
