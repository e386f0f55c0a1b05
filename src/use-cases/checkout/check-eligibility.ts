import { isIP } from 'node:net';
import type { Offer } from '../../accounts/offer.ts';
import type { OfferCache } from '../../accounts/offers.ts';
import type { ScheduleMemo } from '../../accounts/schedule-memo.ts';
import type { Sql } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { decide, SHOPPER_REASONS, type EligibilityInput, type RiskReason } from '../../domain/eligibility.ts';
import { isEmailAddress } from '../../domain/email.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { normaliseEmail } from '../../domain/risk-rules.ts';
import { NO_HISTORY, scoreShopper, type Score } from '../../domain/risk-score.ts';
import { ScheduleError, type Schedule } from '../../domain/schedule.ts';
import { zonedDay } from '../../i18n/format.ts';
import { normalizePhone } from '../../messaging/phone-numbers.ts';
import type { RiskRulesCache } from '../../risk/risk-rules-cache.ts';
import { rulesInEffect } from '../../risk/risk-rules-repository.ts';
import { shopperHistory, type ShopperIdentity } from '../../risk/shopper-history-repository.ts';

export interface EligibilityDeps {
  db: Sql;
  clock: Clock;
  offers: OfferCache;
  riskRules: RiskRulesCache;
  /** The schedules the simulation computes, shared so that both answer the same figures. */
  schedules: ScheduleMemo;
}

/** What the caller tells about the shopper; all optional (docs/risk.md#the-eligibility-call). */
interface ShopperData {
  email?: string;
  phone?: string;
  /** ISO 3166 alpha-2; kept for the payment-time decision and the external score (not read by a built-in rule yet). */
  country?: string;
  billing_address?: Record<string, string>;
  /** The merchant's own id of the customer (a client's `ref`). */
  customer_id?: string;
  /** The shopper's address, for the IP block and allow lists; the public call uses the caller's. */
  ip?: string;
}

export interface EligibilityRequest {
  amount: number;
  /** `mer_…` ids; absent: every offer of the account. */
  offers?: string[];
  /** `yyyy-mm-dd`; absent: today in the account's time zone. */
  created?: string;
  shopper?: ShopperData;
}

export interface OfferEligibility {
  merchant_uid: string;
  type: Offer['type'];
  installments: number;
  deferred_days: number;
  /** DOWN_PAYMENT offers only (docs/schedules.md#down-payment). */
  deposit_percent?: number;
  max_balance_delay_days?: number;
  currency: string;
  eligible: boolean;
  reasons: RiskReason[];
  /** The simulation's schedule when eligible and the offer has one (SHARED offers have none). */
  schedule: Schedule | null;
}

export type EligibilityOutcome =
  { kind: 'ok'; offers: OfferEligibility[]; score: Score } | { kind: 'not_found'; field: string } | { kind: 'invalid'; field: string; message: string };

const KIND_ORDER = { SHARED: 0, INSTALLMENTS: 1, DEFERRED: 2, DOWN_PAYMENT: 3 } as const;

/**
 * The default order of the answers: the pot, then installments by number, then deferred payment by
 * days, then down payments by their maximum balance delay (then by id, for a stable order).
 */
function byKind(x: Offer, y: Offer): number {
  return (
    KIND_ORDER[x.type] - KIND_ORDER[y.type] ||
    x.installments - y.installments ||
    x.deferredDays - y.deferredDays ||
    (x.maxBalanceDelayDays ?? 0) - (y.maxBalanceDelayDays ?? 0) ||
    (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)
  );
}

/** The account's offers in the default order, sorted once per copy of the offer cache's list. */
const SORTED = new WeakMap<readonly Offer[], readonly Offer[]>();

function inDefaultOrder(all: readonly Offer[]): readonly Offer[] {
  let sorted = SORTED.get(all);
  if (sorted === undefined) SORTED.set(all, (sorted = [...all].sort(byKind)));
  return sorted;
}

/** The simulation's schedule, or the reason there is none, as the engine takes it. */
function scheduleOf(memo: ScheduleMemo, offer: Offer, amount: number, created: string): { ok: Schedule } | Exclude<EligibilityInput['schedule'], { ok: unknown }> {
  if (offer.type === 'SHARED') {
    if (amount < offer.minAmountCents) return { refused: 'AMOUNT_TOO_LOW', message: `the amount is below the offer's minimum of ${offer.minAmountCents}` };
    if (amount > offer.maxAmountCents) return { refused: 'AMOUNT_TOO_HIGH', message: `the amount is above the offer's maximum of ${offer.maxAmountCents}` };
    return undefined;
  }
  try {
    return { ok: memo.schedule(offer, amount, created) };
  } catch (err) {
    if (err instanceof ScheduleError) {
      const code = err.code === 'amount_below_minimum' ? 'AMOUNT_TOO_LOW' : err.code.startsWith('amount_above') ? 'AMOUNT_TOO_HIGH' : 'SCHEDULE_NOT_AVAILABLE';
      return { refused: code, message: err.message };
    }
    // Offer terms no schedule can come from (an operator's mistake): the offer is not sellable.
    if (err instanceof RangeError) return { refused: 'SCHEDULE_NOT_AVAILABLE', message: 'this offer cannot produce a payment schedule at the moment' };
    throw err;
  }
}

/** The shopper's identity from what the caller sent, or the field that is malformed. */
function identityOf(shopper: ShopperData | undefined): { identity: ShopperIdentity } | { field: string; message: string } {
  const identity: ShopperIdentity = {};
  if (shopper?.email !== undefined) {
    if (!isEmailAddress(shopper.email.trim())) return { field: 'shopper.email', message: 'must be an e-mail address' };
    identity.email = normaliseEmail(shopper.email);
  }
  if (shopper?.phone !== undefined) {
    const phone = normalizePhone(shopper.phone);
    if (phone === undefined) return { field: 'shopper.phone', message: 'must be an international phone number (+33612345678)' };
    identity.phone = phone;
  }
  if (shopper?.customer_id !== undefined) identity.customerId = shopper.customer_id;
  if (shopper?.ip !== undefined && isIP(shopper.ip) === 0) return { field: 'shopper.ip', message: 'must be an IPv4 or IPv6 address' };
  return { identity };
}

/**
 * The eligibility call (docs/risk.md#the-eligibility-call): for each offer asked (default: every
 * offer of the account), whether it may be sold for this amount to this shopper, with the reasons
 * when not and the simulation's schedule when so. Reads only: the rules (cached), the offers
 * (cached) and, when the shopper is named, their history in one query.
 *
 * The credential-less variant answers the same decision through {@link publicView}.
 */
export async function checkEligibility(deps: EligibilityDeps, accountId: string, request: EligibilityRequest): Promise<EligibilityOutcome> {
  const all = await deps.offers.list(accountId);
  let offers = inDefaultOrder(all);
  if (request.offers !== undefined) {
    const asked: Offer[] = [];
    for (const [i, merchantUid] of request.offers.entries()) {
      const id = parsePublicId('mer', merchantUid);
      const offer = id === undefined ? undefined : all.find((o) => o.id === id);
      if (!offer) return { kind: 'not_found', field: `offers[${i}]` };
      if (!asked.includes(offer)) asked.push(offer);
    }
    offers = asked;
  }
  const who = identityOf(request.shopper);
  if ('field' in who) return { kind: 'invalid', ...who };
  const now = deps.clock.now();
  const created = request.created ?? zonedDay(now, all[0]?.accountTimeZone ?? 'UTC');

  const stored = await deps.riskRules.rules(accountId);
  const named = who.identity.email !== undefined || who.identity.phone !== undefined || who.identity.customerId !== undefined;
  const history = named ? await shopperHistory(deps.db, accountId, who.identity, now) : NO_HISTORY;
  const score = scoreShopper(history, request.amount, now);
  const shopper = { ...(who.identity.email !== undefined ? { email: who.identity.email } : {}), ...(request.shopper?.ip !== undefined ? { ip: request.shopper.ip } : {}) };

  const answers = offers.map((offer): OfferEligibility => {
    const schedule = scheduleOf(deps.schedules, offer, request.amount, created);
    const rules = rulesInEffect(stored, offer.id);
    const decision = decide({ offerType: offer.type, amountCents: request.amount, created, schedule, rules, shopper, history, score });
    return {
      merchant_uid: toPublicId('mer', offer.id),
      type: offer.type,
      installments: offer.installments,
      deferred_days: offer.deferredDays,
      ...(offer.type === 'DOWN_PAYMENT' ? { deposit_percent: offer.depositPercent!, max_balance_delay_days: offer.maxBalanceDelayDays! } : {}),
      currency: offer.currency,
      eligible: decision.eligible,
      reasons: decision.reasons,
      schedule: decision.eligible && schedule && 'ok' in schedule ? schedule.ok : null,
    };
  });
  return { kind: 'ok', offers: answers, score };
}

/**
 * The answer of the credential-less call: a refusal drawn from the shopper's history or the
 * account's lists says only `SHOPPER_NOT_ELIGIBLE`, once, and the score is left out — a product
 * page learns which plans to show, a stranger learns nothing of why (docs/risk.md#the-public-call).
 */
export function publicView(offers: OfferEligibility[]): OfferEligibility[] {
  return offers.map((o) => {
    if (!o.reasons.some((r) => SHOPPER_REASONS.has(r.code))) return o;
    const kept = o.reasons.filter((r) => !SHOPPER_REASONS.has(r.code));
    kept.push({ code: 'SHOPPER_NOT_ELIGIBLE', message: 'this plan cannot be offered to this shopper' });
    return { ...o, reasons: kept };
  });
}
