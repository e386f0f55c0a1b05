import type { Sql } from '../../db/database.ts';
import { EVENT } from '../../domain/events.ts';
import { dueAt } from '../../domain/installment-rules.ts';
import { uncovered } from '../../domain/pot.ts';
import { scheduleJob } from '../../jobs/scheduler.ts';
import { holdValidityDays } from '../../psp/definition.ts';
import { installmentHeldBy, replaceInstallmentHold } from '../../payments/installment-repository.ts';
import { savedCard as savedCardFacts } from '../../payments/payment-method-repository.ts';
import { findPayment, findPaymentByKey, writeEvent, type PaymentRow } from '../../payments/payment-repository.ts';
import { callAndBook, runMovement, type Answer, type Book, type Call, type Step, type Take } from '../../money/movement.ts';
import { loadPayState, replaceGuarantee, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { listPledges } from '../../payments/pledge-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { isInProgress, type InProgress } from '../../money/claim.ts';
import { sendHoldRenewalFailedNotice } from '../notices/shopper-notices.ts';
import { savedCard } from './stored-card.ts';

/**
 * Re-authorisation (docs/money-operations.md#re-authorisation): a hold that must outlive the
 * card authorisation (the pot's guarantee until its deadline, a deferred payment's until its due
 * date) is renewed a margin before it lapses: a merchant-initiated hold of what is still to be
 * captured from it, on the stored card; the purchase (or installment) is pointed at the new hold
 * in one transaction, then the old hold is voided. Refused: the shopper and the merchant are told,
 * the old hold stays until it lapses, and the deadline's off-session fallback applies.
 */
export const REAUTH_JOB = 'payment.reauthorize';

/** How long before a hold lapses it is renewed at the latest: a day, so that a failed run has time to be retried. */
const REAUTH_MARGIN_MS = 86_400_000;

/** The renewal period of an offer that can no longer be read (deleted since): the doc's default, 7 days. */
const DEFAULT_RENEWAL_DAYS = 7;

const DAY_MS = 86_400_000;
const REAUTH_KEY = /:reauth:(\d+)$/;

/** Whether a payment is a re-authorisation (its key `<first hold's key>:reauth:<n>`). */
export function isReauthorization(payment: Pick<PaymentRow, 'idempotency_key'>): boolean {
  return REAUTH_KEY.test(payment.idempotency_key);
}

/** The idempotency key of the hold that renews the one keyed `key`: `<first key>:reauth:<n + 1>`. */
export function nextReauthKey(key: string): string {
  const m = REAUTH_KEY.exec(key);
  if (!m) return `${key}:reauth:1`;
  return `${key.slice(0, m.index)}:reauth:${Number(m[1]) + 1}`;
}

/** When a hold placed at `heldSince` for `validityDays` lapses at the latest (Chipin's view: the row is written before the PSP call). */
export function holdLapsesAt(heldSince: Date, validityDays: number): Date {
  return new Date(heldSince.getTime() + validityDays * DAY_MS);
}

/**
 * When a hold placed at `heldSince`, lapsing at `lapses`, is renewed: after the offer's renewal
 * period (`holdRenewalDays`), but never later than the margin before it lapses (what the card
 * network allows: docs/money-operations.md#re-authorisation) nor sooner than that margin after it
 * was placed, so that a renewal is never renewed at once in its turn.
 */
function renewalAt(heldSince: Date, lapses: Date, renewalDays: number): Date {
  const latest = lapses.getTime() - REAUTH_MARGIN_MS;
  const wanted = heldSince.getTime() + Math.max(renewalDays * DAY_MS, REAUTH_MARGIN_MS);
  return new Date(Math.min(latest, wanted));
}

/**
 * Schedules the renewal of a hold just recorded, in the caller's transaction, when it falls due
 * ({@link renewalAt}, the offer's `renewalDays`) before `deadline` and its PSP can place a
 * merchant-initiated hold. Answers whether a job was scheduled. `card`: the saved card's brand
 * when the caller has read it already (a renewal), else it is read here.
 */
export async function scheduleReauthorization(
  tx: Sql,
  deps: Pick<PaymentDeps, 'psps'>,
  hold: Pick<PaymentRow, 'id' | 'account_id' | 'purchase_id' | 'psp' | 'created_at' | 'idempotency_key'>,
  deadline: Date,
  renewalDays: number,
  card?: { brand: string | undefined },
): Promise<boolean> {
  const definition = deps.psps.definition(hold.psp);
  if (!definition?.authorizationValidity?.offSessionHold) return false;
  const brand = card ? card.brand : (await savedCardFacts(tx, hold.account_id, hold.purchase_id))?.brand;
  const lapses = holdLapsesAt(hold.created_at, holdValidityDays(definition, brand, isReauthorization(hold)));
  const runAt = renewalAt(hold.created_at, lapses, renewalDays);
  if (runAt.getTime() >= deadline.getTime()) return false;
  return scheduleJob(tx, { kind: REAUTH_JOB, key: `${REAUTH_JOB}:${hold.id}`, runAt, payload: { paymentId: hold.id }, accountId: hold.account_id });
}

/** What the hold is for, while it still is: the pot's guarantee or a deferred installment, with its deadline and what is left to capture. */
type Target = { kind: 'guarantee'; deadline: Date; amountCents: number } | { kind: 'installment'; installmentId: string; deadline: Date; amountCents: number };

async function targetOf(sql: Sql, purchase: PurchasePayState, hold: PaymentRow, lock: boolean): Promise<Target | undefined> {
  if (purchase.guaranteePaymentId === hold.id && purchase.potDeadlineAt) {
    const paid = (await listPledges(sql, purchase.accountId, purchase.id)).filter((p) => p.state === 'paid');
    const rest = uncovered(
      purchase.amountCents,
      purchase.leaderShareCents ?? 0,
      paid.map((p) => p.amountCents),
    );
    // Never more than the hold it renews: pledges paid since only lower what the deadline takes.
    return { kind: 'guarantee', deadline: purchase.potDeadlineAt, amountCents: Math.min(rest, hold.amount_cents - hold.captured_cents) };
  }
  const inst = await installmentHeldBy(sql, purchase.accountId, hold.id, lock);
  if (inst) return { kind: 'installment', installmentId: inst.id, deadline: dueAt(inst.dueDate), amountCents: inst.amountCents + inst.feesCents };
  return undefined;
}

export type ReauthOutcome =
  /** A new hold replaces the old one, which was voided. */
  | 'reauthorized'
  /** The PSP refused the new hold: the old one stays until it lapses. */
  | 'refused'
  /** Already renewed (a run that stopped between the switch and the void): the old hold was voided now. */
  | 'old_voided'
  /** Nothing to renew: settled, captured, lapsed, past its deadline, or a PSP without merchant-initiated holds. */
  | 'not_needed'
  /** Another money operation holds the purchase (a capture, a refund, a cancel): the job runs again shortly. */
  | 'in_progress';

/**
 * The re-authorisation job of one hold, as a movement of the money engine (src/money/movement.ts).
 * Idempotent: every PSP call has a key derived from the hold's. Under the purchase's claim
 * (docs/money-operations.md#one-money-operation-at-a-time): a capture, refund or cancel never runs
 * between the new hold and the old one's void.
 */
export async function reauthorizeHold(deps: PaymentDeps, accountId: string, holdId: string, opts: { waitMs?: number } = {}): Promise<ReauthOutcome> {
  const old = await findPayment(deps.db, accountId, holdId);
  if (!old) return 'not_needed';
  const out = await runMovement<Renewal, Renewed, Step, Facts | undefined>(deps, {
    accountId,
    purchaseId: old.purchase_id,
    operation: 'reauthorization',
    notFound: { outcome: 'not_needed' },
    ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}),
    reserve: (tx, locked, take) => reserveRenewal(deps, tx, locked, take, holdId),
    calls: (go, call) => renew(deps, go, call),
    settle: (tx, locked, answers, book, go, facts) => settleRenewal(deps, tx, locked, answers, book, go, facts),
    after: async ({ then }) => {
      if (then?.kind === 'void_old') await voidOld(deps, then.old);
      // The purchase moved on (settled, cancelled, captured) while the PSP answered: the new hold is not needed.
      if (then?.kind === 'release_new') {
        const unneeded = await findPayment(deps.db, accountId, then.fresh.id);
        if (unneeded?.status === 'authorized' && unneeded.psp_transaction_id) await voidHold(deps, unneeded, 'release');
      }
      if (then?.kind === 'notify') await sendHoldRenewalFailedNotice(deps, accountId, old.purchase_id, then.notice);
    },
  });
  return isInProgress(out) ? 'in_progress' : out.outcome;
}

/** What the reservation found to do: renew the hold, or only void the one a renewal already replaced. */
type Renewal = { kind: 'renew'; old: PaymentRow; target: Target } | { kind: 'void_old'; old: PaymentRow };
/** Read on the way of the renewal, for its recording: how long the old hold lives, the card's brand, the offer's renewal period. */
type Facts = { oldLapses: Date; brand: string | undefined; renewalDays: number };
/** The outcome, and what follows the commit. */
type Renewed = {
  outcome: ReauthOutcome;
  then?:
    | { kind: 'void_old'; old: PaymentRow }
    | { kind: 'release_new'; fresh: PaymentRow }
    | { kind: 'notify'; notice: { paymentId: string; heldCents: number; lapsesAt: Date; dueAt: Date } };
};

/** Under the purchase's lock and claim: whether the hold is still to renew, and for what. */
async function reserveRenewal(deps: PaymentDeps, tx: Sql, purchase: PurchasePayState, take: Take, holdId: string): Promise<{ go: Renewal } | { refuse: Renewed } | InProgress> {
  const notNeeded = { refuse: { outcome: 'not_needed' as const } };
  const claim = await take();
  if (isInProgress(claim)) return claim;
  const old = await findPayment(tx, purchase.accountId, holdId);
  if (!old) return notNeeded;
  const target = await targetOf(tx, purchase, old, false);
  if (!target) {
    // No longer what the purchase points at. Renewed already (the switch committed, the process
    // stopped before the void): the old hold is released now. Never a hold still pointed at.
    const successor = await findPaymentByKey(tx, purchase.accountId, nextReauthKey(old.idempotency_key));
    if (successor && (successor.status === 'authorized' || successor.status === 'captured')) return { go: { kind: 'void_old', old } };
    return notNeeded;
  }
  const now = deps.clock.now();
  if (purchase.state !== 'LEADER_PROCESSED' || old.status !== 'authorized' || !old.psp_transaction_id) return notNeeded;
  if (target.amountCents <= 0 || target.deadline.getTime() <= now.getTime()) return notNeeded;
  if (!deps.psps.definition(old.psp)?.authorizationValidity?.offSessionHold) return notNeeded;
  return { go: { kind: 'renew', old, target } };
}

/**
 * The PSP side: the old hold voided (a renewal already in place), or a merchant-initiated hold of
 * what is left, on the stored card, on a payment row of its own. Undefined: nothing was asked.
 */
async function renew(deps: PaymentDeps, go: Renewal, call: Call<Step>): Promise<Facts | undefined> {
  const { db } = deps;
  const { old } = go;
  if (go.kind === 'void_old') {
    const current = await findPayment(db, old.account_id, old.id);
    if (current?.status === 'authorized' && current.psp_transaction_id) await call({ payment: current, call: { op: 'void', key: `${current.idempotency_key}:reauth-void` } });
    return undefined;
  }
  const purchase = (await loadPayState(db, old.account_id, old.purchase_id))!;
  const { psp, paymentMethodId, storedCredential } = await savedCard(deps, purchase);
  if (!deps.psps.definition(psp.name)?.authorizationValidity?.offSessionHold) return undefined;
  await call({
    reserve: {
      accountId: old.account_id,
      purchaseId: old.purchase_id,
      purpose: old.purpose,
      psp: psp.name,
      pspAccountId: psp.pspAccountId,
      idempotencyKey: nextReauthKey(old.idempotency_key),
      amountCents: go.target.amountCents,
    },
    call: { op: 'chargeOffSession', paymentMethodId, currency: purchase.currency, storedCredential, capture: 'manual' },
  });
  // The saved card's brand, read once per run: how long the old hold lives, the new one, and when
  // the new one is renewed in its turn all depend on it.
  const brand = (await savedCardFacts(db, old.account_id, old.purchase_id))?.brand;
  const oldLapses = holdLapsesAt(old.created_at, holdValidityDays(deps.psps.definition(old.psp), brand, isReauthorization(old)));
  // The offer's renewal period, read before the transaction: the offer cache queries outside it
  // when it must load, which on the embedded database waits for this very transaction.
  const renewalDays = (await deps.offers.byId(old.account_id, purchase.offerId))?.holdRenewalDays ?? DEFAULT_RENEWAL_DAYS;
  return { oldLapses, brand, renewalDays };
}

/**
 * Records the PSP's answer about the new hold and, accepted, points the purchase (or installment)
 * at it, writes `payment.reauthorized` and schedules its own renewal, all in one transaction; the
 * old hold is voided after the commit. Refused, `payment.reauthorization_failed` is written once
 * and the shopper told.
 */
async function settleRenewal(deps: PaymentDeps, tx: Sql, locked: PurchasePayState, answers: Answer<Step>[], book: Book, go: Renewal, facts: Facts | undefined): Promise<Renewed> {
  const answer = answers[0];
  const { old } = go;
  if (go.kind === 'void_old') return { outcome: answer && (await book(answer.payment, answer.result, { current: true, reauth: true })) ? 'old_voided' : 'not_needed' };
  if (!answer || !facts) return { outcome: 'not_needed' };
  const { payment: fresh, result } = answer;
  const { oldLapses, brand } = facts;
  const now = deps.clock.now();
  const wrote = await book(fresh, result, { current: true, reauth: true });
  if (result.status !== 'authorized') {
    if (!wrote) return { outcome: 'refused' };
    await writeEvent(
      tx,
      old.account_id,
      old.purchase_id,
      EVENT.paymentReauthorizationFailed,
      locked.state,
      {
        payment_id: old.id,
        attempted_payment_id: fresh.id,
        purpose: old.purpose,
        amount_cents: fresh.amount_cents,
        reason: result.decline?.reason ?? 'processing_error',
        hold_expires_at: oldLapses.toISOString(),
      },
      now,
    );
    return { outcome: 'refused', then: { kind: 'notify', notice: { paymentId: old.id, heldCents: go.target.amountCents, lapsesAt: oldLapses, dueAt: go.target.deadline } } };
  }
  const stale: Renewed = { outcome: 'not_needed', then: { kind: 'release_new', fresh } };
  if (locked.state !== 'LEADER_PROCESSED') return stale;
  const target = await targetOf(tx, locked, old, true);
  if (!target) return stale;
  const moved =
    target.kind === 'guarantee'
      ? await replaceGuarantee(tx, old.account_id, old.purchase_id, old.id, fresh.id, now)
      : await replaceInstallmentHold(tx, old.account_id, target.installmentId, old.id, fresh.id);
  if (!moved) return stale;
  const validity = holdValidityDays(deps.psps.definition(fresh.psp), brand, true);
  await writeEvent(
    tx,
    old.account_id,
    old.purchase_id,
    EVENT.paymentReauthorized,
    locked.state,
    {
      payment_id: fresh.id,
      replaced_payment_id: old.id,
      purpose: old.purpose,
      amount_cents: fresh.amount_cents,
      hold_expires_at: holdLapsesAt(fresh.created_at, validity).toISOString(),
    },
    now,
  );
  // Chains: the new hold is renewed in its turn if it too falls due before the deadline, on the
  // offer's period as it is now (a LEADER_PROCESSED purchase never changes offer).
  await scheduleReauthorization(tx, deps, fresh, target.deadline, facts.renewalDays, { brand });
  return { outcome: 'reauthorized', then: { kind: 'void_old', old } };
}

/** Voids the hold a re-authorisation replaced (idempotent: its key derives from the hold's). Answers whether it voided now. */
async function voidOld(deps: PaymentDeps, old: PaymentRow): Promise<boolean> {
  const fresh = await findPayment(deps.db, old.account_id, old.id);
  if (!fresh || fresh.status !== 'authorized' || !fresh.psp_transaction_id) return false;
  return voidHold(deps, fresh, 'reauth-void');
}

async function voidHold(deps: PaymentDeps, hold: PaymentRow, suffix: string): Promise<boolean> {
  const { recorded } = await callAndBook(deps, hold, { op: 'void', key: `${hold.idempotency_key}:${suffix}` }, { current: true, reauth: true });
  return recorded;
}
