import { EVENT } from '../domain/events.ts';
import { leaderShare, type ShareProblem } from '../domain/pot.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { computeSchedule, ScheduleError } from '../domain/schedule.ts';
import type { Offer } from '../accounts/offers.ts';
import type { CardInput, DeclineReason, PspConnector, TransactionResult } from '../psp/connector.ts';
import { applyMove } from '../purchases/transitions.ts';
import type { PaymentDeps } from './deps.ts';
import { insertDraftPledges, loadPayState, savedPspMethodId, type NewPledge, type PurchasePayState } from './pot-store.ts';
import { findPayment, insertPayment, recordResult, writeEvent, type PaymentRow } from './store.ts';
import { scheduleCollections } from './installments.ts';
import { invitePledgers, potComment, schedulePotJobs } from './pot-settlement.ts';
import { toIsoDate, offerTerms } from './terms.ts';

export type LeaderOutcome =
  | { kind: 'processed'; state: PurchaseState }
  | { kind: 'challenge'; url: string }
  | { kind: 'declined'; reason: DeclineReason; message: string; attemptsLeft: number; state: PurchaseState }
  | { kind: 'not_payable'; state: PurchaseState }
  | { kind: 'in_progress' }
  | { kind: 'invalid'; field: string; problem: ShareProblem | { code: 'not_shared' } | { code: 'schedule'; message: string } };

/** What the leader is charged at checkout, by payment solution (DESIGN §3). */
interface Plan {
  purpose: 'guarantee' | 'leader_share' | 'first_installment' | 'deferred';
  authorizeCents: number;
  capture: 'automatic' | 'manual';
  leaderShareCents: number;
  schedule?: { index: number; dueDate: string; amountCents: number; feesCents: number }[];
}

function plan(offer: Offer, p: PurchasePayState, pledgerShares: number[], createdIso: string): Plan | { problem: ShareProblem | { code: 'schedule'; message: string } } {
  if (offer.type === 'SHARED') {
    if (pledgerShares.length === 0) {
      return { purpose: 'leader_share', authorizeCents: p.amountCents, capture: 'automatic', leaderShareCents: p.amountCents };
    }
    const share = leaderShare(p.amountCents, pledgerShares);
    if (!share.ok) return { problem: share.problem };
    // The card guarantees the whole amount until the pot closes; the leader's own share is
    // charged off-session on the same card right after (see payLeaderShare).
    return { purpose: 'guarantee', authorizeCents: p.amountCents, capture: 'manual', leaderShareCents: share.leader };
  }
  try {
    const s = computeSchedule(offerTerms(offer), p.amountCents, createdIso);
    const lines = s.INSTALLMENT.map((l, index) => ({ index, dueDate: l.payment_date, amountCents: l.amount_cents, feesCents: l.fees }));
    const first = lines[0]!;
    if (offer.type === 'DEFERRED') {
      return { purpose: 'deferred', authorizeCents: first.amountCents + first.feesCents, capture: 'manual', leaderShareCents: p.amountCents, schedule: lines };
    }
    return { purpose: 'first_installment', authorizeCents: first.amountCents + first.feesCents, capture: 'automatic', leaderShareCents: p.amountCents, schedule: lines };
  } catch (err) {
    if (err instanceof ScheduleError) return { problem: { code: 'schedule', message: err.message } };
    throw err;
  }
}

/** The purposes of the leader's checkout transaction. */
export const LEADER_PURPOSES = ['guarantee', 'leader_share', 'first_installment', 'deferred'];

/**
 * The leader pays on the hosted page (or through the sandbox helper): card attached, the
 * checkout amount authorised (3-D Secure when the card asks), then the purchase moves to
 * LEADER_PROCESSED and the pledgers are invited. A refusal keeps the purchase CREATED, records
 * `payment.failed`, and after the offer's max attempts moves it to FAILED (DESIGN §3).
 */
export async function payAsLeader(
  deps: PaymentDeps,
  purchase: { id: string; accountId: string; createdAt: Date; language: string },
  card: CardInput,
  pledgers: NewPledge[],
  returnUrl: (paymentId: string) => string,
): Promise<LeaderOutcome> {
  const { db, clock, offers, psps } = deps;
  const state = await loadPayState(db, purchase.accountId, purchase.id);
  if (!state) return { kind: 'not_payable', state: 'CANCELLED' };
  if (state.state !== 'CREATED') return { kind: 'not_payable', state: state.state };
  const offer = (await offers.byId(purchase.accountId, state.offerId))!;
  if (offer.type !== 'SHARED' && pledgers.length > 0) return { kind: 'invalid', field: 'pledgers', problem: { code: 'not_shared' } };
  const planned = plan(offer, state, pledgers.map((p) => p.amountCents), toIsoDate(purchase.createdAt));
  if ('problem' in planned) return { kind: 'invalid', field: 'pledgers', problem: planned.problem };
  const psp = psps.get(offer.psp);

  // Reserve the attempt: one leader payment at a time per purchase, whatever the double clicks.
  const reserved = await db.transaction(async (tx) => {
    const locked = (await loadPayState(tx, purchase.accountId, purchase.id, true))!;
    if (locked.state !== 'CREATED') return { busy: false as const, state: locked.state };
    const { rows } = await tx.query<{ n: number; busy: number }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE status IN ('pending', 'requires_action') AND updated_at > $3) AS busy
       FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = ANY($4::text[])`,
      [purchase.accountId, purchase.id, new Date(clock.now().getTime() - 60_000), LEADER_PURPOSES],
    );
    if (rows[0]!.busy > 0) return { busy: true as const };
    await insertDraftPledges(tx, purchase.accountId, purchase.id, pledgers, clock.now());
    const payment = await insertPayment(
      tx,
      {
        accountId: purchase.accountId,
        purchaseId: purchase.id,
        purpose: planned.purpose,
        psp: psp.name,
        idempotencyKey: `${purchase.id}:leader:${rows[0]!.n + 1}`,
        amountCents: planned.authorizeCents,
      },
      clock.now(),
    );
    return { busy: false as const, payment };
  });
  if (reserved.busy) return { kind: 'in_progress' };
  if (!('payment' in reserved) || !reserved.payment) return { kind: 'not_payable', state: reserved.state! };
  const payment = reserved.payment;

  const attached = await psp.attachPaymentMethod({ idempotencyKey: `${payment.idempotency_key}:attach`, card });
  if (!attached.ok) {
    return leaderDeclined(deps, offer, payment, {
      transactionId: '',
      status: 'declined',
      amountCents: payment.amount_cents,
      capturedCents: 0,
      refundedCents: 0,
      decline: { reason: attached.reason, message: attached.message },
    });
  }
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO payment_methods (id, account_id, purchase_id, psp, psp_method_id, brand, last4, exp_month, exp_year, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [purchase.accountId, purchase.id, psp.name, attached.paymentMethodId, attached.brand, attached.last4, attached.expMonth, attached.expYear, clock.now()],
    );
    await tx.query('UPDATE purchases SET payment_method_id = $3 WHERE account_id = $1 AND id = $2', [purchase.accountId, purchase.id, rows[0]!.id]);
  });

  const result = await psp.authorize({
    idempotencyKey: payment.idempotency_key,
    paymentMethodId: attached.paymentMethodId,
    amountCents: planned.authorizeCents,
    currency: state.currency,
    capture: planned.capture,
    returnUrl: returnUrl(payment.id),
  });
  return continueLeader(deps, offer, payment, result, planned, attached.paymentMethodId, psp);
}

/** After the 3-D Secure challenge: the PSP's outcome of the leader's authorisation decides. */
export async function resumeLeaderAfterChallenge(deps: PaymentDeps, accountId: string, paymentId: string): Promise<LeaderOutcome> {
  const { db, offers, psps } = deps;
  const payment = await findPayment(db, accountId, paymentId);
  if (!payment || !LEADER_PURPOSES.includes(payment.purpose) || !payment.psp_transaction_id) return { kind: 'not_payable', state: 'CREATED' };
  const state = (await loadPayState(db, accountId, payment.purchase_id))!;
  if (state.state !== 'CREATED') return { kind: 'not_payable', state: state.state };
  const offer = (await offers.byId(accountId, state.offerId))!;
  const psp = psps.get(payment.psp);
  const result = await psp.retrieve(payment.psp_transaction_id);
  const drafts = await db.query<{ amount_cents: number }>(
    "SELECT amount_cents FROM pledges WHERE account_id = $1 AND purchase_id = $2 AND state = 'draft'",
    [accountId, payment.purchase_id],
  );
  const { rows: created } = await db.query<{ created_at: Date }>('SELECT created_at FROM purchases WHERE account_id = $1 AND id = $2', [accountId, payment.purchase_id]);
  const planned = plan(offer, state, drafts.rows.map((d) => d.amount_cents), toIsoDate(created[0]!.created_at));
  if ('problem' in planned) return { kind: 'invalid', field: 'pledgers', problem: planned.problem };
  const methodId = await savedPspMethodId(db, accountId, payment.purchase_id);
  return continueLeader(deps, offer, payment, result, planned, methodId!, psp);
}

async function continueLeader(
  deps: PaymentDeps,
  offer: Offer,
  payment: PaymentRow,
  result: TransactionResult,
  planned: Plan,
  pspMethodId: string,
  psp: PspConnector,
): Promise<LeaderOutcome> {
  const { db, clock } = deps;
  if (result.status === 'requires_action') {
    await db.transaction((tx) => recordResult(tx, payment, result, 'CREATED', clock.now()));
    return { kind: 'challenge', url: result.challengeUrl! };
  }
  if (result.status !== 'authorized' && result.status !== 'captured') return leaderDeclined(deps, offer, payment, result);

  // SHARED with pledgers: the guarantee holds; the leader's share is charged now on the saved card.
  let shareResult: TransactionResult | undefined;
  let sharePayment: PaymentRow | undefined;
  if (planned.purpose === 'guarantee') {
    sharePayment = await insertPayment(
      db,
      { accountId: payment.account_id, purchaseId: payment.purchase_id, purpose: 'leader_share', psp: psp.name, idempotencyKey: `${payment.idempotency_key}:share`, amountCents: planned.leaderShareCents },
      clock.now(),
    );
    shareResult = await psp.chargeOffSession({
      idempotencyKey: sharePayment.idempotency_key,
      paymentMethodId: pspMethodId,
      amountCents: planned.leaderShareCents,
      currency: offer.currency,
    });
    if (shareResult.status !== 'captured') {
      const voided = await psp.void({ idempotencyKey: `${payment.idempotency_key}:void`, transactionId: result.transactionId });
      await db.transaction(async (tx) => {
        await recordResult(tx, payment, result, 'CREATED', clock.now());
        await recordResult(tx, payment, voided, 'CREATED', clock.now());
      });
      return leaderDeclined(deps, offer, sharePayment, shareResult);
    }
  }

  const now = clock.now();
  const outcome = await db.transaction(async (tx) => {
    const locked = (await loadPayState(tx, payment.account_id, payment.purchase_id, true))!;
    await recordResult(tx, payment, result, locked.state, now);
    if (sharePayment && shareResult) await recordResult(tx, sharePayment, shareResult, locked.state, now);
    if (locked.state !== 'CREATED') return locked.state; // settled meanwhile (aborted, expired): nothing more to do here
    const deadline = offer.type === 'SHARED' ? new Date(now.getTime() + offer.potDeadlineHours * 3_600_000) : null;
    await tx.query(
      `UPDATE purchases SET leader_share_cents = $3, pot_deadline_at = $4, guarantee_payment_id = $5, updated_at = $6 WHERE account_id = $1 AND id = $2`,
      [payment.account_id, payment.purchase_id, planned.leaderShareCents, deadline, planned.purpose === 'guarantee' ? payment.id : null, now],
    );
    for (const line of planned.schedule ?? []) {
      const paid = line.index === 0 && planned.purpose === 'first_installment';
      await tx.query(
        `INSERT INTO installments (id, account_id, purchase_id, index, due_date, amount_cents, fees_cents, state, payment_id, paid_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (purchase_id, index) DO NOTHING`,
        [payment.account_id, payment.purchase_id, line.index, line.dueDate, line.amountCents, line.feesCents, paid ? 'paid' : 'scheduled', paid || planned.purpose === 'deferred' ? payment.id : null, paid ? now : null],
      );
    }
    const invited = await tx.query(
      "UPDATE pledges SET state = 'invited', updated_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state = 'draft'",
      [payment.account_id, payment.purchase_id, now],
    );
    const comment = offer.type === 'SHARED' && invited.rowCount > 0 ? potComment(invited.rowCount, 0, locked.amountCents - planned.leaderShareCents, offer.currency) : undefined;
    await applyMove(tx, clock, payment.account_id, payment.purchase_id, 'leaderProcessed', { comment, data: { payment_id: payment.id } });
    if (offer.type === 'SHARED' && invited.rowCount === 0) {
      await applyMove(tx, clock, payment.account_id, payment.purchase_id, 'succeed', { data: { payment_id: payment.id } });
      return 'SUCCESSFUL' as const;
    }
    if (deadline) await schedulePotJobs(tx, payment.account_id, payment.purchase_id, now, deadline);
    if (planned.schedule) await scheduleCollections(tx, payment.account_id, payment.purchase_id);
    return 'LEADER_PROCESSED' as const;
  });
  if (outcome === 'LEADER_PROCESSED' && offer.type === 'SHARED') await invitePledgers(deps, payment.account_id, payment.purchase_id);
  return { kind: 'processed', state: outcome };
}

async function leaderDeclined(deps: PaymentDeps, offer: Offer, payment: PaymentRow, result: TransactionResult): Promise<LeaderOutcome> {
  const { db, clock } = deps;
  const decline = result.decline ?? { reason: 'processing_error' as const, message: 'The payment could not be completed.' };
  const state = await db.transaction(async (tx) => {
    const locked = (await loadPayState(tx, payment.account_id, payment.purchase_id, true))!;
    const now = clock.now();
    if (result.transactionId) await recordResult(tx, payment, result, locked.state, now);
    else await tx.query("UPDATE payments SET status = 'declined', decline_reason = $3, updated_at = $4 WHERE account_id = $1 AND id = $2", [payment.account_id, payment.id, decline.reason, now]);
    if (locked.state !== 'CREATED') return { state: locked.state, attempts: locked.attempts };
    const attempts = locked.attempts + 1;
    await tx.query('UPDATE purchases SET attempts = $3 WHERE account_id = $1 AND id = $2', [payment.account_id, payment.purchase_id, attempts]);
    await writeEvent(tx, payment.account_id, payment.purchase_id, EVENT.paymentFailed, locked.state, { reason: decline.reason, payment_id: payment.id, attempt: attempts }, now);
    if (attempts >= offer.maxAttempts) {
      await applyMove(tx, clock, payment.account_id, payment.purchase_id, 'fail', {
        comment: `The leader's card was refused ${attempts} times (${decline.reason}).`,
        data: { reason: decline.reason },
      });
      return { state: 'FAILED' as const, attempts };
    }
    return { state: locked.state, attempts };
  });
  return { kind: 'declined', reason: decline.reason, message: decline.message, attemptsLeft: Math.max(0, offer.maxAttempts - state.attempts), state: state.state };
}
