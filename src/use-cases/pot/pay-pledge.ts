import type { Sql } from '../../db/database.ts';
import { EVENT } from '../../domain/events.ts';
import { pledgeReturnUrl } from '../../domain/links.ts';
import { PLEDGE_RESERVATION_MS, uncovered } from '../../domain/pot.ts';
import type { Offer } from '../../accounts/offer.ts';
import { formatIsoDate } from '../../domain/dates.ts';
import type { RiskReason } from '../../domain/eligibility.ts';
import { threeDSecureInput, type AttachResult, type CardInput, type DeclineReason, type TransactionResult, type ChallengeReturn } from '../../psp/connector.ts';
import { askScoringHook, cardFactsOf, decidePaymentRisk, recordHookAnswer, type PaymentRiskInput } from '../risk/payment-risk.ts';
import { countPledgePayments, findPayment, findPledgePayment, markDeclined, setPaymentPspMethod, writeEvent, type PaymentRow } from '../../payments/payment-repository.ts';
import { isInProgress } from '../../money/claim.ts';
import { runMovement, settleAlone, type Book, type ReservePayment, type Step } from '../../money/movement.ts';
import { callPsp } from '../../money/psp-call.ts';
import { findPaymentWithLease } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { committedShares, findPledge, markPledgePaid, setPledgeState, upsertPledgerClient, type Pledge } from '../../payments/pledge-repository.ts';
import { closePotIfCovered, releaseGuarantee } from './close-pot.ts';
import { newUuid } from '../../domain/ids.ts';
import type { PaymentDeps } from '../deps.ts';
import type { AccountConnector } from '../../psp/registry.ts';
import { giveBack } from '../give-back/give-back.ts';
import { scheduleReconciliation } from '../../jobs/reconciliation.ts';
import { sendPledgeReceipt, sendPotCompleteNotice } from '../notices/shopper-notices.ts';

export type PledgeOutcome =
  | { kind: 'paid' }
  | { kind: 'challenge'; url: string }
  /** `atAttach`: refused as the card was registered, before any 3-D Secure step or charge (a card without 3-D Secure). */
  | { kind: 'declined'; reason: DeclineReason; message: string; atAttach?: true }
  /** The account's block lists or card countries refused the pledger's card before anything was charged (docs/risk.md#what-applies). */
  | { kind: 'risk_refused'; reasons: RiskReason[] }
  | { kind: 'already_paid' }
  | { kind: 'closed'; reason: string }
  | { kind: 'in_progress' };

/**
 * A pledger pays their share. The share is first reserved under the purchase's row lock, so
 * that concurrent pledgers never over-fund the pot: a pledge that no longer fits is closed and
 * never charged. Then the card is charged outside any transaction, and the outcome recorded.
 */
export async function payPledge(
  deps: PaymentDeps,
  pledge: Pledge,
  card: CardInput,
  returnUrl: (paymentId: string) => string,
  context: {
    ip?: string;
    /** The Idempotency-Key request this is, stored on its payment: see {@link payAsLeader}'s. */
    requestKey?: string;
  } = {},
): Promise<PledgeOutcome> {
  const { db, clock, offers, psps } = deps;
  if (pledge.state === 'paid') return { kind: 'already_paid' };
  if (pledge.state === 'closed') return { kind: 'closed', reason: pledge.closedReason ?? 'closed' };
  const purchase = await loadPayState(db, pledge.accountId, pledge.purchaseId);
  const offer = purchase && (await offers.byId(pledge.accountId, purchase.offerId));
  if (!purchase || !offer) return { kind: 'closed', reason: 'unknown' };
  const psp = await psps.forOffer(offer);

  // The pledge's last payment left unresolved (a crash, an abandoned challenge) is resolved first
  // with its own key; only a refused one lets this card be charged.
  const last = pledge.paymentId ? await findPaymentWithLease(db, pledge.accountId, pledge.paymentId) : undefined;
  if (last && (last.status === 'pending' || last.status === 'requires_action')) {
    // A request still running it (its lease live) is never overtaken.
    if (last.lease === 'live') return { kind: 'in_progress' };
    // This request's own payment (its key taken over after it failed), or one whose request
    // failed or died (its lease lapsed, docs/money-operations.md#payments-in-doubt): nobody is
    // running it, so it is resolved now whatever the reservation's time left.
    const own = context.requestKey !== undefined && last.request_key === context.requestKey && last.status === 'pending';
    const current = await findPledge(db, pledge.accountId, pledge.id);
    if (!own && last.lease !== 'lapsed' && current?.state === 'paying' && current.payingUntil && current.payingUntil > clock.now()) return { kind: 'in_progress' };
    const resolved = await resolvePledgePayment(deps, last);
    if (resolved && (own || resolved.kind !== 'declined')) return resolved;
  }

  // One key per attempt: each attempt attaches the card it was given (a key from the service clock
  // was the same for two attempts in one millisecond, or on a sandbox clock standing still, and the
  // second card was refused as a reuse). Attaching moves no money; the charge's key is the payment's.
  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${pledge.id}:attach:${newUuid()}`, card });
  if (!attached.ok) return { kind: 'declined', reason: attached.reason, message: attached.message, atAttach: true };
  const refused = await decidePledge(deps, pledge, purchase, offer, card, attached, context);
  if (refused) return { kind: 'risk_refused', reasons: refused };

  // A movement of the money engine (src/money/movement.ts) without the purchase's claim: friends
  // pay side by side, each share reserved under the row lock, each payment under its own lease.
  const out = await runMovement<{ payment: PaymentRow; currency: string }, Decided | { outcome: PledgeOutcome }, Step>(deps, {
    accountId: pledge.accountId,
    purchaseId: pledge.purchaseId,
    operation: null,
    notFound: { outcome: { kind: 'closed', reason: 'unknown' } },
    reserve: (tx, locked, _take, reservePayment) => reserve(deps, tx, locked, reservePayment, pledge, psp, attached.paymentMethodId, returnUrl, context.requestKey),
    lease: ({ payment }) => payment,
    calls: async ({ payment, currency }, call) => {
      const input = { paymentMethodId: attached.paymentMethodId, currency, capture: 'automatic' as const, returnUrl: payment.psp_return_url!, ...threeDSecureInput(offer.use3ds) };
      await call({ payment, call: { op: 'authorize', input } });
    },
    settle: (tx, locked, answers, book, { payment }) => decide(deps, tx, locked, book, pledge, payment, answers[0]!.result),
    // Under the payment's lease, as the answer's recording.
    after: (decided) => ('outcome' in decided ? Promise.resolve() : followUp(deps, pledge, decided)),
  });
  if (isInProgress(out)) return { kind: 'in_progress' };
  return 'outcome' in out ? out.outcome : answerOf(out);
}

/**
 * The risk decision on a pledger's card (docs/risk.md#what-applies): recorded whatever its outcome,
 * before the share is reserved or anything charged; the reasons when refused. A pledger lends
 * nothing: no history is read, only the block lists and the card's country apply.
 */
async function decidePledge(
  deps: PaymentDeps,
  pledge: Pledge,
  purchase: PurchasePayState,
  offer: Offer,
  card: CardInput,
  attached: Extract<AttachResult, { ok: true }>,
  context: { ip?: string },
): Promise<RiskReason[] | undefined> {
  const input: PaymentRiskInput = {
    purpose: 'pledge',
    accountId: pledge.accountId,
    purchaseId: pledge.purchaseId,
    offer,
    amountCents: pledge.amountCents,
    created: formatIsoDate(purchase.createdAt),
    shopper: {
      ...(pledge.email ? { email: pledge.email } : {}),
      ...(pledge.phoneNumber ? { phone: pledge.phoneNumber } : {}),
      ...(context.ip !== undefined ? { ip: context.ip } : {}),
    },
    card: cardFactsOf(deps.risk, pledge.accountId, card, attached),
    paymentId: null,
    pledgeId: pledge.id,
    stored: await deps.risk.rules.rules(pledge.accountId),
    hook: await deps.risk.rules.scoringHook(pledge.accountId),
  };
  // A refusal is told to the merchant as `pledge.refused` (webhook `pledgeRefused`, the purchase's
  // errorNotificationUrl), in the transaction of its record; the purchase's state and comment stay.
  const refused = (tx: Sql, decisionId: string, reasons: RiskReason[]) =>
    writeEvent(
      tx,
      pledge.accountId,
      pledge.purchaseId,
      EVENT.pledgeRefused,
      purchase.state,
      { pledge_id: pledge.id, reason: 'risk_refused', risk: { decision_id: decisionId, reasons: reasons.map((r) => r.code) } },
      deps.clock.now(),
    );
  const verdict = await deps.db.transaction(async (tx) => {
    const decided = await decidePaymentRisk(tx, deps.risk, deps.clock, input);
    if (!decided.accepted) await refused(tx, decided.decisionId, decided.reasons);
    return decided;
  });
  if (!verdict.accepted) return verdict.reasons;
  const asked = await askScoringHook(deps.risk, input, verdict);
  if (asked)
    await deps.db.transaction(async (tx) => {
      await recordHookAnswer(tx, pledge.accountId, verdict, asked);
      if (asked.refused) await refused(tx, verdict.decisionId, asked.refused);
    });
  return asked?.refused;
}

/**
 * After the pledger's 3-D Secure challenge: the PSP's outcome of the authorisation decides. The
 * payment is found by the pledge AND its id (docs/security.md#returns-and-ids): another pledge's
 * payment, or one never sent to the PSP, is `not_found` and nothing is asked of the PSP.
 */
export async function resumePledgeAfterChallenge(deps: PaymentDeps, pledge: Pledge, paymentId: string, returned?: ChallengeReturn): Promise<PledgeOutcome | { kind: 'not_found' }> {
  const payment = await findPledgePayment(deps.db, pledge.accountId, pledge.id, paymentId);
  if (!payment || !payment.psp_transaction_id) return { kind: 'not_found' };
  if (pledge.state === 'paid') return { kind: 'already_paid' };
  const result = await callPsp(deps, payment, returned ? { op: 'retrieve', returned } : { op: 'retrieve' });
  return finishPledge(deps, pledge, payment, result);
}

/**
 * Resolves a pledge payment left `pending` (replays the authorisation with the same key and card:
 * the PSP answers its stored outcome) or awaiting 3-D Secure (asks the PSP; a challenge still
 * pending is voided), then records it through {@link finishPledge}, which keeps the money only
 * if the pledge still holds its reservation. The pledger's retry, the pot's deadline and the
 * reconciliation job use it alike. Undefined when there was nothing to resolve.
 */
export async function resolvePledgePayment(deps: PaymentDeps, payment: PaymentRow): Promise<PledgeOutcome | undefined> {
  const { db, clock } = deps;
  const pledge = payment.pledge_id ? await findPledge(db, payment.account_id, payment.pledge_id) : undefined;
  if (!pledge) return undefined;
  let result: TransactionResult;
  if (payment.status === 'pending') {
    if (!payment.psp_method_id) {
      // No stored card (a row written by a build that kept none): nothing to replay with.
      await markDeclined(db, payment, 'abandoned', clock.now());
      return undefined;
    }
    const purchase = (await loadPayState(db, payment.account_id, payment.purchase_id))!;
    const offer = await deps.offers.byId(payment.account_id, purchase.offerId);
    const input = {
      paymentMethodId: payment.psp_method_id,
      currency: purchase.currency,
      capture: 'automatic' as const,
      returnUrl: payment.psp_return_url ?? pledgeReturnUrl(deps.publicUrl, pledge.id, payment.id),
      ...threeDSecureInput(offer?.use3ds ?? 'auto'),
    };
    result = await callPsp(deps, payment, { op: 'authorize', input });
  } else if (payment.status === 'requires_action' && payment.psp_transaction_id) {
    result = await callPsp(deps, payment, { op: 'retrieve' });
  } else {
    return undefined;
  }
  if (result.status === 'requires_action') {
    const voided = await callPsp(deps, payment, { op: 'void', key: `${payment.idempotency_key}:void` }, result);
    // Refused: the pledger completed the challenge in between; that outcome decides.
    result = voided.status === 'voided' ? voided : await callPsp(deps, payment, { op: 'retrieve' }, voided);
  }
  return finishPledge(deps, pledge, payment, result);
}

/**
 * The pledge page's wait for the pledger's payment in progress (docs/hosted-payment.md#an-attempt-in-progress):
 * the pledge's last payment, `pending`, is resolved through {@link resolvePledgePayment} once it
 * is in doubt, as the pledger's retry would resolve it — its lease lapsed
 * (docs/money-operations.md#payments-in-doubt), or, without a lease, the pledge no longer holds
 * its reservation (PLEDGE_RESERVATION_MS) — and `in_progress` is answered before; a 3-D Secure
 * challenge is left to its own page. Undefined when there is no such payment.
 */
export async function confirmPledgePayment(deps: PaymentDeps, pledge: { id: string; accountId: string }): Promise<PledgeOutcome | undefined> {
  const current = await findPledge(deps.db, pledge.accountId, pledge.id);
  const payment = current?.paymentId ? await findPaymentWithLease(deps.db, pledge.accountId, current.paymentId) : undefined;
  if (!current || payment?.status !== 'pending') return undefined;
  if (payment.lease === 'live') return { kind: 'in_progress' };
  if (payment.lease !== 'lapsed' && current.state === 'paying' && current.payingUntil && current.payingUntil > deps.clock.now()) return { kind: 'in_progress' };
  return resolvePledgePayment(deps, payment);
}

/**
 * Reserves the pledger's share under the purchase's row lock (paid + reserved shares + the
 * leader's share never exceed the amount) and records the payment about to be made; or answers
 * why there is nothing to charge, closing a pledge that no longer fits.
 */
async function reserve(
  deps: PaymentDeps,
  tx: Sql,
  locked: PurchasePayState,
  reservePayment: ReservePayment,
  pledge: Pledge,
  psp: AccountConnector,
  pspMethodId: string,
  returnUrl: (paymentId: string) => string,
  requestKey: string | undefined,
): Promise<{ go: { payment: PaymentRow; currency: string } } | { refuse: { outcome: PledgeOutcome } }> {
  const now = deps.clock.now();
  const refuse = (outcome: PledgeOutcome) => ({ refuse: { outcome } });
  const current = (await findPledge(tx, pledge.accountId, pledge.id, true))!;
  if (current.state === 'paid') return refuse({ kind: 'already_paid' });
  if (current.state === 'closed') return refuse({ kind: 'closed', reason: current.closedReason ?? 'closed' });
  if (current.state === 'paying' && current.payingUntil && current.payingUntil > now) return refuse({ kind: 'in_progress' });
  // Never a second key for the same share while the last payment is unresolved (a concurrent retry resolves it).
  const last = current.paymentId ? await findPayment(tx, pledge.accountId, current.paymentId) : undefined;
  if (last && (last.status === 'pending' || last.status === 'requires_action')) return refuse({ kind: 'in_progress' });
  if (locked.state !== 'LEADER_PROCESSED') {
    await setPledgeState(tx, current, 'closed', now, { closedReason: 'pot_closed' });
    return refuse({ kind: 'closed', reason: 'pot_closed' });
  }
  const left = uncovered(locked.amountCents, locked.leaderShareCents ?? 0, await committedShares(tx, pledge.accountId, pledge.purchaseId, pledge.id, now));
  if (current.amountCents > left) {
    await setPledgeState(tx, current, 'closed', now, { closedReason: 'pot_full' });
    return refuse({ kind: 'closed', reason: 'pot_full' });
  }
  const n = await countPledgePayments(tx, pledge.accountId, pledge.id);
  const payment = await reservePayment({
    accountId: pledge.accountId,
    purchaseId: pledge.purchaseId,
    pledgeId: pledge.id,
    purpose: 'pledge',
    psp: psp.name,
    pspAccountId: psp.pspAccountId,
    idempotencyKey: `${pledge.id}:pay:${n + 1}`,
    amountCents: current.amountCents,
    ...(requestKey !== undefined ? { requestKey } : {}),
    leased: true,
  });
  // The call's card and return URL are stored before the call, for a replay after a crash.
  await setPaymentPspMethod(tx, payment, pspMethodId, returnUrl(payment.id));
  payment.psp_method_id = pspMethodId;
  payment.psp_return_url = returnUrl(payment.id);
  await setPledgeState(tx, current, 'paying', now, { payingUntil: new Date(now.getTime() + PLEDGE_RESERVATION_MS), paymentId: payment.id });
  await scheduleReconciliation(tx, now);
  return { go: { payment, currency: locked.currency } };
}

/**
 * Records the PSP's answer: paid (the pot may now be complete), a challenge, or a refusal that
 * frees the reservation.
 *
 * The pot is never over-funded and never short, whatever the interleaving with the deadline job,
 * the reconciliation job, a full pot, a clock jump or the pledger's second return: each payment's
 * fate is decided once, in this transaction, under the purchase's and the pledge's row locks
 * (docs/hosted-payment.md, "The pot and late payments"). Money is kept only by a pledge that
 * still holds this payment's reservation (`paying` with this payment) in a pot still open and
 * with room for it; the pledge then becomes `paid` by this payment (a conditional write), and
 * that decision stands: whoever resolves the same payment later finds it and takes nothing back.
 * A refusal while the pledge holds the payment frees the reservation. Any other answer is given
 * back (a pending challenge voided, a capture refunded, and the pledge closed if it was still
 * open), with keys derived from the payment's, so that every path running this rule gives it
 * back once, and without a `payment.transaction` event: the merchant is never told of money the
 * pot does not keep. The payment row stays unresolved until the give-back is recorded, so that a
 * crash in between leaves it to the reconciliation job, which gives back with the same keys.
 */
async function finishPledge(deps: PaymentDeps, pledge: Pledge, payment: PaymentRow, result: TransactionResult): Promise<PledgeOutcome> {
  const decided = await settleAlone(deps, payment, (tx, locked, book) => decide(deps, tx, locked, book, pledge, payment, result));
  await followUp(deps, pledge, decided);
  return answerOf(decided);
}

type Refusal = Exclude<PledgeOutcome, { kind: 'paid' }>;
/** The payment's fate as {@link decide} decides it, before what follows the commit. */
type Decided = Refusal | { kind: 'paid'; paymentId: string; complete: boolean } | { kind: 'give_back'; row: PaymentRow; result: TransactionResult; answer: Refusal };

/** The decision of {@link finishPledge}, in one transaction under the purchase's lock (`locked`) and the pledge's. */
async function decide(deps: PaymentDeps, tx: Sql, locked: PurchasePayState, book: Book, pledge: Pledge, payment: PaymentRow, result: TransactionResult): Promise<Decided> {
  const declined = (): Refusal => {
    const decline = result.decline ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
    return { kind: 'declined', reason: decline.reason, message: decline.message };
  };
  const now = deps.clock.now();
  const current = (await findPledge(tx, pledge.accountId, pledge.id, true))!;
  // Decided already (another path resolved this payment first): it paid the pledge, and stays.
  if (current.state === 'paid' && current.paymentId === payment.id) return { kind: 'already_paid' };
  // The row as it stands, not as the caller read it before asking the PSP: the answer is
  // recorded only over a row still unresolved.
  const row = (await findPayment(tx, payment.account_id, payment.id))!;
  const record = async () => {
    if (row.status === 'pending' || row.status === 'requires_action') await book(row, result);
  };
  const holds = current.state === 'paying' && current.paymentId === payment.id;
  const closedReason = current.state === 'closed' ? (current.closedReason ?? 'closed') : locked.state !== 'LEADER_PROCESSED' ? 'pot_closed' : undefined;
  const refused = result.status === 'declined' || result.status === 'voided' || result.status === 'expired';
  if (holds && refused) {
    // The pledger's attempt took nothing: recorded (and notified) as such, the reservation freed.
    await record();
    await setPledgeState(tx, current, closedReason ? 'closed' : 'invited', now, closedReason ? { payingUntil: null, closedReason } : { payingUntil: null });
    return closedReason ? { kind: 'closed', reason: closedReason } : declined();
  }
  if (holds && !closedReason && result.status === 'requires_action') {
    await record();
    await setPledgeState(tx, current, 'paying', now, { payingUntil: new Date(now.getTime() + PLEDGE_RESERVATION_MS) });
    return { kind: 'challenge', url: result.challengeUrl! };
  }
  // Captured: does the pot still want it? (An expired reservation may have been overtaken.)
  const fits =
    holds &&
    !closedReason &&
    result.status === 'captured' &&
    current.amountCents <= uncovered(locked.amountCents, locked.leaderShareCents ?? 0, await committedShares(tx, pledge.accountId, pledge.purchaseId, pledge.id, now));
  if (fits) {
    const clientId = await upsertPledgerClient(tx, pledge.accountId, current, now);
    // Under the locks it holds; the write itself still only pays a pledge holding this payment.
    if (await markPledgePaid(tx, current, payment.id, now, clientId)) {
      await record();
      await writeEvent(
        tx,
        pledge.accountId,
        pledge.purchaseId,
        EVENT.pledgePaid,
        locked.state,
        { pledge_id: pledge.id, client_id: clientId ?? null, amount_cents: current.amountCents },
        now,
      );
      return { kind: 'paid', paymentId: payment.id, complete: await closePotIfCovered(deps, tx, locked) };
    }
  }
  // The pledge does not keep this payment: whatever it took is given back, unannounced.
  const reason = closedReason ?? (holds && !fits && result.status === 'captured' ? 'pot_full' : 'closed');
  if (result.status === 'captured' && (current.state === 'paying' || current.state === 'invited')) {
    await setPledgeState(tx, current, 'closed', now, { payingUntil: null, closedReason: reason });
  }
  const answer: Refusal = current.state === 'paid' ? { kind: 'already_paid' } : refused && current.state !== 'closed' ? declined() : { kind: 'closed', reason };
  return { kind: 'give_back', row, result, answer };
}

/** After the commit: money the pot does not keep given back; paid, the guarantee released, the receipt and the pot's completion sent. */
async function followUp(deps: PaymentDeps, pledge: Pledge, decided: Decided): Promise<void> {
  if (decided.kind === 'give_back') await giveBack(deps, decided.row, decided.result, { notify: false });
  if (decided.kind !== 'paid') return;
  await releaseGuarantee(deps, pledge.accountId, pledge.purchaseId);
  await sendPledgeReceipt(deps, pledge.accountId, pledge.id, decided.paymentId);
  if (decided.complete) await sendPotCompleteNotice(deps, pledge.accountId, pledge.purchaseId);
}

/** What the pledger is answered. */
function answerOf(decided: Decided): PledgeOutcome {
  if (decided.kind === 'give_back') return decided.answer;
  if (decided.kind === 'paid') return { kind: 'paid' };
  return decided;
}
