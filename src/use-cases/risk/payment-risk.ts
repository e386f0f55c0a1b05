import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Offer } from '../../accounts/offer.ts';
import { cardFingerprint } from '../../crypto/card-fingerprint.ts';
import type { Sql } from '../../db/database.ts';
import { binOf, type CardFacts } from '../../domain/card-facts.ts';
import type { Clock } from '../../domain/clock.ts';
import { decide, type RiskReason } from '../../domain/eligibility.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { planLeaderPayment, type PlannedInstallment } from '../../domain/leader-plan.ts';
import { normaliseEmail, type RiskRules } from '../../domain/risk-rules.ts';
import { NO_HISTORY, scoreShopper, type Score, type ShopperHistory } from '../../domain/risk-score.ts';
import type { RequestedDates } from '../../domain/schedule.ts';
import type { AttachResult, CardInput } from '../../psp/connector.ts';
import { insertRiskDecision, refuseAfterHook, setDecisionHook } from '../../risk/risk-decision-repository.ts';
import type { RiskRulesCache } from '../../risk/risk-rules-cache.ts';
import { rulesInEffect, type StoredRiskRules } from '../../risk/risk-rules-repository.ts';
import type { HookVerdict, ScoringHookRequest } from '../../risk/scoring-hook.ts';
import type { StoredScoringHook } from '../../risk/scoring-hook-repository.ts';
import { shopperHistory, shopperLockKeys, type ShopperIdentity } from '../../risk/shopper-history-repository.ts';

/**
 * The risk decision at payment time (docs/risk.md#the-decision-at-payment-time): the eligibility
 * engine again, with what only the payment knows (the card's BIN, funding, issuing country,
 * expiry and fingerprint; the shopper's address), before anything is authorised or held. Every
 * decision is a record (`risk_decisions`), written in the transaction of the attempt it decides.
 */

export interface RiskDeps {
  rules: RiskRulesCache;
  /** The key of Chipin's card fingerprints (derived from the master key: 'card-fingerprints'). */
  cardKey: Buffer;
  /** Calls an account's external scoring hook (src/risk/scoring-hook.ts); never throws for the hook's faults. */
  callHook: (hook: StoredScoringHook, question: ScoringHookRequest) => Promise<HookVerdict>;
}

export interface PaymentRiskInput {
  purpose: 'leader' | 'pledge';
  accountId: string;
  purchaseId: string;
  offer: Offer;
  /** The purchase's amount (the leader), the pledge's (a pledger). */
  amountCents: number;
  /** The plan's lines (credit offers): its credit and last due date. */
  schedule?: readonly PlannedInstallment[];
  /** `yyyy-mm-dd`: the day the schedule counts from. */
  created: string;
  shopper: ShopperIdentity & { ip?: string };
  card: CardFacts;
  paymentId: string | null;
  pledgeId: string | null;
  /** The account's rules, read before the decision's transaction (the per-process copy: src/risk/risk-rules-cache.ts). */
  stored: StoredRiskRules;
  /** The account's enabled scoring hook, read with the rules; undefined when it has none. */
  hook: StoredScoringHook | undefined;
  /** The leader's fallback offers that could take this purchase ({@link fallbackCandidates}), decided only if this offer is refused. */
  fallbacks?: readonly FallbackCandidate[];
}

/** A fallback offer (docs/risk.md#the-fallback) and the leader's plan lines on it (none for SHARED: paid in full now). */
export interface FallbackCandidate {
  offer: Offer;
  schedule?: readonly PlannedInstallment[];
}

export interface RiskVerdict {
  decisionId: string;
  accepted: boolean;
  reasons: RiskReason[];
  score: Score | null;
  /** What the start of the decision took, for its record. */
  startedAt: number;
  /** Refused: the fallback offers the engine accepts for the same amount, shopper and card, in the rules' order. */
  fallbacks: Offer[];
}

/**
 * The offers the checkout may propose when `offer` is refused (its rule `fallback_offers`, in
 * order): another offer of the account in the purchase's currency whose own limits and schedule
 * take the amount; a SHARED offer is the leader paying in full now. Read before the decision's
 * transaction (the offers' per-process copy); the decision then runs the rules on each.
 */
export async function fallbackCandidates(
  byId: (accountId: string, id: string) => Promise<Offer | undefined>,
  stored: StoredRiskRules,
  offer: Offer,
  purchase: { amountCents: number; currency: string; createdAt: Date; requestedDates?: RequestedDates },
): Promise<FallbackCandidate[]> {
  const ids = rulesInEffect(stored, offer.id).fallback_offers ?? [];
  const out: FallbackCandidate[] = [];
  for (const uid of ids) {
    const id = parsePublicId('mer', uid);
    const other = id === undefined || id === offer.id ? undefined : await byId(offer.accountId, id);
    if (!other || other.currency !== purchase.currency) continue;
    if (purchase.amountCents < other.minAmountCents || purchase.amountCents > other.maxAmountCents) continue;
    const plan = planLeaderPayment(other, purchase.amountCents, [], purchase.createdAt, purchase.requestedDates);
    if ('problem' in plan) continue;
    out.push({ offer: other, ...(plan.schedule ? { schedule: plan.schedule } : {}) });
  }
  return out;
}

/** The card as the rules and the record see it: the PSP's answer to the tokenisation, and Chipin's BIN and fingerprint of the number. */
export function cardFactsOf(risk: RiskDeps, accountId: string, card: CardInput, attached: Extract<AttachResult, { ok: true }>): CardFacts {
  return {
    bin: binOf(card.number),
    last4: attached.last4,
    brand: attached.brand,
    funding: attached.funding ?? 'unknown',
    ...(attached.country ? { country: attached.country } : {}),
    expMonth: attached.expMonth,
    expYear: attached.expYear,
    fingerprint: cardFingerprint(risk.cardKey, accountId, card.number),
  };
}

/**
 * What applies to a pledger: a pledger lends nothing and has no history with the merchant, so
 * only the block lists and the card's country are theirs (docs/risk.md#what-applies).
 */
function pledgeRules(rules: RiskRules): RiskRules {
  const { blocked_emails, blocked_cards, blocked_ip_ranges, card_countries } = rules;
  return {
    ...(blocked_emails ? { blocked_emails } : {}),
    ...(blocked_cards ? { blocked_cards } : {}),
    ...(blocked_ip_ranges ? { blocked_ip_ranges } : {}),
    ...(card_countries ? { card_countries } : {}),
  };
}

/** The credit a leader's plan grants: every line after the one paid (installments) or held (deferred) at checkout. */
export function planCreditOf(offer: Pick<Offer, 'type'>, schedule: readonly PlannedInstallment[] | undefined): number {
  if (!schedule || offer.type === 'SHARED') return 0;
  const lent = offer.type === 'DEFERRED' ? schedule : schedule.slice(1);
  return lent.reduce((sum, l) => sum + l.amountCents + l.feesCents, 0);
}

/**
 * Decides and records, in `tx` (the transaction of the attempt): for a leader, the shopper's
 * advisory locks and history in one call, so that concurrent decisions about one shopper see
 * each other's reserved credit; for a pledger, no read at all. The record of an accepted credit
 * plan reserves its credit until the attempt is resolved.
 */
export async function decidePaymentRisk(tx: Sql, risk: RiskDeps, clock: Clock, input: PaymentRiskInput): Promise<RiskVerdict> {
  const startedAt = performance.now();
  const now = clock.now();
  const { offer, accountId, card } = input;
  const { stored } = input;
  const inEffect = rulesInEffect(stored, offer.id);
  const leader = input.purpose === 'leader';
  const rules = leader ? inEffect : pledgeRules(inEffect);
  const who: ShopperIdentity = {
    ...(input.shopper.email !== undefined ? { email: normaliseEmail(input.shopper.email) } : {}),
    ...(input.shopper.phone !== undefined ? { phone: input.shopper.phone } : {}),
    ...(input.shopper.customerId !== undefined ? { customerId: input.shopper.customerId } : {}),
    cardFingerprint: card.fingerprint,
  };
  const history: ShopperHistory = leader ? await shopperHistory(tx, accountId, who, now, { purchaseId: input.purchaseId, locks: shopperLockKeys(accountId, who) }) : NO_HISTORY;
  const score = leader ? scoreShopper(history, input.amountCents, now) : null;
  const decideOn = (offerType: Offer['type'], schedule: readonly PlannedInstallment[] | undefined, on: RiskRules) => {
    const lines = schedule?.map((l) => ({ amount_cents: l.amountCents, fees: l.feesCents, payment_date: l.dueDate }));
    return decide({
      offerType,
      amountCents: input.amountCents,
      created: input.created,
      schedule: lines ? { ok: { INSTALLMENT: lines } } : undefined,
      rules: on,
      shopper: { ...(who.email !== undefined ? { email: who.email } : {}), ...(input.shopper.ip !== undefined ? { ip: input.shopper.ip } : {}) },
      card,
      history,
      score: score ?? scoreShopper(NO_HISTORY, input.amountCents, now),
    });
  };
  const decision = decideOn(leader ? offer.type : 'SHARED', input.schedule, rules);
  // Refused, the fallback offers are decided on the same history and card: no other read.
  const fallbacks =
    leader && !decision.eligible ? (input.fallbacks ?? []).filter((f) => decideOn(f.offer.type, f.schedule, rulesInEffect(stored, f.offer.id)).eligible).map((f) => f.offer) : [];
  const decisionId = randomUUID();
  await insertRiskDecision(tx, {
    id: decisionId,
    accountId,
    purchaseId: input.purchaseId,
    offerId: offer.id,
    paymentId: input.paymentId,
    pledgeId: input.pledgeId,
    purpose: input.purpose,
    outcome: decision.eligible ? 'accepted' : 'refused',
    amountCents: input.amountCents,
    creditCents: decision.eligible && leader ? planCreditOf(offer, input.schedule) : 0,
    reasons: decision.reasons,
    score,
    inputs: {
      rules,
      card: {
        bin: card.bin,
        last4: card.last4,
        brand: card.brand,
        funding: card.funding,
        country: card.country ?? null,
        exp_month: card.expMonth,
        exp_year: card.expYear,
        fingerprint: card.fingerprint,
      },
      shopper: { email: who.email ?? null, phone: who.phone ?? null, customer_id: who.customerId ?? null, ip: input.shopper.ip ?? null },
      ...(leader ? { history: historyRecord(history) } : {}),
      ...(fallbacks.length > 0 ? { fallbacks: fallbacks.map((o) => toPublicId('mer', o.id)) } : {}),
      created: input.created,
    },
    hook: null,
    cardFingerprint: card.fingerprint,
    latencyMs: Math.round(performance.now() - startedAt),
    createdAt: now,
  });
  return { decisionId, accepted: decision.eligible, reasons: decision.reasons, score, startedAt, fallbacks };
}

/** The history's figures as the record keeps them (snake_case, dates as ISO strings). */
function historyRecord(h: ShopperHistory): Record<string, unknown> {
  return {
    completed_purchases: h.completedPurchases,
    failed_purchases: h.failedPurchases,
    recent_declines: h.recentDeclines,
    outstanding_cents: h.outstandingCents,
    largest_paid_cents: h.largestPaidCents,
    first_seen_at: h.firstSeenAt?.toISOString() ?? null,
    plans_last_hour: h.plansLastHour,
    plans_last_day: h.plansLastDay,
  };
}

/** The hook's answer about an accepted decision, and the reasons when it turns it into a refusal. */
export interface HookOutcome {
  answer: HookVerdict;
  latencyMs: number;
  refused?: RiskReason[];
}

/**
 * After an accepted decision, the account's external scoring hook, if it has one, outside any
 * transaction (it is an HTTP call, docs/risk.md#the-external-scoring-hook). Its refusal (or, when
 * it cannot answer, the account's default refusal) turns the decision into a refusal with
 * `EXTERNAL_SCORE_REFUSED`. Undefined: the account has no hook.
 */
export async function askScoringHook(risk: RiskDeps, input: PaymentRiskInput, verdict: RiskVerdict): Promise<HookOutcome | undefined> {
  if (!input.hook) return undefined;
  const { offer, card } = input;
  const answer = await risk.callHook(input.hook, {
    decision_id: verdict.decisionId,
    purchase_uid: `pur_${input.purchaseId}`,
    merchant_uid: `mer_${offer.id}`,
    offer_type: offer.type,
    installments: offer.installments,
    amount_cents: input.amountCents,
    currency: offer.currency,
    purpose: input.purpose,
    shopper: {
      ...(input.shopper.email !== undefined ? { email: normaliseEmail(input.shopper.email) } : {}),
      ...(input.shopper.phone !== undefined ? { phone: input.shopper.phone } : {}),
      ...(input.shopper.customerId !== undefined ? { customer_id: input.shopper.customerId } : {}),
      ...(input.shopper.ip !== undefined ? { ip: input.shopper.ip } : {}),
    },
    card: {
      bin: card.bin,
      last4: card.last4,
      brand: card.brand,
      funding: card.funding,
      ...(card.country ? { country: card.country } : {}),
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: card.fingerprint,
    },
    chipin: { eligible: verdict.accepted, reasons: verdict.reasons.map((r) => r.code), score: verdict.score?.value ?? null },
  });
  const latencyMs = Math.round(performance.now() - verdict.startedAt);
  if (answer.outcome === 'accept') return { answer, latencyMs };
  const message =
    answer.source === 'hook'
      ? `the account's scoring service refused${answer.reason ? ` (${answer.reason})` : ''}`
      : `the account's scoring service did not answer (${answer.error}) and the account's default is to refuse`;
  return { answer, latencyMs, refused: [{ code: 'EXTERNAL_SCORE_REFUSED', message }] };
}

/** Records the hook's answer on its decision, turned into a refusal when it refused, in the attempt's transaction. */
export async function recordHookAnswer(tx: Sql, accountId: string, verdict: RiskVerdict, asked: HookOutcome | undefined): Promise<void> {
  if (!asked) return;
  const hook = { ...asked.answer };
  if (asked.refused) await refuseAfterHook(tx, accountId, verdict.decisionId, asked.refused, hook, asked.latencyMs);
  else await setDecisionHook(tx, accountId, verdict.decisionId, hook, asked.latencyMs);
}
