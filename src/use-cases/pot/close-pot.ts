import type { Sql } from '../../db/database.ts';
import { potComment, potCompleteComment, uncovered } from '../../domain/pot.ts';
import { callAndBook } from '../../money/movement.ts';
import { findPayment } from '../../payments/payment-repository.ts';
import { loadPayState, setComment, type PurchasePayState } from '../../payments/pay-state-repository.ts';
import { closePledges, listPledges } from '../../payments/pledge-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * Inside the transaction of a pledge just paid (or at the deadline, nothing left to charge):
 * when the shares cover the amount, the pot closes (unpaid invitations closed) and the purchase
 * is SUCCESSFUL; otherwise the comment tells the progress. The guarantee is released after the
 * commit ({@link releaseGuarantee}). Answers whether the pot closed.
 */
export async function closePotIfCovered(deps: PaymentDeps, tx: Sql, locked: PurchasePayState): Promise<boolean> {
  const pledges = await listPledges(tx, locked.accountId, locked.id);
  const counted = pledges.filter((p) => p.state !== 'draft');
  const paid = counted.filter((p) => p.state === 'paid');
  const left = uncovered(
    locked.amountCents,
    locked.leaderShareCents ?? 0,
    paid.map((p) => p.amountCents),
  );
  if (left > 0 || locked.state !== 'LEADER_PROCESSED') {
    await setComment(tx, locked.accountId, locked.id, potComment(counted.length, paid.length, left, locked.currency));
    return false;
  }
  await closePledges(tx, locked.accountId, locked.id, ['invited'], 'pot_full', deps.clock.now());
  const moved = await applyMove(tx, deps.clock, locked.accountId, locked.id, 'succeed', { comment: potCompleteComment(counted.length, paid.length) });
  return moved.ok;
}

/** Voids the leader's guarantee once the pot is settled and the hold is no longer needed. */
export async function releaseGuarantee(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  const state = await loadPayState(deps.db, accountId, purchaseId);
  if (!state?.guaranteePaymentId || state.state === 'LEADER_PROCESSED' || state.state === 'CREATED') return;
  const guarantee = await findPayment(deps.db, accountId, state.guaranteePaymentId);
  if (!guarantee || guarantee.status !== 'authorized' || !guarantee.psp_transaction_id) return;
  await callAndBook(deps, guarantee, { op: 'void', key: `${guarantee.idempotency_key}:release` });
}
