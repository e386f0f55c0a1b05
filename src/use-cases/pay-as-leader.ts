import type { Offer } from '../accounts/offer.ts';
import type { Sql } from '../db/database.ts';
import { EVENT } from '../domain/events.ts';
import {
  isLeaderPurpose,
  LEADER_BUSY_MS,
  LEADER_PURPOSES,
  leaderRefusedComment,
  planLeaderPayment,
  plannedCharges,
  pledgerRequired,
  PLEDGER_REQUIRED,
  type LeaderPlan,
  type PlanProblem,
} from '../domain/leader-plan.ts';
import { potComment, potDeadline } from '../domain/pot.ts';
import { formatIsoDate } from '../domain/apr.ts';
import type { RiskReason } from '../domain/eligibility.ts';
import { riskRefusedComment } from '../domain/risk-rules.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { isPspFault, threeDSecureInput, type AttachResult, type CardInput, type DeclineReason, type TransactionResult, type ChallengeReturn } from '../psp/connector.ts';
import { firstOffStep } from '../psp/definition.ts';
import { insertPlan } from '../payments/installment-repository.ts';
import { leaderReturnUrl } from '../domain/links.ts';
import {
  afterResult,
  findPurchasePayment,
  insertPayment,
  insertPaymentMethod,
  leaderAttempts,
  markDeclined,
  recordResult,
  savedPspMethodId,
  setPaymentPspMethod,
  releasePendingAttempt,
  unresolvedLeaderAttempt,
  writeEvent,
  pspRef,
  resultRef,
  type PaymentRow,
  type UnresolvedPayment,
} from '../payments/payment-repository.ts';
import { loadPayState, lockPayState, setAttempts, setLeaderTerms, setPaymentMethod, setPurchasePaymentMode, type PurchasePayState } from '../payments/pay-state-repository.ts';
import { draftShares, insertDraftPledges, inviteDrafts, type NewPledge } from '../payments/pledge-repository.ts';
import { applyMove, type MoveResult } from '../purchases/transitions.ts';
import { scheduleCollections } from './collect-installment.ts';
import type { PaymentDeps } from './deps.ts';
import { giveBack } from './give-back.ts';
import { invitePledgers } from './notify-pledgers.ts';
import { schedulePotJobs } from './pot-jobs.ts';
import { scheduleReauthorization } from './reauthorize-hold.ts';
import { dueAt } from '../domain/installment-rules.ts';
import { scheduleReconciliation } from '../jobs/reconciliation.ts';
import { sendLeaderReceipt } from './shopper-notices.ts';
import type { AccountConnector } from '../psp/registry.ts';
import { storedCredentialOf, storeForLater } from './stored-card.ts';
import { askScoringHook, cardFactsOf, decidePaymentRisk, fallbackCandidates, recordHookAnswer, type PaymentRiskInput } from './payment-risk.ts';
import { setPurchaseComment } from '../purchases/purchase-repository.ts';
import { underPaymentLease } from './payment-lease.ts';

/** The leader's invitations as the checkout's form gives them (`payAsLeader`'s `pledgers`). */
export type { NewPledge };

export type LeaderOutcome =
  | { kind: 'processed'; state: PurchaseState }
  | { kind: 'challenge'; url: string }
  | { kind: 'declined'; reason: DeclineReason; message: string; attemptsLeft: number; state: PurchaseState }
  /**
   * The risk rules refused the plan before anything was authorised (docs/risk.md#the-decision-at-payment-time);
   * `fallbacks`: the offers the rules accept instead, while the purchase is still CREATED (docs/risk.md#the-fallback).
   */
  | { kind: 'risk_refused'; reasons: RiskReason[]; attemptsLeft: number; state: PurchaseState; fallbacks: Offer[] }
  | { kind: 'not_payable'; state: PurchaseState }
  | { kind: 'in_progress' }
  /**
   * The purchase moved to another offer (a fallback taken, docs/risk.md#the-fallback) between the
   * page's offer and the attempt's start: nothing was started nor charged; the leader is shown the
   * new offer's checkout and pays again on its terms.
   */
  | { kind: 'offer_changed' }
  | { kind: 'invalid'; field: string; problem: PlanProblem | { code: 'not_shared' } | { code: 'pledger_required'; message: string } | { code: 'psp_amount'; message: string } };

/** One checkout attempt under way: what the steps after the leader's authorisation need. */
interface LeaderCheckout {
  offer: Offer;
  psp: AccountConnector;
  plan: LeaderPlan;
  /** The payment row of the checkout transaction (its idempotency key derives the others'). */
  payment: PaymentRow;
  /** The PSP token of the leader's card (the share is charged on it off-session). */
  pspMethodId: string;
}

type Decline = { reason: DeclineReason; message: string };

/**
 * The leader pays on the hosted page (or through the sandbox helper): card attached, the
 * checkout amount authorised (3-D Secure when the card asks), then the purchase moves to
 * LEADER_PROCESSED and the pledgers are invited. A refusal keeps the purchase CREATED, records
 * `payment.failed`, and after the offer's max attempts moves it to FAILED
 * (docs/purchase-lifecycle.md#moves).
 */
export async function payAsLeader(
  deps: PaymentDeps,
  purchase: { id: string; accountId: string },
  card: CardInput,
  pledgers: NewPledge[],
  returnUrl: (paymentId: string) => string,
  context: {
    ip?: string;
    offerId?: string;
    /**
     * The Idempotency-Key request this is (docs/api-conventions.md#idempotency-key), stored on the
     * attempt it starts; a retry that took the key over after the first request failed resolves
     * that request's attempt at once rather than answering "in progress" for it.
     */
    requestKey?: string;
  } = {},
): Promise<LeaderOutcome> {
  const state = await loadPayState(deps.db, purchase.accountId, purchase.id);
  if (!state) return { kind: 'not_payable', state: 'CANCELLED' };
  if (state.state !== 'CREATED') return { kind: 'not_payable', state: state.state };
  // The offer whose terms the leader was shown (the checkout's form says which): a fallback taken
  // since, in another tab, is not charged on terms the leader did not see (docs/risk.md#the-fallback).
  if (context.offerId !== undefined && context.offerId !== state.offerId) return { kind: 'offer_changed' };
  const offer = (await deps.offers.byId(purchase.accountId, state.offerId))!;
  if (offer.type !== 'SHARED' && pledgers.length > 0) return { kind: 'invalid', field: 'pledgers', problem: { code: 'not_shared' } };
  // Checked before anything is reserved or attached, at each attempt: a checkout already under way
  // (a challenge, a replay) goes on under the terms it started with.
  if (pledgerRequired(offer, pledgers.length)) return { kind: 'invalid', field: 'pledgers', problem: { code: 'pledger_required', message: PLEDGER_REQUIRED } };
  const plan = planLeaderPayment(
    offer,
    state.amountCents,
    pledgers.map((p) => p.amountCents),
    state.createdAt,
    state.requestedDates,
  );
  if ('problem' in plan) return { kind: 'invalid', field: 'pledgers', problem: plan.problem };
  const psp = await deps.psps.forOffer(offer);
  // The pot's shares are the leader's: what the PSP could not charge as it is (Midtrans: sen in
  // IDR) is refused before anything is reserved or sent, never rounded.
  const offStep = offPspStep(deps, psp.name, state.currency, plan, pledgers);
  if (offStep) return { kind: 'invalid', field: 'pledgers', problem: offStep };

  // An earlier attempt left unresolved (a crash between the PSP's answer and its recording, an
  // unanswered challenge) is resolved first, with its own idempotency key: the PSP answers what
  // it did, that is recorded, and only a refused attempt lets this one charge the new card.
  const unresolved = await unresolvedLeaderAttempt(deps.db, purchase.accountId, purchase.id, LEADER_PURPOSES);
  if (unresolved) {
    // The attempt of this very request, which failed (its answer lost, its recording cut) before
    // the PSP's answer was recorded: the takeover of its key means its process is done with it,
    // so it is resolved now, not after
    // LEADER_BUSY_MS; its outcome is this request's. A concurrent replay by a process still
    // running it would use the same PSP key: the PSP answers both the one outcome.
    const own = context.requestKey !== undefined && unresolved.request_key === context.requestKey && unresolved.status === 'pending';
    const resolved = await resolveLeaderAttempt(deps, unresolved, own ? 0 : LEADER_BUSY_MS);
    if (own && resolved) return resolved;
    if (resolved && resolved.kind !== 'declined') return resolved;
    if (resolved && resolved.state !== 'CREATED') return resolved;
  }

  const reserved = await reserveAttempt(deps, state, offer, plan, pledgers, psp, context.requestKey);
  if ('outcome' in reserved) return reserved.outcome;
  const { payment } = reserved;
  try {
    return await underPaymentLease(deps, payment, () => checkoutAtPsp(deps, { state, offer, plan, psp, payment }, card, returnUrl, context));
  } catch (err) {
    // A PSP fault (unreachable, timeout, 5xx): the row stays pending (with its card if the
    // authorisation was sent), so the leader's next attempt replays it with the same key first —
    // never a second charge — and is not told to wait. The purchase is unchanged.
    if (isPspFault(err)) await releasePendingAttempt(deps.db, payment, LEADER_BUSY_MS, deps.clock.now());
    throw err;
  }
}

/** The first amount of the plan the PSP cannot charge as it is, as a `psp_amount` problem; undefined when it can charge them all. */
function offPspStep(deps: PaymentDeps, pspName: string, currency: string, plan: LeaderPlan, pledgers: NewPledge[]): { code: 'psp_amount'; message: string } | undefined {
  const definition = deps.psps.definition(pspName);
  if (!definition) return undefined;
  const off = firstOffStep(
    definition,
    currency,
    plannedCharges(
      plan,
      pledgers.map((p) => p.amountCents),
    ),
  );
  return off && { code: 'psp_amount', message: `${off.charge.what} of ${off.charge.amountCents} ${off.refused}` };
}

/**
 * The PSP side of a reserved checkout attempt: attach, the risk decision on the card (before
 * anything is authorised or held), authorise, then the steps after.
 */
async function checkoutAtPsp(
  deps: PaymentDeps,
  { state, offer, plan, psp, payment }: { state: PurchasePayState; offer: Offer; plan: LeaderPlan; psp: AccountConnector; payment: PaymentRow },
  card: CardInput,
  returnUrl: (paymentId: string) => string,
  context: { ip?: string },
): Promise<LeaderOutcome> {
  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${payment.idempotency_key}:attach`, card });
  if (!attached.ok) return leaderDeclined(deps, offer, payment, { reason: attached.reason, message: attached.message });
  const stored = await deps.risk.rules.rules(state.accountId);
  const risk: PaymentRiskInput = {
    purpose: 'leader',
    accountId: state.accountId,
    purchaseId: state.id,
    offer,
    amountCents: state.amountCents,
    ...(plan.schedule ? { schedule: plan.schedule } : {}),
    created: formatIsoDate(state.createdAt),
    shopper: { ...state.shopper, ...(context.ip !== undefined ? { ip: context.ip } : {}) },
    card: cardFactsOf(deps.risk, state.accountId, card, attached),
    paymentId: payment.id,
    pledgeId: null,
    stored,
    hook: await deps.risk.rules.scoringHook(state.accountId),
    fallbacks: await fallbackCandidates((a, id) => deps.offers.byId(a, id), stored, offer, state),
  };
  const card_ = { psp: psp.name, attached, returnUrl: returnUrl(payment.id) };
  let saved: Saved;
  if (!risk.hook) {
    saved = await deps.db.transaction(async (tx) => {
      const verdict = await decidePaymentRisk(tx, deps.risk, deps.clock, risk);
      if (!verdict.accepted) return { kind: 'refused', outcome: await riskRefused(deps, tx, offer, payment, verdict.decisionId, verdict.reasons, verdict.fallbacks) };
      return saveCard(deps, tx, state, payment, card_);
    });
  } else {
    // The account's scoring hook is an HTTP call: asked between two transactions, the card saved
    // only once it accepted, so that a crash meanwhile leaves an attempt never sent (abandoned).
    const verdict = await deps.db.transaction((tx) => decidePaymentRisk(tx, deps.risk, deps.clock, risk));
    if (!verdict.accepted) {
      const outcome = await deps.db.transaction((tx) => riskRefused(deps, tx, offer, payment, verdict.decisionId, verdict.reasons, verdict.fallbacks));
      return outcome;
    }
    const answer = await askScoringHook(deps.risk, risk, verdict);
    saved = await deps.db.transaction(async (tx) => {
      await recordHookAnswer(tx, state.accountId, verdict, answer);
      // The hook was asked about this offer only: its refusal proposes no fallback.
      if (answer?.refused) return { kind: 'refused', outcome: await riskRefused(deps, tx, offer, payment, verdict.decisionId, answer.refused, []) };
      return saveCard(deps, tx, state, payment, card_);
    });
  }
  if (saved === 'gone') return { kind: 'in_progress' };
  if (saved.kind === 'refused') return saved.outcome;
  const result = await psp.authorize({
    idempotencyKey: payment.idempotency_key,
    paymentMethodId: attached.paymentMethodId,
    amountCents: plan.authorizeCents,
    currency: state.currency,
    capture: plan.capture,
    returnUrl: card_.returnUrl,
    storeForLater: storeForLater(plan),
    ...threeDSecureInput(offer.use3ds),
  });
  return continueLeader(deps, { offer, psp, plan, payment, pspMethodId: attached.paymentMethodId }, result);
}

type Saved = { kind: 'saved' } | { kind: 'refused'; outcome: LeaderOutcome } | 'gone';

/**
 * After the 3-D Secure challenge: the PSP's outcome of the leader's authorisation decides. The
 * payment is found by the purchase AND its id (docs/security.md#returns-and-ids): another
 * purchase's payment, or one that is no leader authorisation sent to the PSP, is `not_found` and
 * nothing is asked of the PSP.
 */
export async function resumeLeaderAfterChallenge(
  deps: PaymentDeps,
  purchase: { id: string; accountId: string },
  paymentId: string,
  returned?: ChallengeReturn,
): Promise<LeaderOutcome | { kind: 'not_found' }> {
  const { db, offers, psps } = deps;
  const { accountId } = purchase;
  const payment = await findPurchasePayment(db, accountId, purchase.id, paymentId);
  if (!payment || !isLeaderPurpose(payment.purpose) || !payment.psp_transaction_id) return { kind: 'not_found' };
  const state = (await loadPayState(db, accountId, payment.purchase_id))!;
  if (state.state !== 'CREATED') {
    // Aborted or expired while the shopper was in 3-D Secure: what the challenge let the PSP
    // take is given back now rather than at the next reconciliation.
    const unresolved = payment.status === 'requires_action' || payment.status === 'pending';
    return (unresolved && (await resolveLeaderAttempt(deps, payment, 0))) || { kind: 'not_payable', state: state.state };
  }
  const offer = (await offers.byId(accountId, state.offerId))!;
  const psp = await psps.forPayment(payment);
  const result = await psp.retrieve(pspRef(payment), { returned });
  // The plan is not stored: computed again from the drafts the leader submitted and the offer,
  // fixed since the attempt started (docs/risk.md#the-fallback), it is the same.
  const plan = planLeaderPayment(offer, state.amountCents, await draftShares(db, accountId, payment.purchase_id), state.createdAt, state.requestedDates);
  if ('problem' in plan) return { kind: 'invalid', field: 'pledgers', problem: plan.problem };
  const pspMethodId = (await savedPspMethodId(db, accountId, payment.purchase_id))!;
  return continueLeader(deps, { offer, psp, plan, payment, pspMethodId }, result);
}

/**
 * Resolves a leader checkout attempt left `pending` or `requires_action`, untouched for at least
 * `minAgeMs` (younger, it may still be running: answered "in progress"). Used by a retry, a new
 * attempt and the reconciliation job alike:
 * - pending, never sent (no card on the row): marked abandoned, nothing was charged;
 * - pending, sent: the authorisation is replayed with the same idempotency key and card — the PSP
 *   answers its stored outcome — and the checkout continues as the first attempt would have;
 * - awaiting 3-D Secure: the PSP is asked; completed, the checkout continues; still pending, the
 *   challenge is voided so that it can never be completed after another attempt charged.
 * Answers the outcome of the resolved attempt, or undefined when it charged nothing.
 */
export async function resolveLeaderAttempt(deps: PaymentDeps, payment: PaymentRow & { lease?: UnresolvedPayment['lease'] }, minAgeMs: number): Promise<LeaderOutcome | undefined> {
  const { db, clock, offers, psps } = deps;
  const now = clock.now();
  // A request still running it (its lease live) is never overtaken; one whose lease lapsed is in
  // doubt whatever its age (docs/money-operations.md#payments-in-doubt); the age rule is for
  // attempts without a lease.
  if (payment.lease === 'live') return { kind: 'in_progress' };
  if (payment.lease !== 'lapsed' && now.getTime() - new Date(payment.updated_at).getTime() < minAgeMs) return { kind: 'in_progress' };
  const { account_id: accountId, purchase_id: purchaseId } = payment;
  const state = (await loadPayState(db, accountId, purchaseId))!;
  const offer = (await offers.byId(accountId, state.offerId))!;
  const psp = await psps.forPayment(payment);
  if (payment.status === 'pending' && !payment.psp_method_id) {
    await markDeclined(db, payment, 'abandoned', now);
    return undefined;
  }
  // The plan is not stored: computed again from the drafts the leader submitted and the offer,
  // fixed since the attempt started (docs/risk.md#the-fallback), it is the same.
  const plan = planLeaderPayment(offer, state.amountCents, await draftShares(db, accountId, purchaseId), state.createdAt, state.requestedDates);
  if ('problem' in plan) return { kind: 'invalid', field: 'pledgers', problem: plan.problem };
  let result: TransactionResult;
  if (payment.status === 'pending') {
    result = await psp.authorize({
      idempotencyKey: payment.idempotency_key,
      paymentMethodId: payment.psp_method_id!,
      amountCents: payment.amount_cents,
      currency: state.currency,
      capture: plan.capture,
      returnUrl: payment.psp_return_url ?? leaderReturnUrl(deps.publicUrl, purchaseId, payment.id),
      storeForLater: storeForLater(plan),
      ...threeDSecureInput(offer.use3ds),
    });
  } else {
    result = await psp.retrieve(pspRef(payment));
    if (result.status === 'requires_action') {
      const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:abandon`, transaction: resultRef(payment, result) });
      // Refused: the shopper completed the challenge in between; its outcome decides.
      result = voided.status === 'voided' ? voided : await psp.retrieve(resultRef(payment, voided));
      if (result.status === 'voided') {
        await db.transaction((tx) => recordResult(tx, payment, result, state.state, clock.now()));
        return undefined;
      }
    }
  }
  if (state.state !== 'CREATED' && result.status !== 'requires_action') {
    // The purchase moved on (aborted, expired) while the attempt was unresolved: record the
    // outcome, and give back what it holds. Unless another resolution of the same attempt (a
    // tab's reload, the reconciliation job) recorded it first: the purchase may have moved on
    // because of it (opened with this very money), and what to give back was decided there.
    const recorded = await db.transaction((tx) => recordResult(tx, payment, result, state.state, clock.now()));
    if (recorded) await giveBack(deps, afterResult(payment, result), result);
    return { kind: 'not_payable', state: state.state };
  }
  const pspMethodId = payment.psp_method_id ?? (await savedPspMethodId(db, accountId, purchaseId))!;
  return continueLeader(deps, { offer, psp, plan, payment, pspMethodId }, result);
}

/**
 * The hosted page's wait for the leader's attempt in progress (docs/hosted-payment.md#an-attempt-in-progress):
 * a `pending` attempt is resolved once it is in doubt — untouched for LEADER_BUSY_MS, as a new
 * attempt would resolve it — and `in_progress` is answered before; a 3-D Secure challenge is left
 * to its own page. Undefined when there is no such attempt, or it charged nothing.
 */
export async function confirmLeaderAttempt(deps: PaymentDeps, purchase: { id: string; accountId: string }): Promise<LeaderOutcome | undefined> {
  const unresolved = await unresolvedLeaderAttempt(deps.db, purchase.accountId, purchase.id, LEADER_PURPOSES);
  if (!unresolved || unresolved.status !== 'pending') return undefined;
  return resolveLeaderAttempt(deps, unresolved, LEADER_BUSY_MS);
}

/**
 * One leader payment at a time per purchase, whatever the double clicks: under the purchase's
 * row lock, refuses while another attempt runs or when the purchase's offer is no longer the
 * plan's, stores the invitations as drafts and the payment row (with its idempotency key) before
 * any PSP call. From then on the offer is fixed: a switch waits for the attempt's outcome.
 */
async function reserveAttempt(
  deps: PaymentDeps,
  state: PurchasePayState,
  offer: Offer,
  plan: LeaderPlan,
  pledgers: NewPledge[],
  psp: AccountConnector,
  requestKey: string | undefined,
): Promise<{ payment: PaymentRow } | { outcome: LeaderOutcome }> {
  const { db, clock } = deps;
  const { accountId, id: purchaseId } = state;
  return db.transaction(async (tx) => {
    const locked = await lockPayState(tx, accountId, purchaseId);
    if (locked.state !== 'CREATED') return { outcome: { kind: 'not_payable', state: locked.state } };
    // The offer is fixed once the attempt starts (docs/risk.md#the-fallback): the plan was
    // computed from the offer read before this lock; after a switch made since, it is charged
    // neither on the old offer's terms (the purchase is no longer on it) nor on the new one's (the
    // leader was not shown them).
    if (locked.offerId !== state.offerId) return { outcome: { kind: 'offer_changed' } };
    const now = clock.now();
    const attempts = await leaderAttempts(tx, accountId, purchaseId, LEADER_PURPOSES, new Date(now.getTime() - LEADER_BUSY_MS));
    if (attempts.busy > 0) return { outcome: { kind: 'in_progress' } };
    // Never a second key for the same money while an earlier attempt is unresolved.
    if (await unresolvedLeaderAttempt(tx, accountId, purchaseId, LEADER_PURPOSES)) return { outcome: { kind: 'in_progress' } };
    await insertDraftPledges(tx, accountId, purchaseId, pledgers, now);
    // Charged on the offer's PSP account from now on: booked in the offer's mode (docs/money-operations.md#transfer-mode).
    if (offer.paymentMode !== locked.paymentMode) await setPurchasePaymentMode(tx, accountId, purchaseId, offer.paymentMode);
    const payment = await insertPayment(
      tx,
      {
        accountId,
        purchaseId,
        purpose: plan.purpose,
        psp: psp.name,
        pspAccountId: psp.pspAccountId,
        idempotencyKey: `${purchaseId}:leader:${attempts.n + 1}`,
        amountCents: plan.authorizeCents,
        ...(requestKey !== undefined ? { requestKey } : {}),
        leased: true,
      },
      now,
    );
    await scheduleReconciliation(tx, now);
    return { payment };
  });
}

/**
 * The card the PSP attached becomes the purchase's saved card (token, brand, last four, expiry
 * only) and the attempt's card, in the transaction of the risk decision; `gone` when the attempt
 * is no longer pending (resolved meanwhile as abandoned: the process was too slow).
 */
async function saveCard(
  deps: PaymentDeps,
  tx: Sql,
  state: PurchasePayState,
  payment: PaymentRow,
  { psp, attached, returnUrl }: { psp: string; attached: Extract<AttachResult, { ok: true }>; returnUrl: string },
): Promise<Saved> {
  if (!(await setPaymentPspMethod(tx, payment, attached.paymentMethodId, returnUrl))) return 'gone';
  const card = { psp, pspMethodId: attached.paymentMethodId, brand: attached.brand, last4: attached.last4, expMonth: attached.expMonth, expYear: attached.expYear };
  const methodId = await insertPaymentMethod(tx, state.accountId, state.id, card, deps.clock.now());
  await setPaymentMethod(tx, state.accountId, state.id, methodId);
  return { kind: 'saved' };
}

/** The steps after the PSP answered the checkout authorisation (at once, or after 3-D Secure). */
async function continueLeader(deps: PaymentDeps, checkout: LeaderCheckout, result: TransactionResult): Promise<LeaderOutcome> {
  const { payment, offer } = checkout;
  if (result.status === 'requires_action') {
    await deps.db.transaction((tx) => recordResult(tx, payment, result, 'CREATED', deps.clock.now()));
    return { kind: 'challenge', url: result.challengeUrl! };
  }
  if (result.status !== 'authorized' && result.status !== 'captured') return leaderDeclined(deps, offer, payment, result.decline, result);
  let share: Charged | undefined;
  if (checkout.plan.purpose === 'guarantee') {
    const charged = await chargeLeaderShare(deps, checkout, result);
    if ('outcome' in charged) return charged.outcome;
    share = charged;
  }
  const state = await recordAndOpen(deps, checkout, result, share);
  if (state === 'ABORTED' || state === 'CANCELLED') {
    // Aborted or expired while the PSP answered: nothing this attempt took may be kept.
    await giveBack(deps, afterResult(payment, result), result);
    if (share) await giveBack(deps, afterResult(share.payment, share.result), share.result);
    return { kind: 'not_payable', state };
  }
  if (state === 'LEADER_PROCESSED' && offer.type === 'SHARED') await invitePledgers(deps, payment.account_id, payment.purchase_id);
  if (state === 'LEADER_PROCESSED' || state === 'SUCCESSFUL') await sendLeaderReceipt(deps, payment.account_id, payment.purchase_id, payment.id);
  return { kind: 'processed', state };
}

type Charged = { payment: PaymentRow; result: TransactionResult };

/**
 * SHARED with pledgers: the guarantee holds the friends' part (amount − leader's share); the
 * leader's own share is charged now, off-session on the saved card (so one 3-D Secure challenge,
 * docs/hosted-payment.md). Refused, the guarantee is voided and the attempt counts as
 * a refusal.
 */
async function chargeLeaderShare(deps: PaymentDeps, checkout: LeaderCheckout, guarantee: TransactionResult): Promise<Charged | { outcome: LeaderOutcome }> {
  const { db, clock } = deps;
  const { payment, psp, plan, offer } = checkout;
  const sharePayment = await insertPayment(
    db,
    {
      accountId: payment.account_id,
      purchaseId: payment.purchase_id,
      purpose: 'leader_share',
      psp: psp.name,
      pspAccountId: psp.pspAccountId,
      idempotencyKey: `${payment.idempotency_key}:share`,
      amountCents: plan.leaderShareCents,
    },
    clock.now(),
  );
  const result = await psp.chargeOffSession({
    idempotencyKey: sharePayment.idempotency_key,
    paymentMethodId: checkout.pspMethodId,
    amountCents: plan.leaderShareCents,
    currency: offer.currency,
    storedCredential: storedCredentialOf(guarantee),
  });
  if (result.status === 'captured') return { payment: sharePayment, result };
  const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:void`, transaction: resultRef(payment, guarantee) });
  await db.transaction(async (tx) => {
    await recordResult(tx, payment, guarantee, 'CREATED', clock.now());
    await recordResult(tx, afterResult(payment, guarantee), voided, 'CREATED', clock.now());
  });
  return { outcome: await leaderDeclined(deps, offer, sharePayment, result.decline, result) };
}

/** Records the PSP's answers and, if the purchase is still CREATED, opens it, in one transaction. */
async function recordAndOpen(deps: PaymentDeps, checkout: LeaderCheckout, result: TransactionResult, share: Charged | undefined): Promise<PurchaseState> {
  const { db, clock } = deps;
  const { payment } = checkout;
  const now = clock.now();
  return db.transaction(async (tx) => {
    const locked = await lockPayState(tx, payment.account_id, payment.purchase_id);
    await recordResult(tx, payment, result, locked.state, now);
    if (share) await recordResult(tx, share.payment, share.result, locked.state, now);
    if (locked.state !== 'CREATED') return locked.state; // settled meanwhile (aborted, expired): nothing more to do here
    return openPurchase(deps, tx, checkout, locked, now);
  });
}

/**
 * LEADER_PROCESSED: the leader's terms stored, the installment plan stored, the drafts invited,
 * the follow-up jobs scheduled; a leader paying a SHARED purchase alone makes it SUCCESSFUL.
 */
async function openPurchase(deps: PaymentDeps, tx: Sql, checkout: LeaderCheckout, locked: PurchasePayState, now: Date): Promise<PurchaseState> {
  const { offer, plan, payment } = checkout;
  const { accountId, id: purchaseId } = locked;
  const shared = offer.type === 'SHARED';
  const invitations = (await draftShares(tx, accountId, purchaseId)).length;
  const comment = shared && invitations > 0 ? potComment(invitations, 0, locked.amountCents - plan.leaderShareCents, offer.currency) : undefined;
  // Validated: in transfer mode, the move books what the shopper owes and the merchant is owed (src/purchases/transitions.ts).
  const shopperFeesCents = (plan.schedule ?? []).reduce((sum, line) => sum + line.feesCents, 0);
  const processed = await applyMove(tx, deps.clock, accountId, purchaseId, 'leaderProcessed', { comment, data: { payment_id: payment.id }, shopperFeesCents });
  if (!processed.ok) return stateAfter(processed, locked.state);

  const deadline = shared ? potDeadline(now, offer.potDeadlineHours) : null;
  await setLeaderTerms(
    tx,
    accountId,
    purchaseId,
    { leaderShareCents: plan.leaderShareCents, potDeadlineAt: deadline, guaranteePaymentId: plan.purpose === 'guarantee' ? payment.id : null },
    now,
  );
  if (plan.schedule) {
    await insertPlan(
      tx,
      accountId,
      purchaseId,
      plan.schedule,
      { paid: plan.purpose === 'first_installment', heldByPayment: plan.purpose === 'deferred', paymentId: payment.id },
      now,
    );
  }
  await inviteDrafts(tx, accountId, purchaseId, now);
  if (shared && invitations === 0) {
    const succeeded = await applyMove(tx, deps.clock, accountId, purchaseId, 'succeed', { data: { payment_id: payment.id } });
    return stateAfter(succeeded, 'LEADER_PROCESSED');
  }
  if (deadline) await schedulePotJobs(tx, accountId, purchaseId, now, deadline);
  if (plan.schedule) await scheduleCollections(tx, accountId, purchaseId);
  // A hold that must outlive the card authorisation is renewed before it lapses (docs/money-operations.md#re-authorisation).
  if (deadline && plan.purpose === 'guarantee') await scheduleReauthorization(tx, deps, payment, deadline, offer.holdRenewalDays);
  const deferredLine = plan.purpose === 'deferred' ? plan.schedule?.[0] : undefined;
  if (deferredLine) await scheduleReauthorization(tx, deps, payment, dueAt(deferredLine.dueDate), offer.holdRenewalDays);
  return 'LEADER_PROCESSED';
}

/** The purchase's state after a move: where it went, or where it stayed. */
function stateAfter(move: MoveResult, unchanged: PurchaseState): PurchaseState {
  if (move.ok) return move.to;
  return move.reason === 'not_allowed' ? move.state : unchanged;
}

/**
 * A refusal (card not attached, authorisation or share charge refused, 3-D Secure failed): the
 * purchase stays CREATED and records `payment.failed`; the offer's last allowed attempt makes it FAILED.
 */
async function leaderDeclined(deps: PaymentDeps, offer: Offer, payment: PaymentRow, refusal: Decline | undefined, result?: TransactionResult): Promise<LeaderOutcome> {
  const decline = refusal ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
  const after = await deps.db.transaction((tx) => failAttempt(deps, tx, offer, payment, decline.reason, result, {}));
  return { kind: 'declined', reason: decline.reason, message: decline.message, attemptsLeft: Math.max(0, offer.maxAttempts - after.attempts), state: after.state };
}

/**
 * A refusal of the risk rules or of the account's scoring hook, in the transaction that records
 * the decision: the attempt fails as a declined card does (it counts against the offer's
 * attempts), `payment.failed` names the reasons and the purchase's comment says them
 * (docs/risk.md#what-the-merchant-sees). Nothing was sent to the PSP but the card's tokenisation.
 */
async function riskRefused(deps: PaymentDeps, tx: Sql, offer: Offer, payment: PaymentRow, decisionId: string, reasons: RiskReason[], fallbacks: Offer[]): Promise<LeaderOutcome> {
  const codes = reasons.map((r) => r.code);
  const after = await failAttempt(deps, tx, offer, payment, 'risk_refused', undefined, { risk: { decision_id: decisionId, reasons: codes } }, riskRefusedComment(codes));
  return {
    kind: 'risk_refused',
    reasons,
    attemptsLeft: Math.max(0, offer.maxAttempts - after.attempts),
    state: after.state,
    fallbacks: after.state === 'CREATED' ? fallbacks : [],
  };
}

/** The failed attempt's writes: the payment row, the attempts count, `payment.failed`, and FAILED after the offer's last attempt. */
async function failAttempt(
  deps: PaymentDeps,
  tx: Sql,
  offer: Offer,
  payment: PaymentRow,
  reason: DeclineReason | 'risk_refused',
  result: TransactionResult | undefined,
  data: Record<string, unknown>,
  comment?: string,
): Promise<{ state: PurchaseState; attempts: number }> {
  const { clock } = deps;
  const locked = await lockPayState(tx, payment.account_id, payment.purchase_id);
  const now = clock.now();
  if (result?.transactionId) await recordResult(tx, payment, result, locked.state, now);
  else await markDeclined(tx, payment, reason, now);
  if (locked.state !== 'CREATED') return { state: locked.state, attempts: locked.attempts };
  const attempts = locked.attempts + 1;
  await setAttempts(tx, payment.account_id, payment.purchase_id, attempts);
  await writeEvent(tx, payment.account_id, payment.purchase_id, EVENT.paymentFailed, locked.state, { reason, payment_id: payment.id, attempt: attempts, ...data }, now);
  if (attempts < offer.maxAttempts) {
    if (comment !== undefined) await setPurchaseComment(tx, payment.account_id, payment.purchase_id, comment, now);
    return { state: locked.state, attempts };
  }
  const failed = await applyMove(tx, clock, payment.account_id, payment.purchase_id, 'fail', {
    comment: comment ?? leaderRefusedComment(attempts, reason),
    data: { reason },
  });
  return { state: stateAfter(failed, locked.state), attempts };
}
