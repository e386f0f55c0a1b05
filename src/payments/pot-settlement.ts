import type { Sql } from '../db/database.ts';
import { pledgePageUrl } from '../domain/links.ts';
import { decimalAmount } from '../domain/money.ts';
import { scheduleJob } from '../jobs/scheduler.ts';
import type { PledgeMessage } from '../messaging/messenger.ts';
import { findPurchase } from '../purchases/repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import type { PaymentDeps } from './deps.ts';
import { listPledges, loadPayState, savedPspMethodId, type Pledge, type PurchasePayState } from './pot-store.ts';
import { findPayment, insertPayment, recordResult } from './store.ts';

export const POT_DEADLINE_JOB = 'pot.deadline';
export const POT_REMINDER_JOB = 'pot.reminder';

/** v1 `comment` of an open pot: "1 of 3 friends paid, 40.00 EUR left." */
export function potComment(invited: number, paid: number, leftCents: number, currency: string): string {
  return `${paid} of ${invited} friend${invited === 1 ? '' : 's'} paid, ${decimalAmount(leftCents, currency)} ${currency} left.`;
}

/** The pot's deadline and the reminder before it, as durable jobs in the leader's transaction. */
export async function schedulePotJobs(tx: Sql, accountId: string, purchaseId: string, openedAt: Date, deadline: Date): Promise<void> {
  const window = deadline.getTime() - openedAt.getTime();
  // Remind a day before, or half-way for pots shorter than two days.
  const remindAt = new Date(deadline.getTime() - Math.min(24 * 3_600_000, window / 2));
  await scheduleJob(tx, { kind: POT_DEADLINE_JOB, key: `${POT_DEADLINE_JOB}:${purchaseId}`, runAt: deadline, payload: { purchaseId }, accountId });
  await scheduleJob(tx, { kind: POT_REMINDER_JOB, key: `${POT_REMINDER_JOB}:${purchaseId}`, runAt: remindAt, payload: { purchaseId }, accountId });
}

/**
 * Inside the transaction of a pledge just paid: when the shares now cover the amount, the pot
 * closes (unpaid invitations closed) and the purchase is SUCCESSFUL; otherwise the comment
 * tells the progress. The guarantee is released after the commit ({@link releaseGuarantee}).
 */
export async function settleIfCovered(deps: PaymentDeps, tx: Sql, locked: PurchasePayState): Promise<void> {
  const pledges = await listPledges(tx, locked.accountId, locked.id);
  const counted = pledges.filter((p) => p.state !== 'draft');
  const paid = counted.filter((p) => p.state === 'paid');
  const left = locked.amountCents - (locked.leaderShareCents ?? 0) - paid.reduce((a, p) => a + p.amountCents, 0);
  const now = deps.clock.now();
  if (left > 0 || locked.state !== 'LEADER_PROCESSED') {
    await tx.query('UPDATE purchases SET comment = $3 WHERE account_id = $1 AND id = $2', [
      locked.accountId,
      locked.id,
      potComment(counted.length, paid.length, left, locked.currency),
    ]);
    return;
  }
  await tx.query(
    "UPDATE pledges SET state = 'closed', closed_reason = 'pot_full', updated_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state = 'invited'",
    [locked.accountId, locked.id, now],
  );
  await applyMove(tx, deps.clock, locked.accountId, locked.id, 'succeed', {
    comment: `The pot is complete: ${paid.length} of ${counted.length} friend${counted.length === 1 ? '' : 's'} paid.`,
  });
}

/** Voids the leader's guarantee once the pot is settled and the hold is no longer needed. */
export async function releaseGuarantee(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  const state = await loadPayState(deps.db, accountId, purchaseId);
  if (!state?.guaranteePaymentId || state.state === 'LEADER_PROCESSED' || state.state === 'CREATED') return;
  const guarantee = await findPayment(deps.db, accountId, state.guaranteePaymentId);
  if (!guarantee || guarantee.status !== 'authorized' || !guarantee.psp_transaction_id) return;
  const result = await deps.psps.get(guarantee.psp).void({ idempotencyKey: `${guarantee.idempotency_key}:release`, transactionId: guarantee.psp_transaction_id });
  await deps.db.transaction((tx) => recordResult(tx, guarantee, result, state.state, deps.clock.now()));
}

/**
 * The pot's deadline: unpaid invitations are closed, and the uncovered rest is taken from the
 * leader's guarantee (or, when the hold has lapsed, charged off-session on the saved card):
 * SUCCESSFUL, or FAILED when refused. Answers a later time to run again when a pledger's payment
 * is still in flight.
 */
export async function settleDeadline(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<{ retryAt: Date } | void> {
  const { db, clock, psps, offers } = deps;
  const prepared = await db.transaction(async (tx) => {
    const now = clock.now();
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked || locked.state !== 'LEADER_PROCESSED') return undefined;
    const pledges = await listPledges(tx, accountId, purchaseId);
    const inFlight = pledges.find((p) => p.state === 'paying' && p.payingUntil && p.payingUntil > now);
    if (inFlight) return { retryAt: inFlight.payingUntil! };
    await tx.query(
      "UPDATE pledges SET state = 'closed', closed_reason = 'deadline', updated_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state IN ('invited', 'paying')",
      [accountId, purchaseId, now],
    );
    const paid = pledges.filter((p) => p.state === 'paid');
    const rest = locked.amountCents - (locked.leaderShareCents ?? 0) - paid.reduce((a, p) => a + p.amountCents, 0);
    return { locked, rest, paidCount: paid.length, invited: pledges.filter((p) => p.state !== 'draft').length };
  });
  if (!prepared) return;
  if ('retryAt' in prepared) return { retryAt: prepared.retryAt! };
  const { locked, rest } = prepared;
  if (rest <= 0) {
    await db.transaction((tx) => settleIfCovered(deps, tx, locked));
    return releaseGuarantee(deps, accountId, purchaseId);
  }

  const offer = (await offers.byId(accountId, locked.offerId))!;
  const psp = psps.get(offer.psp);
  const guarantee = locked.guaranteePaymentId ? await findPayment(db, accountId, locked.guaranteePaymentId) : undefined;
  let payment = guarantee;
  let result =
    guarantee?.psp_transaction_id && guarantee.status === 'authorized'
      ? await psp.capture({ idempotencyKey: `${guarantee.idempotency_key}:rest`, transactionId: guarantee.psp_transaction_id, amountCents: rest })
      : undefined;
  if (!result || result.status !== 'captured') {
    // The hold lapsed or was refused: charge the rest on the saved card instead.
    const methodId = await savedPspMethodId(db, accountId, purchaseId);
    if (guarantee && result) await db.transaction((tx) => recordResult(tx, guarantee, result!, locked.state, clock.now()));
    payment = await insertPayment(db, { accountId, purchaseId, purpose: 'rest', psp: psp.name, idempotencyKey: `${purchaseId}:rest`, amountCents: rest }, clock.now());
    result = await psp.chargeOffSession({ idempotencyKey: payment.idempotency_key, paymentMethodId: methodId!, amountCents: rest, currency: locked.currency });
  }
  const settled = result;
  await db.transaction(async (tx) => {
    const now = clock.now();
    const current = (await loadPayState(tx, accountId, purchaseId, true))!;
    await recordResult(tx, payment!, settled, current.state, now);
    if (current.state !== 'LEADER_PROCESSED') return;
    const summary = `${prepared.paidCount} of ${prepared.invited} friend${prepared.invited === 1 ? '' : 's'} paid`;
    if (settled.status === 'captured') {
      await applyMove(tx, clock, accountId, purchaseId, 'succeed', {
        comment: `${summary}; the leader paid the remaining ${decimalAmount(rest, locked.currency)} ${locked.currency} at the deadline.`,
        data: { rest_cents: rest },
      });
    } else {
      await applyMove(tx, clock, accountId, purchaseId, 'fail', {
        comment: `${summary}; charging the remaining ${decimalAmount(rest, locked.currency)} ${locked.currency} to the leader was refused.`,
        data: { rest_cents: rest, reason: settled.decline?.reason ?? 'declined' },
      });
    }
  });
  if (settled.status !== 'captured' || payment !== guarantee) await releaseGuarantee(deps, accountId, purchaseId);
}

async function sendToPledgers(deps: PaymentDeps, accountId: string, purchaseId: string, kind: PledgeMessage['kind'], pledges: Pledge[], deadline: Date): Promise<void> {
  const purchase = await findPurchase(deps.db, accountId, purchaseId);
  const offer = purchase && (await deps.offers.byId(accountId, purchase.offerId));
  if (!purchase || !offer) return;
  const inviterName = [purchase.client.firstName, purchase.client.lastName].filter(Boolean).join(' ') || purchase.client.email;
  for (const p of pledges) {
    const msg: PledgeMessage = {
      kind,
      accountId,
      purchaseId,
      language: purchase.language,
      merchantName: offer.accountName,
      title: purchase.title,
      amountCents: purchase.amountCents,
      currency: purchase.currency,
      url: pledgePageUrl(deps.publicUrl, p.id),
      inviterName,
      shareCents: p.amountCents,
      deadline,
      pledgerName: p.name ?? undefined,
    };
    await Promise.all([p.email ? deps.messenger.sendPledgeEmail(p.email, msg) : undefined, p.phoneNumber ? deps.messenger.sendPledgeSms(p.phoneNumber, msg) : undefined]);
  }
}

/** Invitations go out after the leader's payment committed; a failed send never undoes it. */
export async function invitePledgers(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  const state = await loadPayState(deps.db, accountId, purchaseId);
  if (!state?.potDeadlineAt) return;
  const invited = (await listPledges(deps.db, accountId, purchaseId)).filter((p) => p.state === 'invited');
  await sendToPledgers(deps, accountId, purchaseId, 'invitation', invited, state.potDeadlineAt);
}

/** Before the deadline: a reminder to every pledger who has not paid yet (once). */
export async function remindPledgers(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  const state = await loadPayState(deps.db, accountId, purchaseId);
  if (!state?.potDeadlineAt || state.state !== 'LEADER_PROCESSED') return;
  const { rows } = await deps.db.query<{ id: string }>(
    "UPDATE pledges SET reminded_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state = 'invited' AND reminded_at IS NULL RETURNING id",
    [accountId, purchaseId, deps.clock.now()],
  );
  const ids = new Set(rows.map((r) => r.id));
  const due = (await listPledges(deps.db, accountId, purchaseId)).filter((p) => ids.has(p.id));
  await sendToPledgers(deps, accountId, purchaseId, 'reminder', due, state.potDeadlineAt);
}
