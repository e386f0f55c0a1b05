import type { Offer } from '../../accounts/offer.ts';
import type { Sql } from '../../db/database.ts';
import { LEADER_BUSY_MS, LEADER_PURPOSES, planLeaderPayment, plannedCharges, pledgerRequired, PLEDGER_REQUIRED, type LeaderPlan } from '../../domain/leader-plan.ts';
import { formatIsoDate } from '../../domain/dates.ts';
import { isPspFault, threeDSecureInput, type AttachResult, type CardInput } from '../../psp/connector.ts';
import { firstOffStep } from '../../psp/definition.ts';
import { insertPaymentMethod } from '../../payments/payment-method-repository.ts';
import { leaderAttempts, setPaymentPspMethod, releasePendingAttempt, type PaymentRow } from '../../payments/payment-repository.ts';
import { runMovement, type Call, type ReservePayment } from '../../money/movement.ts';
import { isInProgress } from '../../money/claim.ts';
import { unresolvedLeaderAttempt } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState, setPaymentMethod, setPurchasePaymentMode, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { insertDraftPledges, type NewPledge } from '../../payments/pledge-repository.ts';
import { setLeaderName } from '../../purchases/purchase-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { scheduleReconciliation } from '../../jobs/reconciliation.ts';
import type { AccountConnector } from '../../psp/registry.ts';
import { storeForLater } from '../installments/stored-card.ts';
import { askScoringHook, cardFactsOf, decidePaymentRisk, fallbackCandidates, recordHookAnswer, type PaymentRiskInput } from '../risk/payment-risk.ts';
import { afterLeader, callsAfterAuthorisation, settleLeader, type LeaderCheckout, type LeaderMade, type LeaderSettled, type LeaderStep } from './leader-after-authorisation.ts';
import { riskRefused, type LeaderOutcome } from './leader-outcome.ts';
import { resolveLeaderAttempt } from './resolve-leader-attempt.ts';

/** The leader's invitations as the checkout's form gives them (`payAsLeader`'s `pledgers`). */
export type { NewPledge };

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
    /**
     * The leader's own name typed on the checkout page when the merchant sent none: friends read
     * it as who invites them (docs/hosted-payment.md#the-leaders-name). Stored with the attempt's
     * invitations.
     */
    leaderName?: string;
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

  const out = await runMovement<LeaderCheckout, LeaderSettled, LeaderStep, LeaderMade>(deps, {
    accountId: purchase.accountId,
    purchaseId: purchase.id,
    // No claim: a CREATED purchase has no other money operation; one attempt at a time is the
    // reservation's rule (reserveAttempt).
    operation: null,
    notFound: { outcome: { kind: 'not_payable', state: 'CANCELLED' }, giveBack: [] },
    reserve: (tx, locked, _take, reservePayment) => reserveAttempt(deps, tx, locked, { state, offer, plan, pledgers, psp }, reservePayment, context),
    lease: (checkout) => checkout.payment,
    calls: async (checkout, call) => {
      try {
        return await checkoutCalls(deps, state, checkout, psp, card, returnUrl, context, call);
      } catch (err) {
        // A PSP fault (unreachable, timeout, 5xx): the row stays pending (with its card if the
        // authorisation was sent), so the leader's next attempt replays it with the same key
        // first — never a second charge — and is not told to wait. The purchase is unchanged.
        if (isPspFault(err)) await releasePendingAttempt(deps.db, checkout.payment, LEADER_BUSY_MS, deps.clock.now());
        throw err;
      }
    },
    settle: (tx, locked, answers, book, checkout, made) => settleLeader(deps, tx, locked, book, checkout, answers, made),
    after: (settled, checkout) => afterLeader(deps, checkout, settled),
  });
  // Never: an attempt under way is the reservation's refusal, not another operation's claim.
  if (isInProgress(out)) return { kind: 'in_progress' };
  return out.outcome ?? { kind: 'in_progress' };
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
 * The calls of a reserved checkout attempt: the card attached, the risk decision on it (before
 * anything is authorised or held; its writes are its own transactions), the authorisation, then
 * the calls after it.
 */
async function checkoutCalls(
  deps: PaymentDeps,
  state: PurchasePayState,
  checkout: LeaderCheckout,
  psp: AccountConnector,
  card: CardInput,
  returnUrl: (paymentId: string) => string,
  context: { ip?: string },
  call: Call<LeaderStep>,
): Promise<LeaderMade> {
  const { offer, plan, payment } = checkout;
  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${payment.idempotency_key}:attach`, card });
  if (!attached.ok) return { refusedAtAttach: { reason: attached.reason, message: attached.message } };
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
      return { done: outcome };
    }
    const answer = await askScoringHook(deps.risk, risk, verdict);
    saved = await deps.db.transaction(async (tx) => {
      await recordHookAnswer(tx, state.accountId, verdict, answer);
      // The hook was asked about this offer only: its refusal proposes no fallback.
      if (answer?.refused) return { kind: 'refused', outcome: await riskRefused(deps, tx, offer, payment, verdict.decisionId, answer.refused, []) };
      return saveCard(deps, tx, state, payment, card_);
    });
  }
  if (saved === 'gone') return { done: { kind: 'in_progress' } };
  if (saved.kind === 'refused') return { done: saved.outcome };
  const input = {
    paymentMethodId: attached.paymentMethodId,
    currency: state.currency,
    capture: plan.capture,
    returnUrl: card_.returnUrl,
    storeForLater: storeForLater(plan),
    ...threeDSecureInput(offer.use3ds),
  };
  const auth = await call({ role: 'auth', payment, call: { op: 'authorize', input } });
  return callsAfterAuthorisation(checkout, attached.paymentMethodId, auth, call);
}

type Saved = { kind: 'saved' } | { kind: 'refused'; outcome: LeaderOutcome } | 'gone';

/**
 * One leader payment at a time per purchase, whatever the double clicks: under the purchase's
 * row lock (`locked`), refuses while another attempt runs or when the purchase's offer is no
 * longer the plan's, stores the invitations as drafts and the payment row (with its idempotency
 * key) before any PSP call. From then on the offer is fixed: a switch waits for the attempt's outcome.
 */
async function reserveAttempt(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  { state, offer, plan, pledgers, psp }: { state: PurchasePayState; offer: Offer; plan: LeaderPlan; pledgers: NewPledge[]; psp: AccountConnector },
  reservePayment: ReservePayment,
  { requestKey, leaderName }: { requestKey?: string; leaderName?: string },
): Promise<{ refuse: LeaderSettled } | { go: LeaderCheckout }> {
  const { accountId, id: purchaseId } = state;
  const refuse = (outcome: LeaderOutcome) => ({ refuse: { outcome, giveBack: [] } });
  if (locked.state !== 'CREATED') return refuse({ kind: 'not_payable', state: locked.state });
  // The offer is fixed once the attempt starts (docs/risk.md#the-fallback): the plan was
  // computed from the offer read before this lock; after a switch made since, it is charged
  // neither on the old offer's terms (the purchase is no longer on it) nor on the new one's (the
  // leader was not shown them).
  if (locked.offerId !== state.offerId) return refuse({ kind: 'offer_changed' });
  const now = deps.clock.now();
  const attempts = await leaderAttempts(tx, accountId, purchaseId, LEADER_PURPOSES, new Date(now.getTime() - LEADER_BUSY_MS));
  if (attempts.busy > 0) return refuse({ kind: 'in_progress' });
  // Never a second key for the same money while an earlier attempt is unresolved.
  if (await unresolvedLeaderAttempt(tx, accountId, purchaseId, LEADER_PURPOSES)) return refuse({ kind: 'in_progress' });
  await insertDraftPledges(tx, accountId, purchaseId, pledgers, now);
  if (leaderName && pledgers.length > 0) await setLeaderName(tx, accountId, purchaseId, leaderName, now);
  // Charged on the offer's PSP account from now on: booked in the offer's mode (docs/money-operations.md#transfer-mode).
  if (offer.paymentMode !== locked.paymentMode) await setPurchasePaymentMode(tx, accountId, purchaseId, offer.paymentMode);
  const payment = await reservePayment({
    accountId,
    purchaseId,
    purpose: plan.purpose,
    psp: psp.name,
    pspAccountId: psp.pspAccountId,
    idempotencyKey: `${purchaseId}:leader:${attempts.n + 1}`,
    amountCents: plan.authorizeCents,
    ...(requestKey !== undefined ? { requestKey } : {}),
    leased: true,
  });
  await scheduleReconciliation(tx, now);
  return { go: { offer, plan, payment } };
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
