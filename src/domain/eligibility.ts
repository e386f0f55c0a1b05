import type { OfferType } from './offer-terms.ts';
import { listed, type RiskRules } from './risk-rules.ts';
import type { Score, ShopperHistory } from './risk-score.ts';
import type { CardFacts } from './card-facts.ts';
import type { Schedule } from './schedule.ts';

/**
 * The risk engine's decision for one offer (docs/risk.md): every rule is checked and every
 * refusal is given, so that a merchant sees all the reasons at once, not the first one. Pure: the
 * eligibility call fills what it knows (amount, shopper, history, score); the payment-time
 * decision adds the card (funding, issuing country, expiry, fingerprint).
 */

/** Stable, machine-readable reasons of a refusal (docs/risk.md#reason-codes). Never renamed. */
export type RiskReasonCode =
  | 'AMOUNT_TOO_LOW'
  | 'AMOUNT_TOO_HIGH'
  | 'SCHEDULE_NOT_AVAILABLE'
  | 'OUTSTANDING_CREDIT_LIMIT'
  | 'VELOCITY_LIMIT'
  | 'BLOCKED'
  | 'SCORE_TOO_LOW'
  | 'CARD_PREPAID'
  | 'CARD_COUNTRY'
  | 'CARD_EXPIRES_BEFORE_LAST_DUE'
  /** Payment time only: the account's external scoring hook refused, or could not answer and the account's default is to refuse. */
  | 'EXTERNAL_SCORE_REFUSED'
  /** Only in the credential-less call, in place of the four {@link SHOPPER_REASONS}. */
  | 'SHOPPER_NOT_ELIGIBLE';

export const RISK_REASON_CODES: readonly RiskReasonCode[] = [
  'AMOUNT_TOO_LOW',
  'AMOUNT_TOO_HIGH',
  'SCHEDULE_NOT_AVAILABLE',
  'OUTSTANDING_CREDIT_LIMIT',
  'VELOCITY_LIMIT',
  'BLOCKED',
  'SCORE_TOO_LOW',
  'CARD_PREPAID',
  'CARD_COUNTRY',
  'CARD_EXPIRES_BEFORE_LAST_DUE',
  'EXTERNAL_SCORE_REFUSED',
  'SHOPPER_NOT_ELIGIBLE',
];

/** Reasons drawn from the shopper's history or the account's lists: never told to a credential-less caller (docs/risk.md#the-public-call). */
export const SHOPPER_REASONS: ReadonlySet<RiskReasonCode> = new Set(['OUTSTANDING_CREDIT_LIMIT', 'VELOCITY_LIMIT', 'BLOCKED', 'SCORE_TOO_LOW']);

export interface RiskReason {
  code: RiskReasonCode;
  /** One sentence for the merchant's developer; the code is what programs read. */
  message: string;
}

interface ShopperFacts {
  email?: string;
  ip?: string;
  cardFingerprint?: string;
}

export interface EligibilityInput {
  offerType: OfferType;
  amountCents: number;
  /** `yyyy-mm-dd`, the day the purchase would be created. */
  created: string;
  /** The simulation's schedule, or why there is none (the offer's own limits, its usury ceiling); SHARED offers have none. */
  schedule: { ok: Pick<Schedule, 'INSTALLMENT'> } | { refused: 'AMOUNT_TOO_LOW' | 'AMOUNT_TOO_HIGH' | 'SCHEDULE_NOT_AVAILABLE'; message: string } | undefined;
  rules: RiskRules;
  shopper: ShopperFacts;
  card?: CardFacts;
  history: ShopperHistory;
  score: Score;
}

export interface Decision {
  eligible: boolean;
  reasons: RiskReason[];
}

/**
 * The credit a plan grants: what is still owed once the checkout is paid, fees included — every
 * line due after the day of purchase (all of a deferred payment, all but the first installment).
 */
export function planCredit(schedule: Pick<Schedule, 'INSTALLMENT'>, created: string): number {
  let credit = 0;
  for (const l of schedule.INSTALLMENT) if (l.payment_date > created) credit += l.amount_cents + l.fees;
  return credit;
}

/** Whether a card valid through the end of `expMonth/expYear` expires before `dueDate` (`yyyy-mm-dd`). */
export function expiresBefore(card: Pick<CardFacts, 'expMonth' | 'expYear'>, dueDate: string): boolean {
  const [year, month] = dueDate.split('-').map(Number) as [number, number];
  return card.expYear * 12 + card.expMonth < year * 12 + month;
}

/** Adds a reason of refusal (a module function: a closure per decision would be made on every call). */
function refuse(reasons: RiskReason[], code: RiskReasonCode, message: string): void {
  reasons.push({ code, message });
}

/** Every rule of `input.rules` against the purchase, the shopper and (when known) the card. */
export function decide(input: EligibilityInput): Decision {
  const { rules, amountCents, history } = input;
  const reasons: RiskReason[] = [];
  const credit = input.offerType !== 'SHARED';

  if (rules.min_amount_cents !== undefined && amountCents < rules.min_amount_cents) {
    refuse(reasons, 'AMOUNT_TOO_LOW', `the amount is below this offer's risk minimum of ${rules.min_amount_cents}`);
  }
  if (rules.max_amount_cents !== undefined && amountCents > rules.max_amount_cents) {
    refuse(reasons, 'AMOUNT_TOO_HIGH', `the amount is above this offer's risk maximum of ${rules.max_amount_cents}`);
  }
  const schedule = input.schedule;
  if (schedule && 'refused' in schedule && !reasons.some((r) => r.code === schedule.refused)) refuse(reasons, schedule.refused, schedule.message);

  const who = input.card?.fingerprint !== undefined ? { ...input.shopper, cardFingerprint: input.card.fingerprint } : input.shopper;
  const blocked = listed(rules, 'blocked', who);
  if (blocked) refuse(reasons, 'BLOCKED', "the shopper's e-mail, card or address is on the account's block list");
  // A trusted shopper skips the rules about how much and how often they buy, never a block.
  const trusted = !blocked && listed(rules, 'allowed', who);

  if (credit && !trusted) {
    const newCredit = schedule && 'ok' in schedule ? planCredit(schedule.ok, input.created) : 0;
    if (rules.max_outstanding_cents !== undefined && history.outstandingCents + newCredit > rules.max_outstanding_cents) {
      refuse(reasons, 'OUTSTANDING_CREDIT_LIMIT', `the shopper's open plans and this one would owe more than ${rules.max_outstanding_cents}`);
    }
    const hour = rules.max_plans_per_hour !== undefined && history.plansLastHour + 1 > rules.max_plans_per_hour;
    const day = rules.max_plans_per_day !== undefined && history.plansLastDay + 1 > rules.max_plans_per_day;
    if (hour || day) refuse(reasons, 'VELOCITY_LIMIT', `the shopper started too many plans in the last ${hour ? 'hour' : 'day'}`);
  }
  if (!trusted && rules.min_score !== undefined && input.score.value < rules.min_score) {
    refuse(reasons, 'SCORE_TOO_LOW', `the shopper's score ${input.score.value} is below ${rules.min_score}`);
  }

  const card = input.card;
  if (card) {
    if (credit && rules.refuse_prepaid_cards === true && card.funding === 'prepaid') refuse(reasons, 'CARD_PREPAID', 'a prepaid card cannot carry a credit plan');
    const countries = rules.card_countries;
    if (countries !== undefined && countries.length > 0 && (card.country === undefined || !countries.includes(card.country.toUpperCase()))) {
      refuse(reasons, 'CARD_COUNTRY', `the card's issuing country (${card.country ?? 'unknown'}) is not among ${countries.join(', ')}`);
    }
    const last = schedule && 'ok' in schedule ? schedule.ok.INSTALLMENT.at(-1)?.payment_date : undefined;
    if (credit && rules.card_must_outlast_plan === true && last !== undefined && expiresBefore(card, last)) {
      refuse(reasons, 'CARD_EXPIRES_BEFORE_LAST_DUE', `the card expires before the plan's last payment on ${last}`);
    }
  }
  return { eligible: reasons.length === 0, reasons };
}
